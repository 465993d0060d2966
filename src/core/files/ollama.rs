//! Finding a model Ollama has pulled, from `ollama:NAME[:TAG]`: its manifest names the GGUF
//! blob that holds the weights. Nothing is fetched; only the local models folder is read.
//!
//! The layout is Ollama's: `manifests/<registry>/<namespace>/<name>/<tag>` (the registry
//! `registry.ollama.ai` and namespace `library` unless the name gives them, as in
//! `user/model` or `host/user/model`), a JSON manifest whose layer of media type
//! `application/vnd.ollama.image.model` has the digest `sha256:<hex>`, stored as
//! `blobs/sha256-<hex>`. The folder is `OLLAMA_MODELS`, else `~/.ollama/models`.

use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};
use serde_json::Value;

use crate::core::files::access::{JsonKind, read_json_text};
use crate::core::text::printable::printable;

/// What a `--model` argument starts with to name an Ollama model.
pub(super) const PREFIX: &str = "ollama:";
/// The media type of the layer that holds the weights.
const MODEL_LAYER: &str = "application/vnd.ollama.image.model";
const DEFAULT_REGISTRY: &str = "registry.ollama.ai";
const DEFAULT_NAMESPACE: &str = "library";

/// A pulled model: the GGUF blob, and the name to show.
#[derive(Debug)]
pub(super) struct OllamaModel {
    /// The GGUF file that holds the weights.
    pub(super) blob: PathBuf,
    /// `name:tag`, as Ollama shows it.
    pub(super) label: String,
    /// Where it was found, for the detection sentences.
    pub(super) note: String,
}

/// The `NAME[:TAG]` part of an `ollama:` argument, if the path is one.
pub(super) fn ollama_reference(path: &Path) -> Option<&str> {
    path.to_str()?.strip_prefix(PREFIX)
}

/// Finds a pulled model in Ollama's models folder (`OLLAMA_MODELS`, else `~/.ollama/models`).
///
/// # Errors
/// When the name is malformed, the folder cannot be found, or the manifest or blob is missing;
/// the message names each place looked.
pub(super) fn locate_ollama(reference: &str) -> Result<OllamaModel> {
    let (root, from) = match std::env::var_os("OLLAMA_MODELS") {
        Some(root) if !root.is_empty() => (PathBuf::from(root), "OLLAMA_MODELS"),
        _ => {
            // An empty HOME is no home: it would make the folder relative to wherever we are.
            let home = std::env::var_os("HOME").filter(|home| !home.is_empty()).ok_or_else(|| {
                anyhow!("{PREFIX}{reference}: neither OLLAMA_MODELS nor HOME is set, so Ollama's models folder is unknown")
            })?;
            (
                PathBuf::from(home).join(".ollama/models"),
                "the default ~/.ollama/models",
            )
        }
    };
    locate_in(&root, from, reference)
}

