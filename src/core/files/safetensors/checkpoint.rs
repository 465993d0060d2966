//! A checkpoint: every tensor of its files by name, with its `config.json`.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Result, anyhow, bail};
use ndarray::Array1;
use serde_json::Value;

use super::{Shard, TensorEntry, read_shard};
use crate::core::analysis::layer0::source::Settings;
use crate::core::files::access::{JsonKind, read_json_text};
use crate::core::files::locate::{file_name, locate};
use crate::core::tables::table::{Dtype, Table};

/// `config.json`: its settings, read and checked by the one reader of model settings
/// ([`Settings`], which layer 0 and a GGUF file's metadata use too), named by the file's path.
pub(in crate::core::files) struct Config {
    pub(in crate::core::files) path: PathBuf,
    pub(in crate::core::files) settings: Settings,
}

impl Config {
    pub(in crate::core::files) fn read(path: &Path) -> Result<Self> {
        let text = read_json_text(path, JsonKind::Config)?;
        let json: Value = serde_json::from_str(&text)
            .map_err(|error| anyhow!("{}: not valid JSON: {error}", path.display()))?;
        let Value::Object(fields) = json else {
            bail!(
                "{}: expected a JSON object of settings, found {json}",
                path.display()
            );
        };
        Ok(Self {
            path: path.to_owned(),
            settings: Settings::read_from(fields, path.display().to_string()),
        })
    }

    pub(in crate::core::files) fn number(&self, key: &str) -> Result<Option<f64>> {
        self.settings.number(&[key])
    }

    pub(in crate::core::files) fn model_type(&self) -> Option<&str> {
        self.settings.text("model_type")
    }
}

/// Every tensor of a checkpoint's files, with its config.
pub(in crate::core::files) struct Checkpoint {
    pub(in crate::core::files) folder: Option<PathBuf>,
    pub(in crate::core::files) note: String,
    pub(in crate::core::files) shards: Vec<Shard>,
    pub(in crate::core::files) tensors: BTreeMap<String, TensorEntry>,
    pub(in crate::core::files) config: Option<Config>,
    pub(in crate::core::files) warnings: Vec<String>,
}

impl Checkpoint {
    pub(in crate::core::files) fn read(path: &Path) -> Result<Self> {
        let located = locate(path)?;
        let mut shards: Vec<Shard> = Vec::with_capacity(located.files.len());
        let mut tensors: BTreeMap<String, TensorEntry> = BTreeMap::new();
        let mut warnings = Vec::new();
        for (index, file) in located.files.iter().enumerate() {
            let (shard, entries) = read_shard(file, index)?;
            for entry in entries {
                let listed_elsewhere = located.index.as_ref().is_some_and(|(_, map)| {
                    map.get(&entry.name)
                        .is_some_and(|listed| *listed != file_name(file))
                });
                if listed_elsewhere {
                    warnings.push(format!(
                        "{} also holds {}, which the index places in another shard; using the index's",
                        file.display(),
                        entry.name
                    ));
                    continue;
                }
                match tensors.entry(entry.name.clone()) {
                    Entry::Vacant(vacant) => {
                        vacant.insert(entry);
                    }
                    Entry::Occupied(occupied) => warnings.push(format!(
                        "{} is in both {} and {}; using the first",
                        entry.name,
                        shards[occupied.get().shard].path.display(),
                        file.display()
                    )),
                }
            }
            shards.push(shard);
        }
        if let Some((index, weight_map)) = &located.index {
            for (tensor, shard) in weight_map {
                if !tensors.contains_key(tensor) {
                    bail!(
                        "{}: says {tensor} is in {shard}, but that file does not hold it",
                        index.display()
                    );
                }
            }
        }
        let config = match &located.folder {
            Some(folder) if folder.join("config.json").is_file() => {
                Some(Config::read(&folder.join("config.json"))?)
            }
            _ => None,
        };
        Ok(Self {
            folder: located.folder,
            note: located.note,
            shards,
            tensors,
            config,
            warnings,
        })
    }

    /// The folder's `tokenizer.json`, when there is one.
    pub(in crate::core::files) fn tokenizer_json(&self) -> Option<PathBuf> {
        self.folder
            .as_ref()
            .map(|folder| folder.join("tokenizer.json"))
            // Anything there by that name is the tokenizer: a FIFO or a folder is refused when
            // it is read, as `--tokenizer` refuses it, never passed over as if absent.
            .filter(|path| path.symlink_metadata().is_ok())
    }

