//! Opening the files a user names: regular files only, opened without blocking, mapped
//! read-only (the one place a model file is memory-mapped), and JSON read up to a stated limit.
//!
//! A FIFO given as a model or a tokenizer would block `open` forever; `/dev/zero` would be read
//! until memory runs out. Every model, shard, index, config and tokenizer file is opened here,
//! so each of those is refused with a message that says what the path is instead.

use std::fs::{File, FileType, Metadata, OpenOptions};
use std::io::Read;
use std::path::Path;

use anyhow::{Result, anyhow, bail};
use memmap2::Mmap;

use crate::core::tables::table::Bytes;

/// Maps a whole model file into memory, read-only: every safetensors shard and GGUF file.
#[expect(
    unsafe_code,
    reason = "memory-mapping is unsafe in Rust's terms, and the only way to read rows in place"
)]
pub(super) fn map_read_only(file: &File) -> std::io::Result<Mmap> {
    // SAFETY: the file was opened read-only and the map is only ever read, through `&[u8]`.
    // Rust cannot rule out another process changing the file while it is mapped: the rows we
    // show would change under us, and if the file is truncated, reading a row past its new end
    // faults (SIGBUS) and the program dies (src/terminal_rescue.rs then restores the terminal
    // and says why). Model files are not rewritten in place in normal use (the safetensors
    // crate and llama.cpp write a new file and rename it), so we accept that risk.
    unsafe { Mmap::map(file) }
}

/// A file mapped read-only that also reads stretches with `pread`: every row of a table in a
/// nearest-rows scan (a table many times the processor's caches, read once) is copied from the page cache
/// without mapping its pages, which costs more than the copy when the cache holds them in
/// 4 KiB pieces; what is read again and again (the rows on screen, token names) is read
/// through the map, and so is a GGUF file's metadata, walked once to find its tensor list,
/// where copying it out cost more than mapping it (see `gguf/walk.rs`).
pub(super) struct MappedFile {
    file: File,
    map: Mmap,
}

impl MappedFile {
    /// Maps an open file (see [`map_read_only`]) and keeps it open for reading.
    pub(super) fn new(file: File) -> std::io::Result<Self> {
        let map = map_read_only(&file)?;
        Ok(Self { file, map })
    }
}

impl Bytes for MappedFile {
    fn bytes(&self) -> &[u8] {
        &self.map
    }

    #[cfg(unix)]
    fn read_at(&self, offset: usize, buffer: &mut [u8]) -> usize {
        use std::os::unix::fs::FileExt;
        let end = self.map.len().saturating_sub(offset).min(buffer.len());
        let mut filled = 0;
        while filled < end {
            match self
                .file
                .read_at(&mut buffer[filled..end], (offset + filled) as u64)
            {
                Ok(0) => break,
                Ok(read) => filled += read,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        if filled < end {
            // A read that failed or came short (the file shrank): the map says what it holds.
            buffer[filled..end].copy_from_slice(&self.map[offset + filled..offset + end]);
        }
        end
    }

    #[cfg(unix)]
    fn reads_from_file(&self) -> bool {
        true
    }
}

/// The kinds of JSON file a model is read from, each with the most bytes it may hold.
///
/// Parsed JSON takes several times its size in memory, so each kind is capped a few times
/// above the largest real file of that kind, not at one bound for all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonKind {
    /// `tokenizer.json`: 64 MiB, twice the largest real one (Gemma 3's, 33 MB).
    Tokenizer,
    /// `config.json`: 16 MiB (real ones are a few KB).
    Config,
    /// `model.safetensors.index.json`: 16 MiB (real ones are under 1 MB).
    Index,
    /// An Ollama manifest: 16 MiB (real ones are under 1 KB).
    Manifest,
}

impl JsonKind {
    /// The most bytes a file of this kind may hold.
    #[must_use]
    pub fn limit(self) -> u64 {
        match self {
            Self::Tokenizer => 64 << 20,
            Self::Config | Self::Index | Self::Manifest => 16 << 20,
        }
    }

    /// The kind in a message: "a tokenizer.json".
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Tokenizer => "a tokenizer.json",
            Self::Config => "a config.json",
            Self::Index => "a shard index",
            Self::Manifest => "an Ollama manifest",
        }
    }
}

