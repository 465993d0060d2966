//! Finding the files a path stands for: one safetensors file, a folder, or a sharded index.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};
use serde_json::Value;

use super::hub_cache::CachedSnapshot;
use super::other_formats::OtherFormat;

/// The files a path stands for.
pub(super) struct Located {
    pub(super) folder: Option<PathBuf>,
    pub(super) files: Vec<PathBuf>,
    pub(super) index: Option<(PathBuf, BTreeMap<String, String>)>,
    pub(super) note: String,
}

pub(super) const MAPPED: &str = "memory-mapped, so only the rows looked at are ever read";

pub(super) fn locate(path: &Path) -> Result<Located> {
    if !path.exists() {
        bail!("{}: no such file or folder", path.display());
    }
    if path.is_dir() {
        let single = path.join("model.safetensors");
        if single.is_file() {
            return Ok(Located {
                folder: Some(path.to_owned()),
                files: vec![single],
                index: None,
                note: format!("read from model.safetensors, {MAPPED}"),
            });
        }
        let index = path.join("model.safetensors.index.json");
        if index.is_file() {
            return locate_shards(&index, path);
        }
        let files = safetensors_files_in(path)?;
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

pub(super) fn safetensors_files_in(folder: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(folder)
        .map_err(|error| anyhow!("{}: cannot list the folder: {error}", folder.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "safetensors"))
        .collect();
    files.sort();
    Ok(files)
}

/// The shards an index's `weight_map` names.
pub(super) fn locate_shards(index: &Path, folder: &Path) -> Result<Located> {
    let text = std::fs::read_to_string(index)
        .map_err(|error| anyhow!("{}: cannot read: {error}", index.display()))?;
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
    for name in &shard_names {
        let file = folder.join(name);
        if !file.is_file() {
            bail!(
                "{}: names the shard {name}, but {} does not exist",
                index.display(),
                file.display()
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