/// Finds a pulled model under a given models folder; `from` says where the folder came from.
pub(super) fn locate_in(root: &Path, from: &str, reference: &str) -> Result<OllamaModel> {
    let shown = format!("{PREFIX}{}", printable(reference));
    let (name, tag) = match reference.rsplit_once(':') {
        Some((name, tag)) if !tag.contains('/') => (name, tag),
        _ => (reference, "latest"),
    };
    let parts: Vec<&str> = name.split('/').collect();
    let bad_part =
        |part: &&str| part.is_empty() || *part == "." || *part == ".." || part.contains('\\');
    if parts.iter().any(bad_part) || tag.is_empty() || tag == "." || tag == ".." || parts.len() > 3
    {
        bail!(
            "{shown}: not a model name Ollama uses (as in {PREFIX}llama3.2 or {PREFIX}llama3.2:1b)"
        );
    }
    let (registry, namespace, model) = match parts.as_slice() {
        [model] => (DEFAULT_REGISTRY, DEFAULT_NAMESPACE, *model),
        [namespace, model] => (DEFAULT_REGISTRY, *namespace, *model),
        [registry, namespace, model] => (*registry, *namespace, *model),
        _ => unreachable!("checked above: one to three parts"),
    };
    let models_folder = root
        .join("manifests")
        .join(registry)
        .join(namespace)
        .join(model);
    let manifest = models_folder.join(tag);
    if !manifest.is_file() {
        bail!(
            "{shown}: {}",
            not_pulled(root, from, name, tag, &manifest, &models_folder)
        );
    }
    let text = read_json_text(&manifest, JsonKind::Manifest)
        .map_err(|error| anyhow!("{shown}: {error:#}"))?;
    let json: Value = serde_json::from_str(&text)
        .map_err(|error| anyhow!("{shown}: {} is not valid JSON: {error}", manifest.display()))?;
    let digest = json
        .get("layers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|layer| layer.get("mediaType").and_then(Value::as_str) == Some(MODEL_LAYER))
        .and_then(|layer| layer.get("digest").and_then(Value::as_str))
        .ok_or_else(|| {
            anyhow!(
                "{shown}: the manifest {} has no layer of media type {MODEL_LAYER}, so no model \
                 weights",
                manifest.display()
            )
        })?;
    let hex = digest
        .strip_prefix("sha256:")
        .filter(|hex| !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()))
        .ok_or_else(|| {
            anyhow!(
                "{shown}: the manifest {} names the digest {digest:?}, not sha256:<hex>",
                manifest.display()
            )
        })?;
    let blob = root.join("blobs").join(format!("sha256-{hex}"));
    if !blob.is_file() {
        bail!(
            "{shown}: the manifest {} names the blob {digest}, but {} is not there",
            manifest.display(),
            blob.display()
        );
    }
    // A blob may be a link (a models folder moved to another disk), but only to a file inside
    // the models folder: a link out of it reads a file the user never named.
    let (resolved, folder) = (blob.canonicalize(), root.canonicalize());
    if let (Ok(resolved), Ok(folder)) = (resolved, folder)
        && !resolved.starts_with(&folder)
    {
        bail!(
            "{shown}: the blob {} links to {}, outside Ollama's models folder {}; a blob must \
             stay inside that folder, so the model is refused",
            blob.display(),
            printable(&resolved.display().to_string()),
            folder.display()
        );
    }
    Ok(OllamaModel {
        note: format!("Ollama's {name}:{tag}, manifest {}", manifest.display()),
        label: format!("{name}:{tag}"),
        blob,
    })
}

/// Why a model is not there: where its manifest was looked for, and the tags that are.
fn not_pulled(
    root: &Path,
    from: &str,
    name: &str,
    tag: &str,
    manifest: &Path,
    models_folder: &Path,
) -> String {
    let tags = tags_in(models_folder);
    let (name, tag) = (printable(name), printable(tag));
    let hint = if tags.is_empty() {
        format!("`ollama pull {name}:{tag}` fetches it")
    } else {
        let listed: Vec<String> = tags
            .iter()
            .take(LISTED_TAGS)
            .map(|tag| printable(tag).into_owned())
            .collect();
        let more = tags.len().saturating_sub(LISTED_TAGS);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        format!("it has {}{more} pulled", listed.join(", "))
    };
    format!(
        "Ollama has not pulled {name}:{tag}: no manifest at {} (Ollama's models folder {}, from \
         {from}); {hint}",
        printable(&manifest.display().to_string()),
        printable(&root.display().to_string())
    )
}

/// How many pulled tags a "not pulled" message lists before it counts the rest.
const LISTED_TAGS: usize = 10;

