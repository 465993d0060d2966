//! Finding the files a path stands for: one safetensors file, a folder, or a sharded index.

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use anyhow::{Result, anyhow, bail};
use serde_json::Value;

use super::hub_cache::CachedSnapshot;
use super::other_formats::OtherFormat;
use crate::core::files::access::{JsonKind, kind_of, read_json_text, require_regular};
use crate::core::text::printable::printable;

/// The files a path stands for.
pub(super) struct Located {
    pub(super) folder: Option<PathBuf>,
    pub(super) files: Vec<PathBuf>,
    pub(super) index: Option<(PathBuf, BTreeMap<String, String>)>,
    pub(super) note: String,
}

pub(super) const MAPPED: &str = "memory-mapped, so only the rows looked at are ever read";

pub(super) fn locate(path: &Path) -> Result<Located> {
    let metadata = std::fs::metadata(path).map_err(|error| match error.kind() {
        ErrorKind::NotFound => anyhow!("{}: no such file or folder", path.display()),
        _ => anyhow!("{}: cannot be read: {error}", path.display()),
    })?;
    if metadata.is_dir() {
        let single = path.join("model.safetensors");
        if is_regular_file(&single)? {
            return Ok(Located {
                folder: Some(path.to_owned()),
                files: vec![single],
                index: None,
                note: format!("read from model.safetensors, {MAPPED}"),
            });
        }
        let index = path.join("model.safetensors.index.json");
        if is_regular_file(&index)? {
            return locate_shards(&index, path);
        }
        let (files, unusable) = safetensors_files_and_others_in(path)?;
        if files.is_empty() && !unusable.is_empty() {
            bail!(
                "{}: no readable safetensors file in this folder: {}",
                path.display(),
                unusable.join("; ")
            );
        }
        if files.is_empty() {
            let others = other_format_files(path);
            bail!(
                "{}: no safetensors file in this folder (looked for model.safetensors, \
                 model.safetensors.index.json and any *.safetensors){}",
                path.display(),
                others
                    .first()
                    .map(|(file, format)| format!(". It holds {}", format.message(file)))
                    .unwrap_or_default()
            );
        }
        let note = format!(
            "read from {} ({MAPPED})",
            files
                .iter()
                .map(|f| file_name(f))
                .collect::<Vec<_>>()
                .join(", ")
        );
        return Ok(Located {
            folder: Some(path.to_owned()),
            files,
            index: None,
            note,
        });
    }
    if file_name(path).ends_with(".index.json") {
        let folder = path.parent().unwrap_or_else(|| Path::new("."));
        return locate_shards(path, folder);
    }
    Ok(Located {
        folder: None,
        files: vec![path.to_owned()],
        index: None,
        note: format!("read from {}, {MAPPED}", file_name(path)),
    })
}

/// The files of a folder that are models in other formats, by name (the first tells the user
/// what to do), sorted so the message is the same on every run.
fn other_format_files(folder: &Path) -> Vec<(PathBuf, OtherFormat)> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut found: Vec<(PathBuf, OtherFormat)> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter_map(|p| OtherFormat::of(&p, &[]).map(|format| (p, format)))
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

/// Whether `path` is a regular file (following links): `false` when nothing is there, an error
/// naming what is there when it cannot be used (a FIFO, a link loop, no permission).
fn is_regular_file(path: &Path) -> Result<bool> {
    match std::fs::metadata(path) {
        Ok(metadata) => require_regular(path, &metadata).map(|()| true),
        Err(error) if error.kind() == ErrorKind::NotFound => Ok(false),
        Err(error) => bail!("{}: cannot be read: {error}", path.display()),
    }
}

/// The folder's `*.safetensors` regular files, sorted, and a sentence for each other entry so
/// named that cannot be used (a FIFO, a folder, a link loop, an unreadable file).
fn safetensors_files_and_others_in(folder: &Path) -> Result<(Vec<PathBuf>, Vec<String>)> {
    let entries = std::fs::read_dir(folder)
        .map_err(|error| anyhow!("{}: cannot list the folder: {error}", folder.display()))?;
    let mut files = Vec::new();
    let mut unusable = Vec::new();
    for entry in entries {
        let entry = entry
            .map_err(|error| anyhow!("{}: cannot list the folder: {error}", folder.display()))?;
        let path = entry.path();
        if path
            .extension()
            .is_none_or(|extension| extension != "safetensors")
        {
            continue;
        }
        match std::fs::metadata(&path) {
            Ok(metadata) if metadata.is_file() => files.push(path),
            Ok(metadata) => unusable.push(format!(
                "{} is {}",
                file_name(&path),
                kind_of(metadata.file_type())
            )),
            Err(error) => unusable.push(format!("{} cannot be read: {error}", file_name(&path))),
        }
    }
    files.sort();
    unusable.sort();
    Ok((files, unusable))
}