    pub(in crate::core::files) fn file_of(&self, entry: &TensorEntry) -> &Path {
        &self.shards[entry.shard].path
    }

    /// What to call the checkpoint in a message: its one file, or its folder.
    pub(in crate::core::files) fn display_name(&self) -> String {
        match (&self.folder, self.shards.as_slice()) {
            (_, [only]) => only.path.display().to_string(),
            (Some(folder), _) => folder.display().to_string(),
            (None, _) => "the checkpoint".to_owned(),
        }
    }

    /// A tensor that must exist because it was asked for by name.
    pub(in crate::core::files) fn require(&self, name: &str) -> Result<&TensorEntry> {
        self.tensors.get(name).ok_or_else(|| {
            anyhow!(
                "{}: no tensor named {name}; {}",
                self.display_name(),
                self.some_names()
            )
        })
    }

    /// A few of the tensor names, embedding-looking ones first.
    pub(in crate::core::files) fn some_names(&self) -> String {
        const SHOWN: usize = 8;
        if self.tensors.is_empty() {
            return "the file holds no tensors".to_owned();
        }
        let looks_like_embedding =
            |name: &str| ["emb", "wte", "wpe"].iter().any(|hint| name.contains(hint));
        let mut names: Vec<&str> = self
            .tensors
            .keys()
            .map(String::as_str)
            .filter(|n| looks_like_embedding(n))
            .collect();
        names.extend(
            self.tensors
                .keys()
                .map(String::as_str)
                .filter(|n| !looks_like_embedding(n)),
        );
        let total = names.len();
        names.truncate(SHOWN);
        let more = if total > SHOWN {
            format!(", … ({total} in all)")
        } else {
            String::new()
        };
        format!("it holds {}{more}", names.join(", "))
    }
}

/// The table's dtype, if it is one embedlens can read.
pub(in crate::core::files) fn float_dtype(
    checkpoint: &Checkpoint,
    entry: &TensorEntry,
) -> Result<Dtype> {
    match entry.dtype {
        safetensors::Dtype::F32 => Ok(Dtype::F32),
        safetensors::Dtype::F16 => Ok(Dtype::F16),
        safetensors::Dtype::BF16 => Ok(Dtype::BF16),
        other => bail!(
            "{}: tensor {} is {other}; embedding tables must be f32, f16 or bf16",
            checkpoint.file_of(entry).display(),
            entry.name
        ),
    }
}

/// A two-dimensional float tensor, read in place.
pub(in crate::core::files) fn mapped_table(checkpoint: &Checkpoint, name: &str) -> Result<Table> {
    let entry = checkpoint.require(name)?;
    let file = checkpoint.file_of(entry);
    let dtype = float_dtype(checkpoint, entry)?;
    let &[rows, cols] = entry.shape.as_slice() else {
        bail!(
            "{}: tensor {name} has shape [{}]; an embedding table must be two-dimensional \
             (rows × width)",
            file.display(),
            comma_separated(&entry.shape)
        );
    };
    if rows == 0 || cols == 0 {
        bail!(
            "{}: tensor {name} is {rows}×{cols}; an embedding table needs at least one row and \
             one column",
            file.display()
        );
    }
    let bytes = Arc::clone(&checkpoint.shards[entry.shard].bytes);
    Table::mapped(bytes, entry.data_start, dtype, rows, cols)
        .map_err(|error| anyhow!("{}: tensor {name}: {error}", file.display()))
}

/// A shape as a message writes it between brackets: `50257, 768`.
fn comma_separated(shape: &[usize]) -> String {
    shape
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A one-dimensional float tensor of a given width, read into memory.
pub(in crate::core::files) fn mapped_vector(
    checkpoint: &Checkpoint,
    name: &str,
    width: usize,
) -> Result<Array1<f32>> {
    let entry = checkpoint.require(name)?;
    let file = checkpoint.file_of(entry);
    let dtype = float_dtype(checkpoint, entry)?;
    if entry.shape != [width] {
        bail!(
            "{}: tensor {name} has shape [{}]; it should hold one number for each of the {width} \
             dimensions",
            file.display(),
            comma_separated(&entry.shape)
        );
    }
    let bytes = Arc::clone(&checkpoint.shards[entry.shard].bytes);
    let table = Table::mapped(bytes, entry.data_start, dtype, 1, width)
        .map_err(|error| anyhow!("{}: tensor {name}: {error}", file.display()))?;
    table
        .row(0)
        .ok_or_else(|| anyhow!("{}: tensor {name} could not be read", file.display()))
}