/// What a path that is not a regular file is, for a message: "a folder", "a FIFO (named pipe)".
#[must_use]
pub fn kind_of(file_type: FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_dir() {
        "a folder"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else if file_type.is_file() {
        "a file"
    } else {
        "not a regular file"
    }
}

/// Refuses anything but a regular file, naming what `path` is instead.
///
/// # Errors
/// When `metadata` is not a regular file's.
pub fn require_regular(path: &Path, metadata: &Metadata) -> Result<()> {
    if !metadata.is_file() {
        bail!(
            "{}: is {}, not a file; give a regular file",
            path.display(),
            kind_of(metadata.file_type())
        );
    }
    Ok(())
}

/// Opens a regular file for reading, following links.
///
/// The open does not block (a FIFO would wait for a writer forever), and the opened file is
/// checked, not the path before it, so nothing can be swapped in between.
///
/// # Errors
/// When the path cannot be opened, or is not a regular file; the message names the path.
pub fn open_regular(path: &Path) -> Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|error| match error.kind() {
        std::io::ErrorKind::NotFound => anyhow!("{}: no such file", path.display()),
        _ => anyhow!("{}: cannot open: {error}", path.display()),
    })?;
    let metadata = file
        .metadata()
        .map_err(|error| anyhow!("{}: cannot read its size: {error}", path.display()))?;
    require_regular(path, &metadata)?;
    Ok(file)
}

/// Reads a regular JSON file of `kind`, at most its [`JsonKind::limit`] bytes, as UTF-8 text.
///
/// # Errors
/// When the file cannot be opened or read, is not a regular file, is larger than the limit, or
/// is not UTF-8.
pub fn read_json_text(path: &Path, kind: JsonKind) -> Result<String> {
    read_text(path, kind.limit(), kind.name())
}

/// Reads a regular file of at most `limit` bytes as UTF-8 text; `what` names the kind of file
/// in the message when it is larger.
///
/// # Errors
/// When the file cannot be opened or read, is not a regular file, is larger than the limit, or
/// is not UTF-8.
pub fn read_text(path: &Path, limit: u64, what: &str) -> Result<String> {
    let file = open_regular(path)?;
    let too_large = || {
        let size = if limit >= 1 << 20 {
            format!("{} MiB", limit >> 20)
        } else {
            format!("{limit} bytes")
        };
        anyhow!(
            "{}: larger than {size}, the most embedlens reads of {what}",
            path.display()
        )
    };
    if file.metadata().is_ok_and(|metadata| metadata.len() > limit) {
        return Err(too_large());
    }
    // The file can grow while it is read, so the read itself stops past the limit too.
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| anyhow!("{}: cannot read: {error}", path.display()))?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|error| {
        anyhow!(
            "{}: not UTF-8 text (invalid byte at {})",
            path.display(),
            error.utf8_error().valid_up_to()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::core::test_fixtures::TempDir;
    use std::process::Command;
    use std::time::{Duration, Instant};

    #[test]
    fn a_fifo_is_refused_at_once_without_blocking() {
        let folder = TempDir::new("fifo");
        let fifo = folder.join("tokenizer.json");
        let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let start = Instant::now();
        let error = read_json_text(&fifo, JsonKind::Config)
            .unwrap_err()
            .to_string();
        assert!(start.elapsed() < Duration::from_secs(5));
        assert!(
            error.contains("is a FIFO (named pipe), not a file"),
            "{error}"
        );
    }

    #[test]
    fn devices_and_folders_are_refused_by_what_they_are() {
        let error = read_json_text(Path::new("/dev/zero"), JsonKind::Config)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("/dev/zero: is a character device"),
            "{error}"
        );
        let error = open_regular(&std::env::temp_dir()).unwrap_err().to_string();
        assert!(error.contains("is a folder"), "{error}");
    }

    #[test]
    fn json_is_read_whole_up_to_the_limit() {
        let folder = TempDir::new("json");
        let path = folder.join("config.json");
        std::fs::write(&path, "{\"a\": 1}").unwrap();
        assert_eq!(
            read_json_text(&path, JsonKind::Tokenizer).unwrap(),
            "{\"a\": 1}"
        );
        // A sparse file just over the limit: refused without reading it all into memory.
        let file = File::create(&path).unwrap();
        file.set_len(JsonKind::Tokenizer.limit() + 1).unwrap();
        let error = read_json_text(&path, JsonKind::Tokenizer)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("larger than 64 MiB, the most embedlens reads of a tokenizer.json"),
            "{error}"
        );
    }
}
