//! Opening a real checkpoint: safetensors files, memory-mapped, read by the names real models
//! give their embedding tables.
//!
//! Only the header of each file is parsed at open; the tables are mapped in place and a row is
//! read when it is looked at, so opening costs the same for a 500 kB toy and a 30 GB model.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Result, anyhow, bail};
use memmap2::Mmap;
use ndarray::Array1;
use safetensors::tensor::{Metadata, TensorInfo};
use safetensors::{SafeTensorError, SafeTensors};
use serde_json::{Map, Value};

use super::block::{EmbeddingBlock, LayerNorm, ModelFamily};
use super::table::{Bytes, Dtype, Table};
use super::text_tokenizer::TextTokenizer;
use super::weights::{EmbeddingModel, Provenance};

/// BERT's `LayerNorm` eps when `config.json` does not give `layer_norm_eps`.
pub const DEFAULT_LAYER_NORM_EPS: f32 = 1e-12;

/// A safetensors file starts with the header's length as a little-endian u64.
const LENGTH_BYTES: usize = 8;

/// Token-table names real checkpoints use, with the family each belongs to.
const KNOWN_TOKEN_NAMES: [(&str, ModelFamily); 6] = [
    ("wte.weight", ModelFamily::Gpt2),
    ("transformer.wte.weight", ModelFamily::Gpt2),
    ("embeddings.word_embeddings.weight", ModelFamily::Bert),
    ("bert.embeddings.word_embeddings.weight", ModelFamily::Bert),
    ("model.embed_tokens.weight", ModelFamily::Rotary),
    ("embed_tokens.weight", ModelFamily::Rotary),
];

/// `model_type`s whose `embed_tokens` table is not followed by RoPE (learned or relative
/// positions elsewhere).
const NOT_ROTARY_MODEL_TYPES: [&str; 12] = [
    "t5",
    "mt5",
    "umt5",
    "longt5",
    "bart",
    "mbart",
    "opt",
    "pegasus",
    "marian",
    "whisper",
    "m2m_100",
    "blenderbot",
];

/// `model_type`s whose position ids start at `pad_token_id + 1` rather than 0.
const ROBERTA_MODEL_TYPES: [&str; 6] = [
    "roberta",
    "xlm-roberta",
    "xlm-roberta-xl",
    "camembert",
    "longformer",
    "data2vec-text",
];

/// Choices that override what the folder would give.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpenOptions {
    /// A `tokenizer.json` to use instead of the folder's own.
    pub tokenizer: Option<PathBuf>,
    /// The token table's tensor name, instead of the detected one.
    pub token_tensor: Option<String>,
    /// The learned position table's tensor name, instead of the detected one.
    pub position_tensor: Option<String>,
}

/// Opens a checkpoint: a folder (`model.safetensors` or shards named by
/// `model.safetensors.index.json`, with `tokenizer.json` and `config.json` when present), a
/// single `.safetensors` file, or a `*.safetensors.index.json`.
///
/// The files are memory-mapped and only their headers are parsed, so opening does not depend
/// on their size. The embedding tables are found by the names GPT-2, BERT and Llama-style
/// checkpoints use; [`EmbeddingModel::detection`] says what was found and why.
///
/// # Errors
/// When a file is missing, truncated or corrupt, a table is not a two-dimensional f32, f16 or
/// bf16 tensor, the tables disagree in width, the tokenizer's ids outrun the table, or
/// `config.json` is malformed. Every message names the file.
pub fn open_model(path: &Path, options: &OpenOptions) -> Result<EmbeddingModel> {
    let checkpoint = Checkpoint::read(path)?;
    let detected = detect(&checkpoint, options)?;
    let tables = read_tables(&checkpoint, &detected)?;
    let tokenizer = load_tokenizer(&checkpoint, options, &tables.token, &detected.token)?;

    let mut detection = vec![checkpoint.note.clone()];
    detection.extend(detected.sentences);
    detection.extend(tables.sentences);
    detection.push(tokenizer.sentence);
    let mut warnings = checkpoint.warnings.clone();
    warnings.extend(detected.warnings);
    warnings.extend(tokenizer.warning);

    let provenance = Provenance {
        family: detected.family,
        block: tables.block,
        detection,
        warnings,
        source: Some(path.to_owned()),
        position_offset: detected.position_offset,
    };
    Ok(EmbeddingModel::new(
        label_of(path),
        tokenizer.tokenizer,
        tables.token,
        tables.position,
    )
    .with_provenance(provenance))
}

/// Everything a checkpoint holds, from its headers alone.
#[derive(Clone, Debug, PartialEq)]
pub struct Inspection {
    /// The file or folder inspected.
    pub source: PathBuf,
    /// The safetensors files read, in order.
    pub files: Vec<PathBuf>,
    /// Every tensor, sorted by name.
    pub tensors: Vec<TensorSummary>,
    /// What opening the checkpoint would find, and why.
    pub detection: Vec<String>,
    /// Anything odd noticed on the way.
    pub warnings: Vec<String>,
}

/// One tensor as a safetensors header describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorSummary {
    /// Its name, such as `transformer.wte.weight`.
    pub name: String,
    /// Its dtype as the file names it (`F32`, `BF16`, `I64`, ...).
    pub dtype: String,
    /// Its shape, outermost dimension first.
    pub shape: Vec<usize>,
    /// The file (shard) that holds it.
    pub file: PathBuf,
}

/// Lists every tensor of a checkpoint (name, dtype, shape, file) and what opening it would find.
///
/// A checkpoint without a usable embedding table still lists; the detection says why not.
///
/// # Errors
/// When a file is missing, truncated or corrupt, or `config.json` is malformed.
pub fn inspect(path: &Path) -> Result<Inspection> {
    let checkpoint = Checkpoint::read(path)?;
    let mut detection = vec![checkpoint.note.clone()];
    let mut warnings = checkpoint.warnings.clone();
    match detect(&checkpoint, &OpenOptions::default())
        .and_then(|detected| Ok((read_tables(&checkpoint, &detected)?, detected)))
    {
        Ok((tables, detected)) => {
            detection.extend(detected.sentences);
            detection.extend(tables.sentences);
            warnings.extend(detected.warnings);
        }
        Err(error) => detection.push(format!("no embedding table read: {error:#}")),
    }
    if let Some(tokenizer) = checkpoint.tokenizer_json() {
        detection.push(format!(
            "tokenizer: {} (read when the model is opened)",
            tokenizer.display()
        ));
    }
    let tensors = checkpoint
        .tensors
        .values()
        .map(|entry| TensorSummary {
            name: entry.name.clone(),
            dtype: entry.dtype.to_string(),
            shape: entry.shape.clone(),
            file: checkpoint.shards[entry.shard].path.clone(),
        })
        .collect();
    Ok(Inspection {
        source: path.to_owned(),
        files: checkpoint.shards.iter().map(|s| s.path.clone()).collect(),
        tensors,
        detection,
        warnings,
    })
}

impl fmt::Display for Inspection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let files = match self.files.len() {
            1 => "1 file".to_owned(),
            n => format!("{n} files"),
        };
        writeln!(
            f,
            "{}: {} tensors in {files}",
            self.source.display(),
            self.tensors.len()
        )?;
        let rows: Vec<[String; 4]> = self
            .tensors
            .iter()
            .map(|t| {
                [
                    t.name.clone(),
                    t.dtype.clone(),
                    shape_text(&t.shape),
                    file_name(&t.file),
                ]
            })
            .collect();
        let header = ["name", "dtype", "shape", "file"].map(str::to_owned);
        let mut widths = header.clone().map(|h| h.chars().count());
        for row in &rows {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.chars().count());
            }
        }
        writeln!(f)?;
        for row in std::iter::once(&header).chain(&rows) {
            writeln!(
                f,
                "{:<w0$}  {:<w1$}  {:>w2$}  {}",
                row[0],
                row[1],
                row[2],
                row[3],
                w0 = widths[0],
                w1 = widths[1],
                w2 = widths[2],
            )?;
        }
        writeln!(f, "\ndetected:")?;
        for sentence in &self.detection {
            writeln!(f, "  {sentence}")?;
        }
        if !self.warnings.is_empty() {
            writeln!(f, "\nwarnings:")?;
            for warning in &self.warnings {
                writeln!(f, "  {warning}")?;
            }
        }
        Ok(())
    }
}

