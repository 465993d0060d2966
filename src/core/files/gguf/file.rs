//! Reading a GGUF file: its header, metadata and tensor list, with the tensor data mapped in
//! place and read as tables on demand.
//!
//! The layout (versions 2 and 3, little-endian): the magic `GGUF`, a u32 version, u64 counts of
//! tensors and metadata entries, the entries (a string key, a u32 value type, the value), then
//! for each tensor its name, its dimensions (innermost first), its type and the offset of its
//! data; the data section starts at the next multiple of `general.alignment` (default 32).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Result, anyhow, bail};

use super::ggml_type::GgmlType;
use super::value::{ItemType, MetadataValue, PackedArray};
use crate::core::files::access::{MappedFile, open_regular};
use crate::core::tables::table::shape_text;
use crate::core::tables::table::{Bytes, Table};

/// `GGUF` read as a little-endian u32.
const MAGIC: &[u8; 4] = b"GGUF";
/// The data section's alignment when `general.alignment` does not give one.
const DEFAULT_ALIGNMENT: u64 = 32;
/// Arrays inside arrays deeper than this are refused (real files nest none).
const MAX_DEPTH: usize = 4;
/// More dimensions than ggml allows.
const MAX_DIMS: u32 = 4;
/// The most tensors a file may list (real models list a few thousand at most).
const MAX_TENSORS: usize = 1 << 20;
/// The most metadata entries a file may hold (real files hold a few dozen).
const MAX_ENTRIES: usize = 1 << 20;
/// The most values all metadata arrays may hold together: six times the largest real
/// vocabulary's arrays (Gemma 3's 262,144 tokens, scores and types, and its merges), and a
/// bound on the memory a file's header can ask for (arrays of numbers and strings stay packed
/// in the file, but a flag or a nested array is held in 32 bytes or so, whatever it took in
/// the file).
pub const MAX_ARRAY_VALUES: usize = 1 << 23;

/// One tensor as the file lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GgufTensor {
    /// Its name, such as `token_embd.weight`.
    pub name: String,
    /// Its dimensions as ggml counts them, innermost (the numbers of one row) first.
    pub dims: Vec<u64>,
    /// Its type.
    pub ggml_type: GgmlType,
    /// Where its data starts, in bytes from the start of the file.
    pub start: u64,
}

impl GgufTensor {
    /// Its shape outermost first, as PyTorch and safetensors write it (`[49152, 576]` for a
    /// table of 49,152 rows of 576 numbers).
    #[must_use]
    pub fn shape(&self) -> Vec<u64> {
        self.dims.iter().rev().copied().collect()
    }

    /// How many numbers it holds, if that fits in a u64.
    fn len(&self) -> Option<u64> {
        self.dims.iter().try_fold(1u64, |n, &d| n.checked_mul(d))
    }

    /// How many bytes its data takes, for a type ggml knows.
    fn byte_len(&self) -> Option<u64> {
        let (block, bytes) = self.ggml_type.block()?;
        let row = *self.dims.first().unwrap_or(&1);
        if !row.is_multiple_of(block as u64) {
            return None;
        }
        self.len()?
            .checked_div(block as u64)?
            .checked_mul(bytes as u64)
    }
}

/// A GGUF file, mapped: its metadata and tensor list parsed, its tensor data left in place.
pub struct GgufFile {
    path: PathBuf,
    bytes: Arc<dyn Bytes>,
    version: u32,
    metadata: Vec<(String, MetadataValue)>,
    index: HashMap<String, usize>,
    tensors: Vec<GgufTensor>,
}

impl std::fmt::Debug for GgufFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GgufFile")
            .field("path", &self.path)
            .field("version", &self.version)
            .field("metadata", &self.metadata.len())
            .field("tensors", &self.tensors.len())
            .finish_non_exhaustive()
    }
}

/// Whether a file starts with the GGUF magic (it may still be damaged).
#[must_use]
pub fn is_gguf(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    open_regular(path)
        .ok()
        .and_then(|mut file| std::io::Read::read_exact(&mut file, &mut magic).ok())
        .is_some_and(|()| &magic == MAGIC)
}

impl GgufFile {
    /// Maps a GGUF file and reads its header, metadata and tensor list (not its data).
    ///
    /// # Errors
    /// When the file cannot be read, is not GGUF, is version 1 or big-endian, or its header is
    /// truncated or inconsistent; the message names the file.
    pub fn open(path: &Path) -> Result<Self> {
        let file = open_regular(path)?;
        let map = MappedFile::new(file).map_err(|error| anyhow!("{}: {error}", path.display()))?;
        Self::from_bytes(Arc::new(map), path)
    }

