//! A safetensors checkpoint opened as a model: its tables, its embedding block and its
//! tokenizer, with what was found and why.

use std::path::Path;

use anyhow::Result;

use super::checkpoint::Checkpoint;
use crate::core::files::OpenOptions;
use crate::core::files::build::{load_tokenizer, read_tables};
use crate::core::files::detect::detect;
use crate::core::files::hub_cache::CachedSnapshot;
use crate::core::files::locate::label_of;
use crate::core::tables::weights::{EmbeddingModel, Provenance};

/// The model of a checkpoint read from `path`: its embedding tables found by the names GPT-2,
/// BERT and Llama-style checkpoints use, and its tokenizer.
///
/// # Errors
/// When a table is not a two-dimensional f32, f16 or bf16 tensor, the tables disagree in
/// width, the tokenizer cannot be read, or `config.json` is malformed.
pub(in crate::core::files) fn checkpoint_model(
    path: &Path,
    checkpoint: &Checkpoint,
    options: &OpenOptions,
) -> Result<EmbeddingModel> {
    let detected = detect(checkpoint, options)?;
    let tables = read_tables(checkpoint, &detected)?;
    let tokenizer = load_tokenizer(checkpoint, options, &tables.token, &detected.token)?;

    let mut detection: Vec<String> = CachedSnapshot::of(path)
        .map(|snapshot| snapshot.sentence())
        .into_iter()
        .collect();
    detection.push(checkpoint.note.clone());
    detection.extend(detected.sentences());
    detection.extend(tables.sentences);
    detection.push(tokenizer.sentence);
    let mut warnings = checkpoint.warnings.clone();
    warnings.extend(detected.warnings());
    warnings.extend(tokenizer.warning);

    let provenance = Provenance {
        family: detected.family,
        block: tables.block,
        detection,
        warnings,
        source: Some(path.to_owned()),
        position_offset: detected.position_offset,
        padding_id: detected.padding_id,
        model_type: checkpoint
            .config
            .as_ref()
            .and_then(|config| config.model_type())
            .map(str::to_owned),
        gguf: false,
    };
    Ok(EmbeddingModel::new(
        label_of(path),
        tokenizer.tokenizer,
        tables.token,
        tables.position,
    )
    .with_provenance(provenance))
}