/// The tags pulled for a model, sorted.
fn tags_in(folder: &Path) -> Vec<String> {
    let mut tags: Vec<String> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|entry| entry.path().is_file())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    tags.sort();
    tags
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake models folder with `library/smollm2:135m` and `someone/tiny:latest`.
    struct Models(PathBuf);

    impl Drop for Models {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn models(tag: &str) -> Models {
        let root =
            std::env::temp_dir().join(format!("embedlens-ollama-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let manifest = |folder: &str, tag: &str, hex: &str| {
            let dir = root.join("manifests").join(folder);
            std::fs::create_dir_all(&dir).unwrap();
            let json = serde_json::json!({
                "schemaVersion": 2,
                "layers": [
                    {"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:aaaa"},
                    {"mediaType": MODEL_LAYER, "digest": format!("sha256:{hex}")},
                ],
            });
            std::fs::write(dir.join(tag), json.to_string()).unwrap();
        };
        manifest("registry.ollama.ai/library/smollm2", "135m", "0123abcd");
        manifest("registry.ollama.ai/someone/tiny", "latest", "ffff");
        std::fs::create_dir_all(root.join("blobs")).unwrap();
        std::fs::write(root.join("blobs/sha256-0123abcd"), b"GGUF").unwrap();
        Models(root)
    }

    #[test]
    fn a_pulled_model_is_found_by_name_and_tag() {
        let root = models("found");
        let found = locate_in(&root.0, "test", "smollm2:135m").unwrap();
        assert_eq!(found.blob, root.0.join("blobs/sha256-0123abcd"));
        assert_eq!(found.label, "smollm2:135m");
        assert!(
            found
                .note
                .contains("manifests/registry.ollama.ai/library/smollm2/135m")
        );
    }

    #[test]
    fn many_tags_are_counted_and_names_from_files_are_escaped() {
        let root = models("tags");
        let folder = root.0.join("manifests/registry.ollama.ai/library/smollm2");
        for n in 0..30 {
            std::fs::write(folder.join(format!("t{n:02}")), "{}").unwrap();
        }
        std::fs::write(folder.join("odd\ntag"), "{}").unwrap();
        let error = locate_in(&root.0, "test", "smollm2:none\nx")
            .unwrap_err()
            .to_string();
        assert!(!error.contains('\n'), "no raw newline: {error}");
        assert!(error.contains("smollm2:none\\u{a}x"), "{error}");
        assert!(error.contains("odd\\u{a}tag"), "{error}");
        assert!(error.contains("t07 and 22 more pulled"), "{error}");
    }

    #[cfg(unix)]
    #[test]
    fn a_blob_that_links_out_of_the_models_folder_is_refused() {
        let root = models("blob-link");
        let outside = root.0.with_extension("outside");
        std::fs::write(&outside, b"GGUF").unwrap();
        let blob = root.0.join("blobs/sha256-0123abcd");
        std::fs::remove_file(&blob).unwrap();
        std::os::unix::fs::symlink(&outside, &blob).unwrap();
        let error = locate_in(&root.0, "test", "smollm2:135m")
            .unwrap_err()
            .to_string();
        let _ = std::fs::remove_file(&outside);
        assert!(
            error.contains("outside Ollama's models folder") && error.contains("is refused"),
            "{error}"
        );
    }

    #[test]
    fn what_is_missing_is_named_with_each_place_looked() {
        let root = models("missing");
        let error = locate_in(&root.0, "OLLAMA_MODELS", "smollm2")
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("ollama:smollm2: Ollama has not pulled smollm2:latest"),
            "{error}"
        );
        assert!(
            error.contains("manifests/registry.ollama.ai/library/smollm2/latest"),
            "{error}"
        );
        assert!(
            error.contains("from OLLAMA_MODELS); it has 135m pulled"),
            "{error}"
        );

        let error = locate_in(&root.0, "test", "llama3.2:1b")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("`ollama pull llama3.2:1b` fetches it"),
            "{error}"
        );

        let error = locate_in(&root.0, "test", "someone/tiny")
            .unwrap_err()
            .to_string();
        assert!(error.contains("names the blob sha256:ffff, but"), "{error}");
        assert!(error.contains("blobs/sha256-ffff is not there"), "{error}");

        for bad in ["", "../etc:passwd", "a//b", "a:"] {
            let error = locate_in(&root.0, "test", bad).unwrap_err().to_string();
            assert!(
                error.contains("not a model name Ollama uses"),
                "{bad}: {error}"
            );
        }
    }

    #[test]
    fn only_ollama_arguments_are_taken_as_references() {
        assert_eq!(
            ollama_reference(Path::new("ollama:qwen3:0.6b")),
            Some("qwen3:0.6b")
        );
        assert_eq!(ollama_reference(Path::new("models/ollama:x")), None);
    }
}