    /// Reads GGUF bytes already in memory (or mapped); `path` names them in messages.
    ///
    /// # Errors
    /// As [`Self::open`].
    pub fn from_bytes(bytes: Arc<dyn Bytes>, path: &Path) -> Result<Self> {
        let parsed = parse(&bytes).map_err(|error| anyhow!("{}: {error}", path.display()))?;
        let index = parsed
            .tensors
            .iter()
            .enumerate()
            .map(|(i, tensor)| (tensor.name.clone(), i))
            .collect();
        Ok(Self {
            path: path.to_owned(),
            bytes,
            version: parsed.version,
            metadata: parsed.metadata,
            index,
            tensors: parsed.tensors,
        })
    }

    /// The file it was read from.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The format version (2 or 3).
    #[must_use]
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Every metadata entry, in file order.
    #[must_use]
    pub fn metadata(&self) -> &[(String, MetadataValue)] {
        &self.metadata
    }

    /// The metadata value under a key.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&MetadataValue> {
        self.metadata
            .iter()
            .find(|(name, _)| name == key)
            .map(|(_, value)| value)
    }

    /// The text under a key, when it is a string.
    #[must_use]
    pub fn text(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(MetadataValue::as_str)
    }

    /// Every tensor, in file order.
    #[must_use]
    pub fn tensors(&self) -> &[GgufTensor] {
        &self.tensors
    }

    /// The tensor with this name.
    #[must_use]
    pub fn tensor(&self, name: &str) -> Option<&GgufTensor> {
        self.index.get(name).map(|&i| &self.tensors[i])
    }

    /// A tensor read in place as a table of rows: a matrix is `rows × width` (outermost ×
    /// innermost dimension), a vector one row. Rows are dequantized when they are read.
    ///
    /// # Errors
    /// When there is no such tensor, it has more than two dimensions or none, its type is one
    /// embedlens cannot dequantize, or its rows are not whole blocks; the message names the file,
    /// the tensor and its type.
    pub fn table(&self, name: &str) -> Result<Table> {
        let tensor = self.tensor(name).ok_or_else(|| {
            anyhow!(
                "{}: no tensor named {name}; {}",
                self.path.display(),
                self.some_names()
            )
        })?;
        let (rows, cols) = match tensor.dims.as_slice() {
            [cols] => (1, *cols),
            [cols, rows] => (*rows, *cols),
            _ => bail!(
                "{}: tensor {name} has shape {}; a table must have one or two dimensions",
                self.path.display(),
                shape_text(&tensor.shape())
            ),
        };
        let Some(dtype) = tensor.ggml_type.dtype() else {
            bail!(
                "{}: tensor {name} is {}, which embedlens cannot dequantize (it reads {})",
                self.path.display(),
                tensor.ggml_type,
                GgmlType::readable_names()
            );
        };
        let (Ok(rows), Ok(cols), Ok(start)) = (
            usize::try_from(rows),
            usize::try_from(cols),
            usize::try_from(tensor.start),
        ) else {
            bail!(
                "{}: tensor {name} is too large to address",
                self.path.display()
            );
        };
        Table::mapped(Arc::clone(&self.bytes), start, dtype, rows, cols)
            .map_err(|error| anyhow!("{}: tensor {name}: {error}", self.path.display()))
    }

    /// A few tensor names, embedding tables first, for a message about a missing one.
    fn some_names(&self) -> String {
        const SHOWN: usize = 8;
        if self.tensors.is_empty() {
            return "the file holds no tensors".to_owned();
        }
        let mut names: Vec<&str> = self.tensors.iter().map(|t| t.name.as_str()).collect();
        names.sort_by_key(|name| !name.contains("embd"));
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

/// What the header says.
struct Parsed {
    version: u32,
    metadata: Vec<(String, MetadataValue)>,
    tensors: Vec<GgufTensor>,
}

/// Reads little-endian fields from the front of the bytes, naming what ran out.
struct Cursor<'a> {
    /// What arrays left packed keep.
    source: &'a Arc<dyn Bytes>,
    bytes: &'a [u8],
    at: usize,
    /// How many more array values the metadata may hold (see [`MAX_ARRAY_VALUES`]).
    values_left: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len());
        let Some(end) = end else {
            bail!(
                "truncated GGUF header: {what} at byte {} runs past the end of the file ({} bytes)",
                self.at,
                self.bytes.len()
            );
        };
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let taken = self.take(N, what)?;
        Ok(std::array::from_fn(|i| taken[i]))
    }

    fn u32(&mut self, what: &str) -> Result<u32> {
        self.array(what).map(u32::from_le_bytes)
    }

    fn u64(&mut self, what: &str) -> Result<u64> {
        self.array(what).map(u64::from_le_bytes)
    }

    /// A count of items each at least `min_size` bytes long, checked against the bytes left so
    /// that a damaged count cannot ask for a huge allocation.
    fn count(&mut self, what: &str, min_size: usize) -> Result<usize> {
        let count = self.u64(what)?;
        let left = (self.bytes.len() - self.at) / min_size.max(1);
        match usize::try_from(count) {
            Ok(count) if count <= left => Ok(count),
            _ => bail!(
                "truncated or damaged GGUF header: {what} is {count}, more than the {} bytes left \
                 could hold",
                self.bytes.len() - self.at
            ),
        }
    }

    fn string(&mut self, what: &str) -> Result<String> {
        let len = self.count(what, 1)?;
        let bytes = self.take(len, what)?;
        // Checked as UTF-8 first: std's check runs a word at a time where the lossy reading
        // goes a character at a time (an 8.4 MB tokenizer.json carried whole took 24 ms).
        Ok(match std::str::from_utf8(bytes) {
            Ok(text) => text.to_owned(),
            Err(_) => String::from_utf8_lossy(bytes).into_owned(),
        })
    }

    fn value(&mut self, kind: u32, key: &str, depth: usize) -> Result<MetadataValue> {
        Ok(match kind {
            0 => MetadataValue::U8(self.array::<1>(key)?[0]),
            1 => MetadataValue::I8(i8::from_le_bytes(self.array(key)?)),
            2 => MetadataValue::U16(u16::from_le_bytes(self.array(key)?)),
            3 => MetadataValue::I16(i16::from_le_bytes(self.array(key)?)),
            4 => MetadataValue::U32(self.u32(key)?),
            5 => MetadataValue::I32(i32::from_le_bytes(self.array(key)?)),
            6 => MetadataValue::F32(f32::from_le_bytes(self.array(key)?)),
            7 => match self.array::<1>(key)?[0] {
                0 => MetadataValue::Bool(false),
                1 => MetadataValue::Bool(true),
                other => bail!("damaged GGUF metadata: {key} is a bool stored as {other}"),
            },
            8 => MetadataValue::String(self.string(key)?),
            9 => {
                if depth >= MAX_DEPTH {
                    bail!("damaged GGUF metadata: {key} nests arrays {MAX_DEPTH} deep");
                }
                let item_kind = self.u32(key)?;
                let count = self.count(key, 1)?;
                if count > self.values_left {
                    bail!(
                        "GGUF metadata too large: {key} holds {count} values, more than the \
                         {MAX_ARRAY_VALUES} all arrays together may hold"
                    );
                }
                self.values_left -= count;
                if let Some(item) = ItemType::from_code(item_kind) {
                    return self.packed(item, count, key);
                }
                // Grown as values are read, never reserved from the count alone.
                let mut items = Vec::new();
                for _ in 0..count {
                    items.push(self.value(item_kind, key, depth + 1)?);
                }
                MetadataValue::Array(items)
            }
            10 => MetadataValue::U64(self.u64(key)?),
            11 => MetadataValue::I64(i64::from_le_bytes(self.array(key)?)),
            12 => MetadataValue::F64(f64::from_le_bytes(self.array(key)?)),
            other => bail!(
                "damaged GGUF metadata: {key} has value type {other}, which GGUF does not define"
            ),
        })
    }

    /// An array of `count` numbers or strings, walked past and left packed in the file.
    fn packed(&mut self, item: ItemType, count: usize, key: &str) -> Result<MetadataValue> {
        let packed =
            PackedArray::walk(Arc::clone(self.source), item, count, self.at).map_err(|at| {
                anyhow!(
                    "truncated GGUF header: {key} at byte {at} runs past the end of the file ({} \
                     bytes)",
                    self.bytes.len()
                )
            })?;
        self.at += packed.raw().len();
        Ok(MetadataValue::Packed(packed))
    }
}