/// `50257×768`, `768`, or `scalar`.
fn shape_text(shape: &[usize]) -> String {
    if shape.is_empty() {
        return "scalar".to_owned();
    }
    shape
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("×")
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// A title for the model: the folder's name, or the file's.
fn label_of(path: &Path) -> String {
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

/// Maps a whole file into memory, read-only.
#[expect(
    unsafe_code,
    reason = "memory-mapping is unsafe in Rust's terms, and the only way to read rows in place"
)]
fn map_read_only(file: &File) -> std::io::Result<Mmap> {
    // SAFETY: the file was opened read-only and the map is only ever read, through `&[u8]`.
    // Rust cannot rule out another process changing the file while it is mapped: the rows we
    // show would change under us, and if the file is truncated, reading a row past its new end
    // faults (SIGBUS) and the program dies. Checkpoints are not rewritten in place in normal
    // use (the safetensors crate writes a new file and renames it), so we accept that risk.
    unsafe { Mmap::map(file) }
}

/// One safetensors file, mapped.
struct Shard {
    path: PathBuf,
    bytes: Arc<dyn Bytes>,
}

/// One tensor's header entry.
#[derive(Clone, Debug)]
struct TensorEntry {
    name: String,
    dtype: safetensors::Dtype,
    shape: Vec<usize>,
    /// Index into the checkpoint's shards.
    shard: usize,
    /// Where its numbers start in the shard's bytes.
    data_start: usize,
}

/// The files a path stands for.
struct Located {
    folder: Option<PathBuf>,
    files: Vec<PathBuf>,
    index: Option<(PathBuf, BTreeMap<String, String>)>,
    note: String,
}

const MAPPED: &str = "memory-mapped, so only the rows looked at are ever read";

fn locate(path: &Path) -> Result<Located> {
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
            bail!(
                "{}: no safetensors file in this folder (looked for model.safetensors, \
                 model.safetensors.index.json and any *.safetensors)",
                path.display()
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

fn safetensors_files_in(folder: &Path) -> Result<Vec<PathBuf>> {
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
fn locate_shards(index: &Path, folder: &Path) -> Result<Located> {
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

/// Opens and maps one safetensors file and parses its header.
fn read_shard(path: &Path, shard: usize) -> Result<(Shard, Vec<TensorEntry>)> {
    let file =
        File::open(path).map_err(|error| anyhow!("{}: cannot open: {error}", path.display()))?;
    let length = file
        .metadata()
        .map_err(|error| anyhow!("{}: cannot read its size: {error}", path.display()))?
        .len();
    if length < LENGTH_BYTES as u64 {
        bail!(
            "{}: only {length} bytes, too short for a safetensors file, which starts with an \
             8-byte header length",
            path.display()
        );
    }
    let map = map_read_only(&file)
        .map_err(|error| anyhow!("{}: cannot memory-map: {error}", path.display()))?;
    let (header_length, infos) = read_header(path, &map)?;
    let data_offset = LENGTH_BYTES + header_length;
    let entries = infos
        .into_iter()
        .map(|(name, info)| TensorEntry {
            name,
            dtype: info.dtype,
            shape: info.shape,
            shard,
            data_start: data_offset + info.data_offsets.0,
        })
        .collect();
    let shard = Shard {
        path: path.to_owned(),
        bytes: Arc::new(map),
    };
    Ok((shard, entries))
}

/// Parses a safetensors header with the safetensors crate, which reads only the header bytes
/// and the buffer's length, never the tensor data.
fn read_header(path: &Path, bytes: &[u8]) -> Result<(usize, Vec<(String, TensorInfo)>)> {
    let Some(length_bytes) = bytes.first_chunk::<LENGTH_BYTES>() else {
        bail!(
            "{}: only {} bytes, too short for a safetensors file, which starts with an 8-byte \
             header length",
            path.display(),
            bytes.len()
        );
    };
    let claimed = u64::from_le_bytes(*length_bytes);
    let available = bytes.len() - LENGTH_BYTES;
    if !usize::try_from(claimed).is_ok_and(|claimed| claimed <= available) {
        bail!(
            "{}: the header length in the first 8 bytes says {claimed} bytes, but only \
             {available} follow; the file is truncated or not a safetensors file",
            path.display()
        );
    }
    let (header_length, metadata) =
        SafeTensors::read_metadata(bytes).map_err(|error| header_error(path, bytes, &error))?;
    let infos = metadata
        .tensors()
        .into_iter()
        .map(|(name, info)| (name, info.clone()))
        .collect();
    Ok((header_length, infos))
}

fn header_error(path: &Path, bytes: &[u8], error: &SafeTensorError) -> anyhow::Error {
    let detail = match error {
        SafeTensorError::MetadataIncompleteBuffer => data_length_mismatch(bytes)
            .unwrap_or_else(|| "the tensor data does not fill the file exactly".to_owned()),
        SafeTensorError::HeaderTooLarge => {
            "the header is longer than the 100 MB safetensors allows".to_owned()
        }
        SafeTensorError::InvalidHeader(_) => "the header is not UTF-8 text".to_owned(),
        SafeTensorError::InvalidHeaderDeserialization(json) => {
            format!("the header is not valid safetensors JSON ({json})")
        }
        SafeTensorError::InvalidOffset(name) => format!(
            "the header's data_offsets for tensor {name} do not start where the tensor before it ends"
        ),
        SafeTensorError::TensorInvalidInfo => {
            "a tensor's data_offsets do not match its shape and dtype".to_owned()
        }
        other => other.to_string(),
    };
    anyhow!(
        "{}: not a readable safetensors file: {detail}",
        path.display()
    )
}

/// Says how the header's data length and the bytes after the header disagree.
fn data_length_mismatch(bytes: &[u8]) -> Option<String> {
    let length_bytes = bytes.first_chunk::<LENGTH_BYTES>()?;
    let header_length = usize::try_from(u64::from_le_bytes(*length_bytes)).ok()?;
    let header = bytes.get(LENGTH_BYTES..LENGTH_BYTES.checked_add(header_length)?)?;
    let claimed = serde_json::from_slice::<Metadata>(header).ok()?.data_len();
    let available = bytes.len() - LENGTH_BYTES - header_length;
    Some(if claimed > available {
        format!(
            "the header says the tensor data takes {claimed} bytes, but only {available} follow \
             the header; the file is truncated or its header is corrupt"
        )
    } else {
        format!(
            "the file has {} bytes after the tensor data that the header does not describe",
            available - claimed
        )
    })
}

/// `config.json`, read as far as embedlens needs it.
struct Config {
    path: PathBuf,
    fields: Map<String, Value>,
}

impl Config {
    fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| anyhow!("{}: cannot read: {error}", path.display()))?;
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
            fields,
        })
    }

    fn text(&self, key: &str) -> Option<&str> {
        self.fields.get(key).and_then(Value::as_str)
    }

    fn number(&self, key: &str) -> Result<Option<f64>> {
        match self.fields.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => match value.as_f64() {
                Some(number) => Ok(Some(number)),
                None => bail!("{}: {key} is {value}, not a number", self.path.display()),
            },
        }
    }

    fn model_type(&self) -> Option<&str> {
        self.text("model_type")
    }
}

/// Every tensor of a checkpoint's files, with its config.
struct Checkpoint {
    folder: Option<PathBuf>,
    note: String,
    shards: Vec<Shard>,
    tensors: BTreeMap<String, TensorEntry>,
    config: Option<Config>,
    warnings: Vec<String>,
}

