//! The safetensors format: mapping a file, parsing its header with
//! the safetensors crate, and reading a tensor in place as a table; a [`checkpoint`] holds
//! every tensor of a checkpoint's files by name, with its `config.json`, [`model`] reads its
//! tables and tokenizer as a model, and [`layer0`] its first attention layer.

pub(super) mod checkpoint;
pub(super) mod layer0;
pub(super) mod model;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Result, anyhow, bail};
use safetensors::tensor::{Metadata, TensorInfo};
use safetensors::{SafeTensorError, SafeTensors};

use super::other_formats::OtherFormat;
use crate::core::files::access::{MappedFile, open_regular};
use crate::core::tables::table::Bytes;

/// A safetensors file starts with the header's length as a little-endian u64.
pub(super) const LENGTH_BYTES: usize = 8;

/// One safetensors file, mapped.
pub(super) struct Shard {
    pub(super) path: PathBuf,
    pub(super) bytes: Arc<dyn Bytes>,
}

/// One tensor's header entry.
#[derive(Clone, Debug)]
pub(super) struct TensorEntry {
    pub(super) name: String,
    pub(super) dtype: safetensors::Dtype,
    pub(super) shape: Vec<usize>,
    /// Index into the checkpoint's shards.
    pub(super) shard: usize,
    /// Where its numbers start in the shard's bytes.
    pub(super) data_start: usize,
}

/// Opens and maps one safetensors file and parses its header.
pub(super) fn read_shard(path: &Path, shard: usize) -> Result<(Shard, Vec<TensorEntry>)> {
    let file = open_regular(path)?;
    let length = file
        .metadata()
        .map_err(|error| anyhow!("{}: cannot read its size: {error}", path.display()))?
        .len();
    if length < LENGTH_BYTES as u64 {
        if let Some(format) = OtherFormat::of(path, &[]) {
            bail!(format.message(path));
        }
        bail!(
            "{}: only {length} bytes, too short for a safetensors file, which starts with an \
             8-byte header length",
            path.display()
        );
    }
    let map = MappedFile::new(file)
        .map_err(|error| anyhow!("{}: cannot memory-map: {error}", path.display()))?;
    let (header_length, infos) = read_header(path, map.bytes()).map_err(|error| {
        // Only a file that is no safetensors is asked what else it is: a real header length can
        // begin with a pickle's bytes.
        OtherFormat::of(path, map.bytes()).map_or(error, |format| anyhow!(format.message(path)))
    })?;
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
pub(super) fn read_header(path: &Path, bytes: &[u8]) -> Result<(usize, Vec<(String, TensorInfo)>)> {
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

pub(super) fn header_error(path: &Path, bytes: &[u8], error: &SafeTensorError) -> anyhow::Error {
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
pub(super) fn data_length_mismatch(bytes: &[u8]) -> Option<String> {
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