/// The metadata entries, each key once.
fn read_metadata(cursor: &mut Cursor, kv_count: usize) -> Result<Vec<(String, MetadataValue)>> {
    let mut metadata = Vec::new();
    let mut keys = std::collections::HashSet::new();
    for _ in 0..kv_count {
        let key = cursor.string("a metadata key")?;
        if !keys.insert(key.clone()) {
            bail!("damaged GGUF metadata: the key {key} appears twice");
        }
        let kind = cursor.u32(&key)?;
        let value = cursor.value(kind, &key, 0)?;
        metadata.push((key, value));
    }
    Ok(metadata)
}

/// The data section's alignment: `general.alignment`, an unsigned power of two, or 32.
fn alignment(metadata: &[(String, MetadataValue)]) -> Result<u64> {
    Ok(
        match metadata.iter().find(|(key, _)| key == "general.alignment") {
            None => DEFAULT_ALIGNMENT,
            Some((_, value)) => match value {
                MetadataValue::U8(_)
                | MetadataValue::U16(_)
                | MetadataValue::U32(_)
                | MetadataValue::U64(_) => match value.as_u64() {
                    Some(n) if n.is_power_of_two() => n,
                    _ => bail!(
                        "damaged GGUF metadata: general.alignment is {value}, not a power of two"
                    ),
                },
                other => bail!(
                    "damaged GGUF metadata: general.alignment is stored as {}, not as an unsigned \
                 integer",
                    other.type_name()
                ),
            },
        },
    )
}