impl Checkpoint {
    fn read(path: &Path) -> Result<Self> {
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
    fn tokenizer_json(&self) -> Option<PathBuf> {
        self.folder
            .as_ref()
            .map(|folder| folder.join("tokenizer.json"))
            .filter(|path| path.is_file())
    }

    fn file_of(&self, entry: &TensorEntry) -> &Path {
        &self.shards[entry.shard].path
    }

    /// What to call the checkpoint in a message: its one file, or its folder.
    fn display_name(&self) -> String {
        match (&self.folder, self.shards.as_slice()) {
            (_, [only]) => only.path.display().to_string(),
            (Some(folder), _) => folder.display().to_string(),
            (None, _) => "the checkpoint".to_owned(),
        }
    }

    /// A tensor that must exist because it was asked for by name.
    fn require(&self, name: &str) -> Result<&TensorEntry> {
        self.tensors.get(name).ok_or_else(|| {
            anyhow!(
                "{}: no tensor named {name}; {}",
                self.display_name(),
                self.some_names()
            )
        })
    }

    /// A few of the tensor names, embedding-looking ones first.
    fn some_names(&self) -> String {
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

/// A token-table name that matched a known layout.
struct NameMatch {
    family: ModelFamily,
    /// Everything before the family's own part of the name, dot included (`transformer.`).
    prefix: String,
    /// How it matched, for the detection sentence.
    reason: String,
}

fn family_style(family: ModelFamily) -> &'static str {
    match family {
        ModelFamily::Gpt2 => "GPT-2",
        ModelFamily::Bert => "BERT-style",
        ModelFamily::Rotary => "Llama-style",
        ModelFamily::Unknown | ModelFamily::Generated => "unknown",
    }
}

/// The part of a token-table name the family's other tables share a prefix with.
fn family_stem(family: ModelFamily) -> &'static str {
    match family {
        ModelFamily::Gpt2 => "wte.weight",
        ModelFamily::Bert => "embeddings.word_embeddings.weight",
        ModelFamily::Rotary => "embed_tokens.weight",
        ModelFamily::Unknown | ModelFamily::Generated => "",
    }
}

/// Matches a name against the known token-table names: exactly, or after a prefix.
fn classify(name: &str) -> Option<NameMatch> {
    let exact = KNOWN_TOKEN_NAMES.iter().find(|(known, _)| *known == name);
    let suffix = || {
        KNOWN_TOKEN_NAMES
            .iter()
            .find(|(known, _)| name.strip_suffix(known).is_some_and(|p| p.ends_with('.')))
    };
    let &(known, family) = exact.or_else(suffix)?;
    let prefix = name.strip_suffix(family_stem(family))?.to_owned();
    let style = family_style(family);
    let reason = if exact.is_some() {
        format!("{style} name")
    } else {
        let outer = name.strip_suffix(known).unwrap_or_default();
        format!("{style} name {known} under the prefix {outer}")
    };
    Some(NameMatch {
        family,
        prefix,
        reason,
    })
}

/// The token table by the matching rule: exact known names first, then suffix matches.
fn find_token_table(checkpoint: &Checkpoint) -> Option<(String, Vec<String>)> {
    for (known, _) in KNOWN_TOKEN_NAMES {
        if checkpoint.tensors.contains_key(known) {
            return Some((known.to_owned(), Vec::new()));
        }
    }
    for (known, _) in KNOWN_TOKEN_NAMES {
        let dotted = format!(".{known}");
        let mut matches = checkpoint.tensors.keys().filter(|n| n.ends_with(&dotted));
        if let Some(first) = matches.next() {
            let others: Vec<&str> = matches.map(String::as_str).collect();
            let warnings = if others.is_empty() {
                Vec::new()
            } else {
                vec![format!(
                    "{first} was taken as the token table; {} could also be one",
                    others.join(", ")
                )]
            };
            return Some((first.clone(), warnings));
        }
    }
    None
}

/// The BERT tables beside the token table.
struct BertNames {
    token_type: Option<String>,
    norm: Option<(String, String)>,
}

/// Which tensors to read, and why.
struct Detected {
    family: ModelFamily,
    token: String,
    position: Option<String>,
    bert: Option<BertNames>,
    position_offset: usize,
    layer_norm_eps: (f32, String),
    sentences: Vec<String>,
    warnings: Vec<String>,
}

fn describe(entry: &TensorEntry) -> String {
    format!(
        "{} {}",
        shape_text(&entry.shape),
        entry.dtype.to_string().to_lowercase()
    )
}

fn detect(checkpoint: &Checkpoint, options: &OpenOptions) -> Result<Detected> {
    let mut warnings = Vec::new();
    let (token, chosen) = if let Some(name) = &options.token_tensor {
        (checkpoint.require(name)?.name.clone(), true)
    } else {
        let Some((name, found_warnings)) = find_token_table(checkpoint) else {
            bail!(
                "{}: found no embedding table (looked for wte.weight, \
                 embeddings.word_embeddings.weight and model.embed_tokens.weight, with or \
                 without a prefix); name the token tensor to use. {}",
                checkpoint.display_name(),
                checkpoint.some_names()
            );
        };
        warnings.extend(found_warnings);
        (name, false)
    };
    let token_entry = checkpoint.require(&token)?;
    let name_match = classify(&token);
    let reason = match (&name_match, chosen) {
        (Some(found), true) => format!("chosen by name; a {}", found.reason),
        (None, true) => "chosen by name".to_owned(),
        (Some(found), false) => found.reason.clone(),
        (None, false) => "found by name".to_owned(),
    };
    let mut detected = Detected {
        family: name_match
            .as_ref()
            .map_or(ModelFamily::Unknown, |m| m.family),
        token: token.clone(),
        position: None,
        bert: None,
        position_offset: 0,
        layer_norm_eps: (DEFAULT_LAYER_NORM_EPS, String::new()),
        sentences: vec![format!(
            "token table: {token} ({reason}), {}",
            describe(token_entry)
        )],
        warnings,
    };
    if let Some(name_match) = &name_match {
        match name_match.family {
            ModelFamily::Gpt2 => detect_gpt2(checkpoint, &name_match.prefix, &mut detected),
            ModelFamily::Bert => detect_bert(checkpoint, &name_match.prefix, &mut detected)?,
            ModelFamily::Rotary => detect_rotary(checkpoint, &name_match.prefix, &mut detected),
            ModelFamily::Unknown | ModelFamily::Generated => {}
        }
    }
    if let Some(name) = &options.position_tensor {
        let entry = checkpoint.require(name)?;
        detected
            .sentences
            .retain(|s| !s.starts_with("no position table"));
        detected.sentences.push(format!(
            "position table: {name} (chosen by name), {}",
            describe(entry)
        ));
        if detected.family == ModelFamily::Rotary {
            detected.warnings.push(format!(
                "{token} is a Llama-style table, which adds no position row; the model embedding \
                 shown adds {name} only because it was chosen"
            ));
        }
        detected.position = Some(name.clone());
    } else if detected.family == ModelFamily::Unknown && detected.position.is_none() {
        detected.sentences.push(format!(
            "no position table: {token} matches no layout embedlens knows, so the model \
             embedding shown is the token row alone"
        ));
    }
    Ok(detected)
}

fn detect_gpt2(checkpoint: &Checkpoint, prefix: &str, detected: &mut Detected) {
    let position = format!("{prefix}wpe.weight");
    match checkpoint.tensors.get(&position) {
        Some(entry) => {
            detected.sentences.push(format!(
                "position table: {position} (GPT-2), {}",
                describe(entry)
            ));
            detected.position = Some(position);
        }
        None => detected.warnings.push(format!(
            "no {position} beside {}: GPT-2 adds a learned position row, but this file has none",
            detected.token
        )),
    }
}

fn detect_bert(checkpoint: &Checkpoint, prefix: &str, detected: &mut Detected) -> Result<()> {
    let embeddings = format!("{prefix}embeddings.");
    let position = format!("{embeddings}position_embeddings.weight");
    match checkpoint.tensors.get(&position) {
        Some(entry) => {
            detected.position_offset = roberta_offset(checkpoint, prefix, detected)?;
            let offset = match detected.position_offset {
                0 => String::new(),
                n => format!(
                    "; position p reads row p + {n}, as RoBERTa counts from pad_token_id + 1"
                ),
            };
            detected.sentences.push(format!(
                "position table: {position} (BERT), {}{offset}",
                describe(entry)
            ));
            detected.position = Some(position);
        }
        None => detected.warnings.push(format!(
            "no {position} beside {}: a BERT-style model adds a learned position row, but this \
             file has none",
            detected.token
        )),
    }
    let token_type = format!("{embeddings}token_type_embeddings.weight");
    let token_type = checkpoint
        .tensors
        .contains_key(&token_type)
        .then_some(token_type);
    if token_type.is_none() {
        detected.sentences.push(
            "no token_type_embeddings (as in DistilBERT): nothing is added for the sentence"
                .to_owned(),
        );
    }
    let norm = [("weight", "bias"), ("gamma", "beta")]
        .into_iter()
        .map(|(w, b)| {
            (
                format!("{embeddings}LayerNorm.{w}"),
                format!("{embeddings}LayerNorm.{b}"),
            )
        })
        .find(|(w, b)| checkpoint.tensors.contains_key(w) && checkpoint.tensors.contains_key(b));
    if norm.is_none() {
        detected.warnings.push(format!(
            "no {embeddings}LayerNorm.weight and .bias: the model embedding shown is the sum \
             without BERT's LayerNorm"
        ));
    }
    detected.layer_norm_eps = layer_norm_eps(checkpoint)?;
    detected.bert = Some(BertNames { token_type, norm });
    Ok(())
}

/// How far `RoBERTa`-style models shift position ids (`pad_token_id + 1`), else 0.
fn roberta_offset(checkpoint: &Checkpoint, prefix: &str, detected: &mut Detected) -> Result<usize> {
    match &checkpoint.config {
        Some(config) => {
            let roberta = config
                .model_type()
                .is_some_and(|t| ROBERTA_MODEL_TYPES.contains(&t));
            if !roberta {
                return Ok(0);
            }
            let pad = config.number("pad_token_id")?.unwrap_or(1.0);
            if pad.fract() != 0.0 || !(0.0..=1e9).contains(&pad) {
                bail!(
                    "{}: pad_token_id {pad} is not a small whole number",
                    config.path.display()
                );
            }
            #[expect(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "checked above to be a small whole number"
            )]
            let pad = pad as usize;
            Ok(pad + 1)
        }
        None if prefix.starts_with("roberta.") => {
            detected.warnings.push(
                "no config.json: the roberta. prefix suggests RoBERTa, whose positions start at \
                 row 2 (pad_token_id 1 + 1)"
                    .to_owned(),
            );
            Ok(2)
        }
        None => Ok(0),
    }
}

