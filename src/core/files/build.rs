//! Building the model's parts from what detection chose: its tables, the embedding block and
//! the tokenizer.

use std::path::Path;

use anyhow::{Result, bail};
use ndarray::Array1;

use super::OpenOptions;
use super::detect::{BertNames, Detected};
use super::hub_cache::CachedSnapshot;
use super::safetensors::checkpoint::Checkpoint;
use super::safetensors::checkpoint::{mapped_table, mapped_vector};
use crate::core::tables::block::{EmbeddingBlock, LayerNorm, ModelFamily, Precision};
use crate::core::tables::table::{Dtype, Table};
use crate::core::text::tokenizer::TextTokenizer;

/// The tables read from the chosen tensors, and what the block does with them.
pub(super) struct Tables {
    pub(super) token: Table,
    pub(super) position: Option<Table>,
    pub(super) block: EmbeddingBlock,
    pub(super) sentences: Vec<String>,
}

pub(super) fn read_tables(checkpoint: &Checkpoint, detected: &Detected) -> Result<Tables> {
    let token = mapped_table(checkpoint, &detected.token)?;
    let position = match detected.position() {
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
        (_, ModelFamily::Rotary) if position.is_none() && detected.gemma.is_some() => {
            EmbeddingBlock::gemma(token.cols(), precision_of(&token))
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

/// The precision a Hugging Face model computes in: its weights' own (transformers loads a
/// checkpoint in the dtype it was saved in).
fn precision_of(table: &Table) -> Precision {
    match table.dtype() {
        Some(Dtype::F16) => Precision::F16,
        Some(Dtype::BF16) => Precision::BF16,
        _ => Precision::F32,
    }
}

/// The tokenizer chosen for the model, and what to say about it.
pub(super) struct LoadedTokenizer {
    pub(super) tokenizer: Option<TextTokenizer>,
    pub(super) sentence: String,
    pub(super) warning: Option<String>,
    /// Why the model's own tokenizer could not be read, when it has one.
    pub(super) missing: Option<String>,
}

pub(super) fn load_tokenizer(
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
            missing: None,
        });
    };
    // A snapshot of the Hugging Face cache is named as the hub names the model, not by its hash.
    // Only the names of its ids are read now; what reads text is built when text is read.
    let name = CachedSnapshot::of(&path).map(|snapshot| snapshot.repo.to_string());
    let tokenizer = TextTokenizer::deferred(&path, name)?;
    let warning = check_tokenizer_fits(&tokenizer, &path, token.rows(), token_name);
    Ok(LoadedTokenizer {
        sentence: format!(
            "tokenizer: {} ({} ids)",
            path.display(),
            tokenizer.vocab_size()
        ),
        tokenizer: Some(tokenizer),
        warning,
        missing: None,
    })
}

/// A warning when the tokenizer hands out ids the table has no row for (such a token is shown
/// without a vector, as a word a built-in vocabulary lacks), or when the table has rows the
/// tokenizer never reaches.
///
/// Published tokenizers can hold ids past the table, such as a multimodal placeholder; the
/// model still opens, so every other token can be looked at.
pub(super) fn check_tokenizer_fits(
    tokenizer: &TextTokenizer,
    path: &Path,
    rows: usize,
    token_name: &str,
) -> Option<String> {
    check_ids_fit(tokenizer.max_id(), path, rows, token_name)
}

/// [`check_tokenizer_fits`] for a tokenizer known only by its highest id.
pub(super) fn check_ids_fit(
    highest: Option<usize>,
    path: &Path,
    rows: usize,
    token_name: &str,
) -> Option<String> {
    match highest {
        Some(highest) if highest >= rows => Some(format!(
            "{}: the tokenizer hands out ids up to {highest}, but the token table {token_name} \
             has only {rows} rows (ids 0 to {}); a token with a higher id has no row and is \
             shown without a vector",
            path.display(),
            rows.saturating_sub(1)
        )),
        Some(highest) if highest + 1 < rows => Some(format!(
            "{token_name} has {rows} rows but the tokenizer's highest id is {highest}; rows {} to \
             {} are never produced by it (padding, often added to round the table up)",
            highest + 1,
            rows - 1
        )),
        _ => None,
    }
}
