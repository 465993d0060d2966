//! Listing what a checkpoint holds: every tensor, and what opening it would find.

use std::fmt;
use std::path::{Path, PathBuf};

use super::OpenOptions;
use super::build::check_tokenizer_fits;
use super::build::read_tables;
use super::detect::detect;
use super::hub_cache::CachedSnapshot;
use super::locate::file_name;
use super::safetensors::checkpoint::Checkpoint;
use crate::core::tables::table::shape_text;
use crate::core::text::printable::printable;
use crate::core::text::tokenizer::TextTokenizer;

/// Everything a checkpoint holds, from its headers alone.
#[derive(Clone, Debug, PartialEq)]
pub struct Inspection {
    /// The file or folder inspected.
    pub source: PathBuf,
    /// The files read, in order.
    pub files: Vec<PathBuf>,
    /// A GGUF file's metadata, key and value (long arrays and strings abbreviated), in file
    /// order; empty for safetensors.
    pub metadata: Vec<(String, String)>,
    /// Every tensor: sorted by name for safetensors, in file order for GGUF.
    pub tensors: Vec<TensorSummary>,
    /// What opening the checkpoint would find, and why.
    pub detection: Vec<String>,
    /// Anything odd noticed on the way.
    pub warnings: Vec<String>,
}

/// One tensor as a file's header describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorSummary {
    /// Its name, such as `transformer.wte.weight`.
    pub name: String,
    /// Its dtype as the file names it (`F32`, `BF16`, `I64`, GGUF's `Q4_K`, ...).
    pub dtype: String,
    /// Its shape, outermost dimension first.
    pub shape: Vec<usize>,
    /// The file (shard) that holds it.
    pub file: PathBuf,
}

/// Lists every tensor of a checkpoint read from `path` (name, dtype, shape, file) and what
/// opening it would find.
///
/// A checkpoint without a usable embedding table still lists; the detection says why not.
pub(super) fn inspect_checkpoint(path: &Path, checkpoint: &Checkpoint) -> Inspection {
    let mut detection: Vec<String> = CachedSnapshot::of(path)
        .map(|snapshot| snapshot.sentence())
        .into_iter()
        .collect();
    detection.push(checkpoint.note.clone());
    let mut warnings = checkpoint.warnings.clone();
    let mut token_table = None;
    match detect(checkpoint, &OpenOptions::default())
        .and_then(|detected| Ok((read_tables(checkpoint, &detected)?, detected)))
    {
        Ok((tables, detected)) => {
            detection.extend(detected.sentences());
            detection.extend(tables.sentences);
            warnings.extend(detected.warnings());
            token_table = Some((tables.token.rows(), detected.token));
        }
        Err(error) => detection.push(format!("no embedding table read: {error:#}")),
    }
    if let Some(tokenizer) = checkpoint.tokenizer_json() {
        detection.push(format!("tokenizer: {}", tokenizer.display()));
        // Only the names of its ids are read, to see whether they fit the table; the tokenizer
        // itself is never built to list a file.
        if let (Ok(read), Some((rows, name))) =
            (TextTokenizer::deferred(&tokenizer, None), &token_table)
        {
            warnings.extend(check_tokenizer_fits(&read, &tokenizer, *rows, name));
        }
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
    Inspection {
        source: path.to_owned(),
        files: checkpoint.shards.iter().map(|s| s.path.clone()).collect(),
        metadata: Vec::new(),
        tensors,
        detection,
        warnings,
    }
}

impl fmt::Display for Inspection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let files = match self.files.len() {
            1 => "1 file".to_owned(),
            n => format!("{n} files"),
        };
        let tensors = match self.tensors.len() {
            1 => "1 tensor".to_owned(),
            n => format!("{n} tensors"),
        };
        writeln!(f, "{}: {tensors} in {files}", self.source.display())?;
        if !self.metadata.is_empty() {
            let key_width = self
                .metadata
                .iter()
                .map(|(key, _)| key.chars().count())
                .max()
                .unwrap_or(0);
            writeln!(f, "\nmetadata:")?;
            // Keys and values come from the file: escaped, and padded by hand (a format width
            // cannot exceed 65,535, and a key can).
            for (key, value) in &self.metadata {
                let gap = " ".repeat(key_width - key.chars().count());
                writeln!(f, "  {}{gap}  {}", printable(key), printable(value))?;
            }
        }
        // Names come from the file: escaped, so they cannot act on the terminal.
        let rows: Vec<[String; 4]> = self
            .tensors
            .iter()
            .map(|t| {
                [
                    printable(&t.name).into_owned(),
                    printable(&t.dtype).into_owned(),
                    shape_text(&t.shape),
                    printable(&file_name(&t.file)).into_owned(),
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
        // Padded by hand: a format width (`{:<w$}`) cannot exceed 65,535, and a name can.
        let gap = |cell: &str, width: usize| " ".repeat(width - cell.chars().count());
        for row in std::iter::once(&header).chain(&rows) {
            writeln!(
                f,
                "{}{}  {}{}  {}{}  {}",
                row[0],
                gap(&row[0], widths[0]),
                row[1],
                gap(&row[1], widths[1]),
                gap(&row[2], widths[2]),
                row[2],
                row[3],
            )?;
        }
        writeln!(f, "\ndetected:")?;
        for sentence in &self.detection {
            writeln!(f, "  {}", printable(sentence))?;
        }
        if !self.warnings.is_empty() {
            writeln!(f, "\nwarnings:")?;
            for warning in &self.warnings {
                writeln!(f, "  {}", printable(warning))?;
            }
        }
        Ok(())
    }
}
