//! Writing small GGUF files: what the tests (and anyone making a toy model) need.
//!
//! The data of each tensor is given as the bytes the file should hold, so a test can store any
//! quantized block it has; [`GgufWriter::f32_table`] writes plain numbers.

use std::path::Path;

use anyhow::{Result, anyhow};

use super::ggml_type::GgmlType;
use super::value::MetadataValue;

/// The data section's alignment this writer uses (GGUF's default).
const ALIGNMENT: usize = 32;

/// A GGUF file being put together: metadata entries and tensors, in the order they are added.
#[derive(Clone, Debug)]
pub struct GgufWriter {
    version: u32,
    metadata: Vec<(String, MetadataValue)>,
    tensors: Vec<(String, Vec<u64>, GgmlType, Vec<u8>)>,
}

impl Default for GgufWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl GgufWriter {
    /// An empty version-3 file.
    #[must_use]
    pub fn new() -> Self {
        Self {
            version: 3,
            metadata: Vec::new(),
            tensors: Vec::new(),
        }
    }

    /// Writes another version number (2 has the same layout as 3).
    #[must_use]
    pub fn version(mut self, version: u32) -> Self {
        self.version = version;
        self
    }

    /// Adds a metadata entry.
    #[must_use]
    pub fn metadata(mut self, key: &str, value: MetadataValue) -> Self {
        self.metadata.push((key.to_owned(), value));
        self
    }

    /// Adds a string entry.
    #[must_use]
    pub fn text(self, key: &str, value: &str) -> Self {
        self.metadata(key, MetadataValue::String(value.to_owned()))
    }

    /// Adds a u32 entry.
    #[must_use]
    pub fn number(self, key: &str, value: u32) -> Self {
        self.metadata(key, MetadataValue::U32(value))
    }

    /// Adds an array of strings.
    #[must_use]
    pub fn texts<S: AsRef<str>>(self, key: &str, values: &[S]) -> Self {
        let items = values
            .iter()
            .map(|s| MetadataValue::String(s.as_ref().to_owned()))
            .collect();
        self.metadata(key, MetadataValue::Array(items))
    }

    /// Adds a tensor of the given shape (outermost first, as `[rows, cols]`) whose data is
    /// exactly `data`, stored as `ggml_type`.
    #[must_use]
    pub fn tensor(mut self, name: &str, shape: &[u64], ggml_type: GgmlType, data: Vec<u8>) -> Self {
        let dims = shape.iter().rev().copied().collect();
        self.tensors.push((name.to_owned(), dims, ggml_type, data));
        self
    }

    /// Adds an F32 table of `rows × cols` numbers, row by row.
    #[must_use]
    pub fn f32_table(self, name: &str, rows: u64, cols: u64, values: &[f32]) -> Self {
        let data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.tensor(name, &[rows, cols], GgmlType(0), data)
    }

    /// The file's bytes.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = b"GGUF".to_vec();
        out.extend(self.version.to_le_bytes());
        out.extend((self.tensors.len() as u64).to_le_bytes());
        out.extend((self.metadata.len() as u64).to_le_bytes());
        for (key, value) in &self.metadata {
            put_string(&mut out, key);
            out.extend(type_id(value).to_le_bytes());
            put_value(&mut out, value);
        }
        let mut offset = 0usize;
        let mut offsets = Vec::with_capacity(self.tensors.len());
        for (name, dims, ggml_type, data) in &self.tensors {
            put_string(&mut out, name);
            out.extend(u32::try_from(dims.len()).unwrap_or(u32::MAX).to_le_bytes());
            for dim in dims {
                out.extend(dim.to_le_bytes());
            }
            out.extend(ggml_type.0.to_le_bytes());
            out.extend((offset as u64).to_le_bytes());
            offsets.push(offset);
            offset = (offset + data.len()).next_multiple_of(ALIGNMENT);
        }
        let data_start = out.len().next_multiple_of(ALIGNMENT);
        out.resize(data_start, 0);
        for ((_, _, _, data), offset) in self.tensors.iter().zip(offsets) {
            out.resize(data_start + offset, 0);
            out.extend(data);
        }
        out
    }

    /// Writes the file.
    ///
    /// # Errors
    /// When the file cannot be written.
    pub fn write(&self, path: &Path) -> Result<()> {
        std::fs::write(path, self.to_bytes())
            .map_err(|error| anyhow!("{}: cannot write: {error}", path.display()))
    }
}

fn put_string(out: &mut Vec<u8>, text: &str) {
    out.extend((text.len() as u64).to_le_bytes());
    out.extend(text.as_bytes());
}

fn type_id(value: &MetadataValue) -> u32 {
    match value {
        MetadataValue::U8(_) => 0,
        MetadataValue::I8(_) => 1,
        MetadataValue::U16(_) => 2,
        MetadataValue::I16(_) => 3,
        MetadataValue::U32(_) => 4,
        MetadataValue::I32(_) => 5,
        MetadataValue::F32(_) => 6,
        MetadataValue::Bool(_) => 7,
        MetadataValue::String(_) => 8,
        MetadataValue::Array(_) | MetadataValue::Packed(_) => 9,
        MetadataValue::U64(_) => 10,
        MetadataValue::I64(_) => 11,
        MetadataValue::F64(_) => 12,
    }
}

fn put_value(out: &mut Vec<u8>, value: &MetadataValue) {
    match value {
        MetadataValue::U8(n) => out.push(*n),
        MetadataValue::I8(n) => out.extend(n.to_le_bytes()),
        MetadataValue::U16(n) => out.extend(n.to_le_bytes()),
        MetadataValue::I16(n) => out.extend(n.to_le_bytes()),
        MetadataValue::U32(n) => out.extend(n.to_le_bytes()),
        MetadataValue::I32(n) => out.extend(n.to_le_bytes()),
        MetadataValue::U64(n) => out.extend(n.to_le_bytes()),
        MetadataValue::I64(n) => out.extend(n.to_le_bytes()),
        MetadataValue::F32(x) => out.extend(x.to_le_bytes()),
        MetadataValue::F64(x) => out.extend(x.to_le_bytes()),
        MetadataValue::Bool(flag) => out.push(u8::from(*flag)),
        MetadataValue::String(text) => put_string(out, text),
        MetadataValue::Array(items) => {
            // An empty array's item type is never read; call it a string array.
            let item_type = items.first().map_or(8, type_id);
            out.extend(item_type.to_le_bytes());
            out.extend((items.len() as u64).to_le_bytes());
            for item in items {
                put_value(out, item);
            }
        }
        MetadataValue::Packed(packed) => {
            out.extend(packed.item_type().code().to_le_bytes());
            out.extend((packed.len() as u64).to_le_bytes());
            out.extend(packed.raw());
        }
    }
}