fn parse(source: &Arc<dyn Bytes>) -> Result<Parsed> {
    let bytes = source.bytes();
    let mut cursor = Cursor {
        source,
        bytes,
        at: 0,
        values_left: MAX_ARRAY_VALUES,
    };
    if bytes.len() < 4 || &bytes[..4] != MAGIC {
        bail!("not a GGUF file (it does not start with the bytes GGUF)");
    }
    cursor.at = 4;
    let version = cursor.u32("the version")?;
    match version {
        2 | 3 => {}
        1 => bail!(
            "GGUF version 1 (from 2023) is not supported; convert the model again with a recent \
             llama.cpp to get version 3"
        ),
        v if v.swap_bytes() == 2 || v.swap_bytes() == 3 => {
            bail!("a big-endian GGUF file; embedlens reads little-endian GGUF only")
        }
        v => bail!("GGUF version {v} is not one embedlens knows (it reads versions 2 and 3)"),
    }
    // The smallest tensor entry is a name length, one dimension, a type and an offset.
    let tensor_count = cursor.count("the tensor count", 8 + 4 + 8 + 4 + 8)?;
    if tensor_count > MAX_TENSORS {
        bail!(
            "damaged GGUF header: it lists {tensor_count} tensors (at most {MAX_TENSORS} are read)"
        );
    }
    let kv_count = cursor.count("the metadata count", 8 + 4 + 1)?;
    if kv_count > MAX_ENTRIES {
        bail!(
            "damaged GGUF header: it holds {kv_count} metadata entries (at most {MAX_ENTRIES} are \
             read)"
        );
    }
    let metadata = read_metadata(&mut cursor, kv_count)?;
    let alignment = alignment(&metadata)?;
    let mut tensors = Vec::new();
    let mut names = std::collections::HashSet::new();
    for _ in 0..tensor_count {
        let name = cursor.string("a tensor name")?;
        if !names.insert(name.clone()) {
            bail!("damaged GGUF header: the tensor {name} is listed twice");
        }
        let n_dims = cursor.u32(&name)?;
        if n_dims > MAX_DIMS {
            bail!(
                "damaged GGUF header: tensor {name} has {n_dims} dimensions (ggml allows {MAX_DIMS})"
            );
        }
        let dims = (0..n_dims)
            .map(|_| cursor.u64(&name))
            .collect::<Result<Vec<_>>>()?;
        let ggml_type = GgmlType(cursor.u32(&name)?);
        let offset = cursor.u64(&name)?;
        tensors.push((name, dims, ggml_type, offset));
    }
    let header_end = cursor.at as u64;
    let data_start = header_end.div_ceil(alignment) * alignment;
    let file_len = bytes.len() as u64;
    let tensors = tensors
        .into_iter()
        .map(|(name, dims, ggml_type, offset)| {
            if !offset.is_multiple_of(alignment) {
                bail!(
                    "damaged GGUF header: tensor {name}'s data offset {offset} is not a multiple \
                     of the alignment {alignment}"
                );
            }
            let tensor = GgufTensor {
                name,
                dims,
                ggml_type,
                start: data_start.saturating_add(offset),
            };
            if let Some(len) = tensor.byte_len() {
                let end = tensor.start.checked_add(len);
                if end.is_none_or(|end| end > file_len) {
                    bail!(
                        "truncated GGUF file: tensor {} ({} {}) needs {len} bytes from byte {}, \
                         past the end of the file ({file_len} bytes)",
                        tensor.name,
                        shape_text(&tensor.shape()),
                        tensor.ggml_type,
                        tensor.start
                    );
                }
            }
            Ok(tensor)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Parsed {
        version,
        metadata,
        tensors,
    })
}