/// Whether a shard name from an index is a path inside the folder as written: relative, with
/// no `..`. (Where links lead is checked once the file is found.)
fn stays_in_folder(name: &str) -> bool {
    !name.is_empty()
        && Path::new(name)
            .components()
            .all(|part| matches!(part, Component::Normal(_) | Component::CurDir))
}

/// The folders a shard may lead to after its links are followed: the model folder, and for a
/// Hugging Face cache snapshot (`…/snapshots/<revision>`) the repository's `blobs` folder,
/// where the cache's links point.
fn shard_roots(folder: &Path) -> Result<Vec<PathBuf>> {
    let folder = folder
        .canonicalize()
        .map_err(|error| anyhow!("{}: cannot be read: {error}", folder.display()))?;
    let mut roots = vec![folder.clone()];
    if let Some(snapshots) = folder.parent()
        && snapshots
            .file_name()
            .is_some_and(|name| name == "snapshots")
        && let Some(repository) = snapshots.parent()
        && let Ok(blobs) = repository.join("blobs").canonicalize()
    {
        roots.push(blobs);
    }
    Ok(roots)
}

/// The shards an index's `weight_map` names.
pub(super) fn locate_shards(index: &Path, folder: &Path) -> Result<Located> {
    let text = read_json_text(index, JsonKind::Index)?;
    let json: Value = serde_json::from_str(&text)
        .map_err(|error| anyhow!("{}: not valid JSON: {error}", index.display()))?;
    let Some(map) = json.get("weight_map").and_then(Value::as_object) else {
        bail!(
            "{}: has no weight_map object saying which file holds each tensor",
            index.display()
        );
    };
    let mut weight_map = BTreeMap::new();
    for (tensor, shard) in map {
        let Some(shard) = shard.as_str() else {
            bail!(
                "{}: the weight_map entry for {tensor} is {shard}, not a file name",
                index.display()
            );
        };
        weight_map.insert(tensor.clone(), shard.to_owned());
    }
    let mut shard_names: Vec<&String> = weight_map.values().collect();
    shard_names.sort();
    shard_names.dedup();
    let mut files = Vec::with_capacity(shard_names.len());
    let roots = shard_roots(folder)?;
    for name in &shard_names {
        let shown = printable(name);
        if !stays_in_folder(name) {
            bail!(
                "{}: names the shard {shown}, a path outside the model folder; an index may \
                 only name files inside its folder, so the model is refused",
                index.display()
            );
        }
        let file = folder.join(name);
        if !is_regular_file(&file)? {
            bail!(
                "{}: names the shard {shown}, but {} does not exist",
                index.display(),
                file.display()
            );
        }
        let resolved = file
            .canonicalize()
            .map_err(|error| anyhow!("{}: cannot be read: {error}", file.display()))?;
        if !roots.iter().any(|root| resolved.starts_with(root)) {
            bail!(
                "{}: names the shard {shown}, which links to {}, outside the model folder; an \
                 index may only name files inside its folder, so the model is refused",
                index.display(),
                resolved.display()
            );
        }
        files.push(file);
    }
    let note = format!(
        "read from {} shards named by {}, {MAPPED}",
        files.len(),
        file_name(index)
    );
    Ok(Located {
        folder: Some(folder.to_owned()),
        files,
        index: Some((index.to_owned(), weight_map)),
        note,
    })
}

/// The last part of a path, for messages.
pub(super) fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// A title for the model: `ORG/NAME` for a snapshot of the Hugging Face cache, else the
/// folder's name, or the file's.
pub(super) fn label_of(path: &Path) -> String {
    if let Some(snapshot) = CachedSnapshot::of(path) {
        return snapshot.repo.to_string();
    }
    let stem = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = stem
        .trim_end_matches(".index.json")
        .trim_end_matches(".safetensors")
        .to_owned();
    if stem.is_empty() {
        // `.` or `..`: name it after the folder it stands for.
        if let Some(name) = path
            .canonicalize()
            .ok()
            .as_deref()
            .and_then(Path::file_name)
        {
            return name.to_string_lossy().into_owned();
        }
    }
    let from_parent = stem == "model" || stem.starts_with("model-");
    if path.is_file()
        && from_parent
        && let Some(parent) = path.parent().and_then(Path::file_name)
    {
        return parent.to_string_lossy().into_owned();
    }
    if stem.is_empty() {
        "model".to_owned()
    } else {
        stem
    }
}