fn layer_norm_eps(checkpoint: &Checkpoint) -> Result<(f32, String)> {
    let Some(config) = &checkpoint.config else {
        return Ok((
            DEFAULT_LAYER_NORM_EPS,
            "BERT's default; there is no config.json".to_owned(),
        ));
    };
    match config.number("layer_norm_eps")? {
        Some(eps) if eps.is_finite() && eps >= 0.0 => {
            #[expect(
                clippy::cast_possible_truncation,
                reason = "PyTorch hands eps to its f32 kernel"
            )]
            let eps = eps as f32;
            Ok((eps, "layer_norm_eps in config.json".to_owned()))
        }
        Some(eps) => bail!(
            "{}: layer_norm_eps {eps} is not a small positive number",
            config.path.display()
        ),
        None => Ok((
            DEFAULT_LAYER_NORM_EPS,
            "BERT's default; config.json gives no layer_norm_eps".to_owned(),
        )),
    }
}

fn detect_rotary(checkpoint: &Checkpoint, prefix: &str, detected: &mut Detected) {
    let token = detected.token.clone();
    let learned = format!("{prefix}embed_positions.weight");
    if checkpoint.tensors.contains_key(&learned) {
        detected.family = ModelFamily::Unknown;
        detected.sentences.push(format!(
            "no position table used: {learned} beside {token} is a learned table of a layout \
             embedlens does not apply (OPT and BART start it at row 2); name it as the position \
             tensor to add it"
        ));
        return;
    }
    let config = checkpoint.config.as_ref();
    let model_type = config.and_then(Config::model_type);
    if let Some(kind) = model_type.filter(|t| NOT_ROTARY_MODEL_TYPES.contains(t)) {
        detected.family = ModelFamily::Unknown;
        detected.sentences.push(format!(
            "no position table: config.json says model_type {kind}, which puts position \
             information inside its layers, not in a table added here"
        ));
        return;
    }
    let confirmed = config
        .and_then(|c| c.fields.get("rope_theta"))
        .map(|theta| format!(" (config.json: rope_theta {theta})"))
        .unwrap_or_default();
    detected.sentences.push(format!(
        "no position table: {token} is a Llama-style name; these models rotate queries and keys \
         inside attention (RoPE) instead{confirmed}"
    ));
    if let Some(kind) = model_type.filter(|t| t.starts_with("gemma")) {
        let width = token_width(checkpoint, &token);
        #[expect(clippy::cast_precision_loss, reason = "widths are far below 2^52")]
        let scale = (width as f64).sqrt();
        detected.warnings.push(format!(
            "model_type {kind}: Gemma multiplies each token vector by √{width} ≈ {scale:.4} before \
             the first layer; the model embedding shown leaves that out"
        ));
    }
}

fn token_width(checkpoint: &Checkpoint, token: &str) -> usize {
    checkpoint
        .tensors
        .get(token)
        .and_then(|e| e.shape.last().copied())
        .unwrap_or(0)
}

/// The tables read from the chosen tensors, and what the block does with them.
struct Tables {
    token: Table,
    position: Option<Table>,
    block: EmbeddingBlock,
    sentences: Vec<String>,
}

fn read_tables(checkpoint: &Checkpoint, detected: &Detected) -> Result<Tables> {
    let token = mapped_table(checkpoint, &detected.token)?;
    let position = match &detected.position {
        Some(name) => {
            let table = mapped_table(checkpoint, name)?;
            if table.cols() != token.cols() {
                bail!(
                    "{}: the token table {} is {} wide but the position table {name} is {} wide; \
                     they must match to be added",
                    checkpoint.file_of(checkpoint.require(name)?).display(),
                    detected.token,
                    token.cols(),
                    table.cols()
                );
            }
            Some(table)
        }
        None => None,
    };
    let mut sentences = Vec::new();
    let block = match (&detected.bert, detected.family) {
        (
            Some(BertNames {
                token_type,
                norm: Some((weight, bias)),
            }),
            _,
        ) => {
            let width = token.cols();
            let token_type_row = match token_type {
                Some(name) => {
                    let table = mapped_table(checkpoint, name)?;
                    if table.cols() != width {
                        bail!(
                            "{}: the token-type table {name} is {} wide, not {width} like the token table",
                            checkpoint.file_of(checkpoint.require(name)?).display(),
                            table.cols()
                        );
                    }
                    sentences.push(format!(
                        "token type: row 0 of {name} ({}×{width}), added to every token as if \
                         all were in the first sentence",
                        table.rows()
                    ));
                    table.row(0).unwrap_or_else(|| Array1::zeros(width))
                }
                None => Array1::zeros(width),
            };
            let (eps, eps_source) = &detected.layer_norm_eps;
            let norm = LayerNorm::new(
                mapped_vector(checkpoint, weight, width)?,
                mapped_vector(checkpoint, bias, width)?,
                *eps,
            )?;
            sentences.push(format!(
                "LayerNorm: {weight} and {bias}, eps {eps:e} ({eps_source})"
            ));
            EmbeddingBlock::Bert {
                token_type_row,
                norm,
            }
        }
        (_, ModelFamily::Rotary | ModelFamily::Unknown) if position.is_none() => {
            EmbeddingBlock::TokenOnly
        }
        _ => EmbeddingBlock::Sum,
    };
    sentences.push(format!("the embedding block outputs {}", block.formula()));
    Ok(Tables {
        token,
        position,
        block,
        sentences,
    })
}

/// The table's dtype, if it is one embedlens can read.
fn float_dtype(checkpoint: &Checkpoint, entry: &TensorEntry) -> Result<Dtype> {
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
fn mapped_table(checkpoint: &Checkpoint, name: &str) -> Result<Table> {
    let entry = checkpoint.require(name)?;
    let file = checkpoint.file_of(entry);
    let dtype = float_dtype(checkpoint, entry)?;
    let &[rows, cols] = entry.shape.as_slice() else {
        bail!(
            "{}: tensor {name} has shape [{}]; an embedding table must be two-dimensional \
             (rows × width)",
            file.display(),
            entry
                .shape
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
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

/// A one-dimensional float tensor of a given width, read into memory.
fn mapped_vector(checkpoint: &Checkpoint, name: &str, width: usize) -> Result<Array1<f32>> {
    let entry = checkpoint.require(name)?;
    let file = checkpoint.file_of(entry);
    let dtype = float_dtype(checkpoint, entry)?;
    if entry.shape != [width] {
        bail!(
            "{}: tensor {name} has shape [{}]; it should hold one number for each of the {width} \
             dimensions",
            file.display(),
            entry
                .shape
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let bytes = Arc::clone(&checkpoint.shards[entry.shard].bytes);
    let table = Table::mapped(bytes, entry.data_start, dtype, 1, width)
        .map_err(|error| anyhow!("{}: tensor {name}: {error}", file.display()))?;
    table
        .row(0)
        .ok_or_else(|| anyhow!("{}: tensor {name} could not be read", file.display()))
}

/// The tokenizer chosen for the model, and what to say about it.
struct LoadedTokenizer {
    tokenizer: Option<TextTokenizer>,
    sentence: String,
    warning: Option<String>,
}

fn load_tokenizer(
    checkpoint: &Checkpoint,
    options: &OpenOptions,
    token: &Table,
    token_name: &str,
) -> Result<LoadedTokenizer> {
    let Some(path) = options
        .tokenizer
        .clone()
        .or_else(|| checkpoint.tokenizer_json())
    else {
        return Ok(LoadedTokenizer {
            tokenizer: None,
            sentence: "no tokenizer: rows are addressed by id".to_owned(),
            warning: None,
        });
    };
    let tokenizer = TextTokenizer::from_file(&path)?;
    let warning = check_tokenizer_fits(&tokenizer, &path, token.rows(), token_name)?;
    Ok(LoadedTokenizer {
        sentence: format!(
            "tokenizer: {} ({} ids)",
            path.display(),
            tokenizer.vocab_size()
        ),
        tokenizer: Some(tokenizer),
        warning,
    })
}

/// An error when the tokenizer hands out ids the table has no row for; a warning when the
/// table has rows the tokenizer never reaches.
fn check_tokenizer_fits(
    tokenizer: &TextTokenizer,
    path: &Path,
    rows: usize,
    token_name: &str,
) -> Result<Option<String>> {
    let highest_id = tokenizer.max_id();
    match highest_id {
        Some(highest) if highest >= rows => bail!(
            "{}: the tokenizer hands out ids up to {highest}, but the token table {token_name} \
             has only {rows} rows (ids 0 to {})",
            path.display(),
            rows.saturating_sub(1)
        ),
        Some(highest) if highest + 1 < rows => Ok(Some(format!(
            "{token_name} has {rows} rows but the tokenizer's highest id is {highest}; rows {} to \
             {} are never produced by it (padding, often added to round the table up)",
            highest + 1,
            rows - 1
        ))),
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::positional::PositionScheme;
    use crate::core::tokenizer::{Token, Vocabulary};
    use crate::core::weights::TokenLookup;
    use safetensors::tensor::TensorView;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A fresh folder under the system temp dir, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> Self {
            static COUNTER: AtomicUsize = AtomicUsize::new(0);
            let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = std::env::temp_dir().join(format!(
                "embedlens-model-file-{name}-{}-{unique}",
                std::process::id()
            ));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).unwrap();
            Self(path)
        }

        fn join(&self, name: &str) -> PathBuf {
            self.0.join(name)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A tensor to write: name, dtype, shape and values (converted to the dtype).
    struct Spec {
        name: &'static str,
        dtype: safetensors::Dtype,
        shape: Vec<usize>,
        bytes: Vec<u8>,
    }

    fn tensor(
        name: &'static str,
        dtype: safetensors::Dtype,
        shape: &[usize],
        values: &[f32],
    ) -> Spec {
        let bytes = values
            .iter()
            .flat_map(|&v| match dtype {
                safetensors::Dtype::F32 => v.to_le_bytes().to_vec(),
                safetensors::Dtype::F16 => half::f16::from_f32(v).to_le_bytes().to_vec(),
                safetensors::Dtype::BF16 => half::bf16::from_f32(v).to_le_bytes().to_vec(),
                other => panic!("test helper does not write {other}"),
            })
            .collect();
        Spec {
            name,
            dtype,
            shape: shape.to_vec(),
            bytes,
        }
    }

    fn f32_tensor(name: &'static str, shape: &[usize], values: &[f32]) -> Spec {
        tensor(name, safetensors::Dtype::F32, shape, values)
    }

    /// `rows × cols` values `start, start + 1, ...` divided by 8 (exact in every dtype).
    fn counting(name: &'static str, rows: usize, cols: usize, start: f32) -> Spec {
        #[expect(clippy::cast_precision_loss, reason = "tiny test values")]
        let values: Vec<f32> = (0..rows * cols).map(|i| (start + i as f32) / 8.0).collect();
        f32_tensor(name, &[rows, cols], &values)
    }

    fn serialize(specs: &[Spec]) -> Vec<u8> {
        let views: Vec<(&str, TensorView<'_>)> = specs
            .iter()
            .map(|s| {
                (
                    s.name,
                    TensorView::new(s.dtype, s.shape.clone(), &s.bytes).unwrap(),
                )
            })
            .collect();
        safetensors::serialize(views, None).unwrap()
    }

    fn write(path: &Path, specs: &[Spec]) {
        let views: Vec<(&str, TensorView<'_>)> = specs
            .iter()
            .map(|s| {
                (
                    s.name,
                    TensorView::new(s.dtype, s.shape.clone(), &s.bytes).unwrap(),
                )
            })
            .collect();
        safetensors::serialize_to_file(views, None, path).unwrap();
    }

    /// A safetensors file from a hand-written header and data.
    fn raw_file(header: &str, data: &[u8]) -> Vec<u8> {
        let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
        bytes.extend(header.as_bytes());
        bytes.extend(data);
        bytes
    }

    fn open(path: &Path) -> Result<EmbeddingModel> {
        open_model(path, &OpenOptions::default())
    }

    fn open_error(path: &Path) -> String {
        format!("{:#}", open(path).unwrap_err())
    }

    fn row(model: &EmbeddingModel, id: usize) -> Vec<f32> {
        model.lookup(id).unwrap().to_vec()
    }

    fn lookup_at(model: &EmbeddingModel, id: usize, position: usize) -> TokenLookup {
        let token = Token {
            text: format!("#{id}"),
            span: 0..0,
            position,
            id: Some(id),
            special: false,
        };
        model.embed(&[token], PositionScheme::None).remove(0)
    }

    fn gpt2_specs(token_name: &'static str, position_name: &'static str) -> Vec<Spec> {
        vec![
            counting(token_name, 5, 3, 0.0),
            counting(position_name, 4, 3, 100.0),
        ]
    }

    #[test]
    fn every_float_dtype_reads_exactly() {
        let values = [1.0f32, -2.5, 0.375, 65504.0, -0.000_061_035_156, 3.0];
        for dtype in [
            safetensors::Dtype::F32,
            safetensors::Dtype::F16,
            safetensors::Dtype::BF16,
        ] {
            let dir = TempDir::new("dtype");
            let file = dir.join("weights.safetensors");
            write(&file, &[tensor("wte.weight", dtype, &[2, 3], &values)]);
            let model = open(&file).unwrap();
            let expected: Vec<f32> = values[3..]
                .iter()
                .map(|&v| match dtype {
                    safetensors::Dtype::BF16 => half::bf16::from_f32(v).to_f32(),
                    _ => v,
                })
                .collect();
            assert_eq!(row(&model, 1), expected, "{dtype}");
            assert_eq!(row(&model, 0)[..3], [1.0, -2.5, 0.375], "{dtype}");
            let table_dtype = model.token_table().dtype().unwrap().to_string();
            assert_eq!(table_dtype, dtype.to_string().to_lowercase());
            assert_eq!(model.source(), Some(file.as_path()));
            assert_eq!(model.label(), "weights");
        }
    }

    #[test]
    fn gpt2_names_with_and_without_the_transformer_prefix() {
        for (wte, wpe) in [
            ("wte.weight", "wpe.weight"),
            ("transformer.wte.weight", "transformer.wpe.weight"),
            ("h.transformer.wte.weight", "h.transformer.wpe.weight"),
        ] {
            let dir = TempDir::new("gpt2");
            let mut specs = gpt2_specs(wte, wpe);
            specs.push(f32_tensor("h.0.ln_1.weight", &[3], &[1.0, 1.0, 1.0]));
            write(&dir.join("model.safetensors"), &specs);
            let model = open(&dir.0).unwrap();
            assert_eq!(model.family(), ModelFamily::Gpt2);
            assert_eq!(model.block(), &EmbeddingBlock::Sum);
            assert_eq!(
                (model.rows(), model.dims(), model.context_length()),
                (5, 3, 4)
            );
            let detection = model.detection().join("\n");
            assert!(
                detection.contains(&format!("token table: {wte} (GPT-2 name")),
                "{detection}"
            );
            assert!(detection.contains(&format!("position table: {wpe} (GPT-2), 4×3 f32")));
            assert!(detection.contains("no tokenizer"));
            assert!(model.warnings().is_empty(), "{:?}", model.warnings());
            assert_eq!(model.tokenizer().map(TextTokenizer::name), None);
        }
    }

    #[test]
    fn gpt2_model_embedding_is_token_row_plus_position_row_exactly() {
        let dir = TempDir::new("gpt2-sum");
        write(
            &dir.join("model.safetensors"),
            &[
                f32_tensor("wte.weight", &[2, 2], &[0.1, 0.2, 0.3, 0.7]),
                f32_tensor("wpe.weight", &[2, 2], &[0.01, -0.5, 1e-8, 3.3]),
            ],
        );
        let model = open(&dir.0).unwrap();
        let lookup = lookup_at(&model, 1, 1);
        let expected = vec![0.3f32 + 1e-8, 0.7 + 3.3];
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let got = model.model_embedding(&lookup).unwrap().to_vec();
        assert_eq!(bits(&got), bits(&expected));
        assert_eq!(lookup.model_embedding.unwrap().to_vec(), got);
        // Beyond the two learned positions there is no model embedding.
        assert_eq!(lookup_at(&model, 1, 2).model_embedding, None);
    }

    fn bert_specs() -> Vec<Spec> {
        vec![
            f32_tensor(
                "bert.embeddings.word_embeddings.weight",
                &[3, 4],
                &[0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 4.0, -1.0, 0.5, 0.25, 2.0],
            ),
            f32_tensor(
                "bert.embeddings.position_embeddings.weight",
                &[2, 4],
                &[0.5, 0.5, 0.5, 0.5, 0.0, -1.0, 1.0, 0.0],
            ),
            f32_tensor(
                "bert.embeddings.token_type_embeddings.weight",
                &[2, 4],
                &[0.25, 0.0, -0.25, 1.0, 9.0, 9.0, 9.0, 9.0],
            ),
            f32_tensor(
                "bert.embeddings.LayerNorm.weight",
                &[4],
                &[1.0, 2.0, 0.5, 1.0],
            ),
            f32_tensor(
                "bert.embeddings.LayerNorm.bias",
                &[4],
                &[0.0, 0.1, -0.1, 0.0],
            ),
            f32_tensor("bert.pooler.dense.bias", &[4], &[0.0; 4]),
        ]
    }

    #[test]
    fn bert_reads_token_types_layer_norm_and_config_eps() {
        let dir = TempDir::new("bert");
        write(&dir.join("model.safetensors"), &bert_specs());
        std::fs::write(
            dir.join("config.json"),
            r#"{"model_type": "bert", "layer_norm_eps": 1e-5}"#,
        )
        .unwrap();
        let model = open(&dir.0).unwrap();
        assert_eq!(model.family(), ModelFamily::Bert);
        assert_eq!(model.position_offset(), 0);
        let EmbeddingBlock::Bert {
            token_type_row,
            norm,
        } = model.block()
        else {
            panic!("expected a BERT block, got {:?}", model.block());
        };
        assert_eq!(token_type_row.to_vec(), [0.25, 0.0, -0.25, 1.0]);
        assert_eq!(norm.eps().to_bits(), 1e-5f32.to_bits());
        assert_eq!(norm.weight().to_vec(), [1.0, 2.0, 0.5, 1.0]);
        let detection = model.detection().join("\n");
        assert!(detection.contains("(BERT-style name)"), "{detection}");
        assert!(
            detection.contains("eps 1e-5 (layer_norm_eps in config.json)"),
            "{detection}"
        );
        assert!(detection.contains("LayerNorm(token + token type + position)"));

        // Token 1 at position 1: (token + type) + position = [1.25, 1, 3.75, 5].
        // Hand computation: mean 2.75, biased variance 2.84375, eps 1e-5,
        // normalised = (x - 2.75) / sqrt(2.84376) = [-0.889498, -1.037747, 0.592998, 1.334246];
        // times weight [1, 2, 0.5, 1] plus bias [0, 0.1, -0.1, 0].
        let got = model.model_embedding(&lookup_at(&model, 1, 1)).unwrap();
        let want = [-0.889_497_616, -1.975_494_437, 0.196_499_205, 1.334_246_424];
        for (g, w) in got.iter().zip(want) {
            assert!((f64::from(*g) - w).abs() < 1e-6, "{got} vs {want:?}");
        }
    }

    #[test]
    fn bert_without_config_uses_the_default_eps_and_old_gamma_beta_names() {
        let dir = TempDir::new("bert-gamma");
        let mut specs = bert_specs();
        specs[3].name = "bert.embeddings.LayerNorm.gamma";
        specs[4].name = "bert.embeddings.LayerNorm.beta";
        write(&dir.join("model.safetensors"), &specs);
        let model = open(&dir.0).unwrap();
        let EmbeddingBlock::Bert { norm, .. } = model.block() else {
            panic!("expected a BERT block");
        };
        assert_eq!(norm.eps().to_bits(), DEFAULT_LAYER_NORM_EPS.to_bits());
        assert!(model.detection().join("\n").contains("LayerNorm.gamma"));
    }

    #[test]
    fn roberta_positions_start_after_the_padding_id() {
        let dir = TempDir::new("roberta");
        write(
            &dir.join("model.safetensors"),
            &[
                counting("roberta.embeddings.word_embeddings.weight", 4, 2, 0.0),
                counting("roberta.embeddings.position_embeddings.weight", 5, 2, 50.0),
                f32_tensor("roberta.embeddings.LayerNorm.weight", &[2], &[1.0, 1.0]),
                f32_tensor("roberta.embeddings.LayerNorm.bias", &[2], &[0.0, 0.0]),
            ],
        );
        std::fs::write(
            dir.join("config.json"),
            r#"{"model_type": "roberta", "pad_token_id": 1}"#,
        )
        .unwrap();
        let model = open(&dir.0).unwrap();
        assert_eq!(model.family(), ModelFamily::Bert);
        assert_eq!(model.position_offset(), 2);
        let detection = model.detection().join("\n");
        assert!(
            detection.contains("under the prefix roberta."),
            "{detection}"
        );
        assert!(detection.contains("no token_type_embeddings"));
        // Position 2 reads row 4, the last; position 3 has no row.
        assert!(lookup_at(&model, 0, 2).model_embedding.is_some());
        assert_eq!(lookup_at(&model, 0, 3).model_embedding, None);
    }

    #[test]
    fn llama_names_have_no_position_table() {
        for name in ["model.embed_tokens.weight", "embed_tokens.weight"] {
            let dir = TempDir::new("llama");
            write(
                &dir.join("model.safetensors"),
                &[
                    counting(name, 4, 2, 0.0),
                    counting("lm_head.weight", 4, 2, 0.0),
                ],
            );
            std::fs::write(
                dir.join("config.json"),
                r#"{"model_type": "llama", "rope_theta": 10000.0}"#,
            )
            .unwrap();
            let model = open(&dir.0).unwrap();
            assert_eq!(model.family(), ModelFamily::Rotary);
            assert_eq!(model.block(), &EmbeddingBlock::TokenOnly);
            assert_eq!(model.position_table().map(Table::rows), None);
            let detection = model.detection().join("\n");
            assert!(
                detection.contains(&format!(
                    "no position table: {name} is a Llama-style name; these models rotate \
                     queries and keys inside attention (RoPE) instead"
                )),
                "{detection}"
            );
            assert!(detection.contains("rope_theta 10000.0"), "{detection}");
            let lookup = lookup_at(&model, 3, 7);
            assert_eq!(lookup.model_embedding, lookup.token_vector);
        }
    }

    #[test]
    fn embed_tokens_beside_learned_positions_is_not_called_rotary() {
        let dir = TempDir::new("opt");
        write(
            &dir.join("model.safetensors"),
            &[
                counting("model.decoder.embed_tokens.weight", 4, 2, 0.0),
                counting("model.decoder.embed_positions.weight", 6, 2, 0.0),
            ],
        );
        let model = open(&dir.0).unwrap();
        assert_eq!(model.family(), ModelFamily::Unknown);
        assert!(model.detection().join("\n").contains("OPT and BART"));
    }

    #[test]
    fn sharded_folders_follow_the_index() {
        let dir = TempDir::new("sharded");
        write(
            &dir.join("model-00001-of-00002.safetensors"),
            &[counting("transformer.wte.weight", 5, 3, 0.0)],
        );
        write(
            &dir.join("model-00002-of-00002.safetensors"),
            &[
                counting("transformer.wpe.weight", 4, 3, 100.0),
                counting("transformer.h.0.attn.c_attn.weight", 3, 9, 0.0),
            ],
        );
        let index = r#"{"metadata": {"total_size": 0}, "weight_map": {
            "transformer.wte.weight": "model-00001-of-00002.safetensors",
            "transformer.wpe.weight": "model-00002-of-00002.safetensors",
            "transformer.h.0.attn.c_attn.weight": "model-00002-of-00002.safetensors"}}"#;
        std::fs::write(dir.join("model.safetensors.index.json"), index).unwrap();
        let model = open(&dir.0).unwrap();
        assert_eq!(model.family(), ModelFamily::Gpt2);
        assert_eq!(row(&model, 1), [0.375, 0.5, 0.625]);
        assert_eq!(
            model.position_table().unwrap().row(0).unwrap().to_vec(),
            [12.5, 12.625, 12.75]
        );
        assert!(model.detection()[0].contains("2 shards named by model.safetensors.index.json"));

        let inspection = inspect(&dir.0).unwrap();
        assert_eq!(inspection.files.len(), 2);
        let wte = &inspection.tensors[2];
        assert_eq!(wte.name, "transformer.wte.weight");
        assert_eq!(file_name(&wte.file), "model-00001-of-00002.safetensors");

        // An index that names a tensor its shard lacks is an error naming the index.
        let broken = index.replace(
            "\"transformer.wte.weight\": \"model-00001",
            "\"transformer.wte.weight\": \"model-00002",
        );
        std::fs::write(dir.join("model.safetensors.index.json"), broken).unwrap();
        let error = open_error(&dir.0);
        assert!(
            error.contains(
                "model.safetensors.index.json: says transformer.wte.weight is in model-00002"
            ),
            "{error}"
        );
    }

    #[test]
    fn overrides_choose_the_tables() {
        let dir = TempDir::new("overrides");
        let file = dir.join("custom.safetensors");
        write(
            &file,
            &[
                counting("encoder.tok.weight", 4, 2, 0.0),
                counting("encoder.pos.weight", 3, 2, 10.0),
            ],
        );
        let error = open_error(&file);
        assert!(error.contains("found no embedding table"), "{error}");
        assert!(
            error.contains("encoder.pos.weight, encoder.tok.weight"),
            "{error}"
        );

        let options = OpenOptions {
            token_tensor: Some("encoder.tok.weight".to_owned()),
            ..OpenOptions::default()
        };
        let model = open_model(&file, &options).unwrap();
        assert_eq!(model.family(), ModelFamily::Unknown);
        assert_eq!(model.block(), &EmbeddingBlock::TokenOnly);

        let options = OpenOptions {
            token_tensor: Some("encoder.tok.weight".to_owned()),
            position_tensor: Some("encoder.pos.weight".to_owned()),
            tokenizer: None,
        };
        let model = open_model(&file, &options).unwrap();
        assert_eq!(model.block(), &EmbeddingBlock::Sum);
        assert_eq!(model.context_length(), 3);
        assert!(
            model
                .detection()
                .iter()
                .any(|s| s == "position table: encoder.pos.weight (chosen by name), 3×2 f32")
        );

        let options = OpenOptions {
            position_tensor: Some("encoder.missing.weight".to_owned()),
            ..options
        };
        let error = format!("{:#}", open_model(&file, &options).unwrap_err());
        assert!(
            error.contains("custom.safetensors: no tensor named encoder.missing.weight; it holds"),
            "{error}"
        );
    }

    #[test]
    fn missing_paths_and_empty_folders_are_named() {
        let dir = TempDir::new("missing");
        let error = open_error(&dir.join("nothing-here"));
        assert!(
            error.ends_with("nothing-here: no such file or folder"),
            "{error}"
        );
        let error = open_error(&dir.0);
        assert!(
            error.contains("no safetensors file in this folder"),
            "{error}"
        );
        let error = inspect(&dir.0).unwrap_err().to_string();
        assert!(error.contains("no safetensors file"), "{error}");
    }

    #[test]
    fn truncated_and_corrupt_files_are_named() {
        let dir = TempDir::new("corrupt");
        let valid = serialize(&gpt2_specs("wte.weight", "wpe.weight"));
        let file = dir.join("model.safetensors");
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (valid[..4].to_vec(), "only 4 bytes, too short"),
            (
                valid[..20].to_vec(),
                "the header length in the first 8 bytes says",
            ),
            (
                valid[..valid.len() - 5].to_vec(),
                "the header says the tensor data takes 108 bytes, but only 103 follow",
            ),
            (
                {
                    let mut bytes = valid.clone();
                    bytes[..8].copy_from_slice(&1_000_000u64.to_le_bytes());
                    bytes
                },
                "says 1000000 bytes, but only",
            ),
            (
                raw_file(
                    r#"{"wte.weight":{"dtype":"F32","shape":[2,4],"data_offsets":[0,32]}}"#,
                    &[0; 24],
                ),
                "the header says the tensor data takes 32 bytes, but only 24 follow",
            ),
            (
                raw_file(r#"{"wte.weight": not json"#, &[]),
                "not valid safetensors JSON",
            ),
            (
                raw_file(
                    r#"{"wte.weight":{"dtype":"F32","shape":[2,3],"data_offsets":[0,32]}}"#,
                    &[0; 32],
                ),
                "data_offsets do not match its shape and dtype",
            ),
        ];
        for (bytes, expected) in cases {
            std::fs::write(&file, &bytes).unwrap();
            for error in [
                open_error(&dir.0),
                format!("{:#}", inspect(&dir.0).unwrap_err()),
            ] {
                assert!(error.contains("model.safetensors: "), "{error}");
                assert!(error.contains(expected), "{error}\nwanted: {expected}");
            }
        }
    }

    #[test]
    fn tables_must_be_two_dimensional_floats_of_one_width() {
        let dir = TempDir::new("shapes");
        let file = dir.join("model.safetensors");
        let ids: Vec<u8> = (0..6i64).flat_map(i64::to_le_bytes).collect();
        let cases: Vec<(Vec<Spec>, &str)> = vec![
            (
                vec![Spec {
                    name: "wte.weight",
                    dtype: safetensors::Dtype::I64,
                    shape: vec![2, 3],
                    bytes: ids,
                }],
                "model.safetensors: tensor wte.weight is I64; embedding tables must be f32, f16 or bf16",
            ),
            (
                vec![f32_tensor("wte.weight", &[1, 2, 3], &[0.0; 6])],
                "tensor wte.weight has shape [1, 2, 3]; an embedding table must be two-dimensional",
            ),
            (
                vec![
                    counting("wte.weight", 2, 3, 0.0),
                    counting("wpe.weight", 2, 4, 0.0),
                ],
                "the token table wte.weight is 3 wide but the position table wpe.weight is 4 wide",
            ),
            (
                vec![f32_tensor("wte.weight", &[0, 3], &[])],
                "is 0×3; an embedding table needs at least one row",
            ),
        ];
        for (specs, expected) in cases {
            write(&file, &specs);
            let error = open_error(&file);
            assert!(error.contains(expected), "{error}\nwanted: {expected}");
            // Inspect still lists the tensors and says why they cannot be read.
            let inspection = inspect(&file).unwrap();
            assert!(inspection.detection.join("\n").contains(expected));
        }
    }

    #[test]
    fn malformed_config_is_named() {
        let dir = TempDir::new("config");
        write(&dir.join("model.safetensors"), &bert_specs());
        std::fs::write(dir.join("config.json"), "{ not json").unwrap();
        let error = open_error(&dir.0);
        assert!(error.contains("config.json: not valid JSON"), "{error}");
        std::fs::write(dir.join("config.json"), r#"{"layer_norm_eps": "small"}"#).unwrap();
        let error = open_error(&dir.0);
        assert!(
            error.contains("config.json: layer_norm_eps is \"small\", not a number"),
            "{error}"
        );
        std::fs::write(dir.join("config.json"), "[1, 2]").unwrap();
        assert!(open_error(&dir.0).contains("config.json: expected a JSON object"));
    }

    #[test]
    fn tokenizers_must_not_outrun_the_table() {
        let words = |n: usize| {
            TextTokenizer::Words(Vocabulary::new(
                "test",
                (0..n).map(|i| format!("w{i}")).collect(),
            ))
        };
        let path = Path::new("tok/tokenizer.json");
        let error = check_tokenizer_fits(&words(6), path, 5, "wte.weight")
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "tok/tokenizer.json: the tokenizer hands out ids up to 5, but the token table \
             wte.weight has only 5 rows (ids 0 to 4)"
        );
        assert_eq!(
            check_tokenizer_fits(&words(5), path, 5, "wte.weight").unwrap(),
            None
        );
        let padding = check_tokenizer_fits(&words(3), path, 5, "wte.weight")
            .unwrap()
            .unwrap();
        assert!(
            padding.contains("rows 3 to 4 are never produced"),
            "{padding}"
        );
    }

    #[test]
    fn the_folders_tokenizer_names_the_rows() {
        let dir = TempDir::new("tokenizer-json");
        write(
            &dir.join("model.safetensors"),
            &gpt2_specs("wte.weight", "wpe.weight"),
        );
        let tokenizer = r#"{"version": "1.0", "truncation": null, "padding": null,
            "added_tokens": [], "normalizer": null, "pre_tokenizer": {"type": "Whitespace"},
            "post_processor": null, "decoder": null, "model": {"type": "WordLevel",
            "vocab": {"fox": 0, "bites": 1, "the": 2, "[UNK]": 3}, "unk_token": "[UNK]"}}"#;
        std::fs::write(dir.join("tokenizer.json"), tokenizer).unwrap();
        let model = open(&dir.0).unwrap();
        let ids: Vec<Option<usize>> = model
            .tokenize("the fox")
            .unwrap()
            .iter()
            .map(|t| t.id)
            .collect();
        assert_eq!(ids, [Some(2), Some(0)]);
        assert!(
            model
                .warnings()
                .iter()
                .any(|w| w.contains("rows 4 to 4 are never produced")),
            "{:?}",
            model.warnings()
        );

        // Six ids for a five-row table: the error names the tokenizer.
        let bigger = tokenizer.replace(r#""[UNK]": 3}"#, r#""[UNK]": 3, "a": 4, "b": 5}"#);
        std::fs::write(dir.join("tokenizer.json"), bigger).unwrap();
        let error = open_error(&dir.0);
        assert!(
            error.contains("tokenizer.json: the tokenizer hands out ids up to 5"),
            "{error}"
        );
    }

    #[test]
    fn a_missing_tokenizer_file_is_named() {
        let dir = TempDir::new("tokenizer");
        write(
            &dir.join("model.safetensors"),
            &gpt2_specs("wte.weight", "wpe.weight"),
        );
        let options = OpenOptions {
            tokenizer: Some(dir.join("absent.json")),
            ..OpenOptions::default()
        };
        let error = format!("{:#}", open_model(&dir.0, &options).unwrap_err());
        assert!(error.contains("absent.json"), "{error}");
    }

    #[test]
    fn non_finite_weights_are_shown_and_warned_about() {
        let dir = TempDir::new("nan");
        write(
            &dir.join("model.safetensors"),
            &[f32_tensor(
                "wte.weight",
                &[2, 3],
                &[1.0, 2.0, 3.0, f32::NAN, f32::INFINITY, 0.5],
            )],
        );
        let model = open(&dir.0).unwrap();
        assert_eq!(model.non_finite_warning(0), None);
        let values = row(&model, 1);
        assert!(values[0].is_nan() && values[1] == f32::INFINITY);
        let warning = model.non_finite_warning(1).unwrap();
        assert!(
            warning.starts_with("row 1 holds 1 NaN value and 1 infinite value"),
            "{warning}"
        );
        assert_eq!(model.non_finite_warning(9), None);
    }

    #[test]
    fn inspection_lists_every_tensor_aligned() {
        let dir = TempDir::new("inspect");
        let mut specs = bert_specs();
        specs.push(Spec {
            name: "bert.embeddings.position_ids",
            dtype: safetensors::Dtype::I64,
            shape: vec![1, 2],
            bytes: [0i64, 1].iter().flat_map(|v| v.to_le_bytes()).collect(),
        });
        write(&dir.join("model.safetensors"), &specs);
        let inspection = inspect(&dir.0).unwrap();
        assert_eq!(inspection.tensors.len(), 7);
        let position_ids = inspection
            .tensors
            .iter()
            .find(|t| t.name == "bert.embeddings.position_ids")
            .unwrap();
        assert_eq!(
            (position_ids.dtype.as_str(), position_ids.shape.as_slice()),
            ("I64", &[1, 2][..])
        );
        let text = inspection.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].ends_with(": 7 tensors in 1 file"), "{text}");
        assert_eq!(
            lines[2],
            "name                                          dtype  shape  file"
        );
        assert_eq!(
            lines[3],
            "bert.embeddings.LayerNorm.bias                F32        4  model.safetensors"
        );
        assert!(
            text.contains(
                "bert.embeddings.word_embeddings.weight        F32      3×4  model.safetensors"
            ),
            "{text}"
        );
        assert!(
            text.contains("\ndetected:\n  read from model.safetensors"),
            "{text}"
        );
        assert!(
            text.contains(
                "token table: bert.embeddings.word_embeddings.weight (BERT-style name), 3×4 f32"
            ),
            "{text}"
        );
    }

    #[test]
    fn header_parsing_reads_only_the_header() {
        // A buffer whose data region is all NaN bytes: parsing succeeds without judging them.
        let mut bytes = raw_file(
            r#"{"wte.weight":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]}}"#,
            &[0xFF; 8],
        );
        let (length, infos) = read_header(Path::new("x.safetensors"), &bytes).unwrap();
        assert_eq!(length + LENGTH_BYTES + 8, bytes.len());
        assert_eq!(infos[0].1.shape, [1, 2]);
        bytes.truncate(3);
        assert!(read_header(Path::new("x.safetensors"), &bytes).is_err());
    }
}
