//! The built-in trained vocabulary: all-MiniLM-L6-v2's own rows for the words it reads as one
//! token, embedded in the binary.
//!
//! The file is made by `scripts/build_trained_vocab.py` from the published model (see
//! `assets/trained/NOTICE.md`); every number is the model's float32, unchanged. It holds the
//! rows in the order of its word list (the metadata key `words`, `[UNK]` last), each row's id
//! in the model, the whole learned position table, and the token-type row and `LayerNorm` of
//! the model's embedding block.

use std::collections::HashMap;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use ndarray::Array1;
use safetensors::SafeTensors;
use safetensors::tensor::{Dtype as FileDtype, TensorInfo};

use crate::core::tables::block::{EmbeddingBlock, LayerNorm};
use crate::core::tables::table::{Bytes, Dtype, Table};

/// The trained vocabulary's file, as the script wrote it.
const ASSET: &[u8] = include_bytes!("../../../assets/trained/minilm.safetensors");

/// The model the rows come from, as its publishers name it.
pub const MODEL_NAME: &str = "all-MiniLM-L6-v2";

/// The model's name on the Hugging Face hub, for `from_pretrained`.
pub const HUB_ID: &str = "sentence-transformers/all-MiniLM-L6-v2";

/// The model's unknown-word token, the last row of the trained vocabulary.
pub const UNKNOWN_TOKEN: &str = "[UNK]";

/// How many numbers each of the model's vectors has.
pub const DIMS: usize = 384;

/// How many positions the model's learned table covers.
pub const CONTEXT_LENGTH: usize = 512;

/// Bytes compiled into the binary: they stay put for as long as the program runs.
struct Embedded(&'static [u8]);

impl Bytes for Embedded {
    fn bytes(&self) -> &[u8] {
        self.0
    }
}

/// The trained vocabulary's parts, read in place from the embedded file.
#[derive(Clone, Debug)]
pub struct TrainedTables {
    /// The token texts in row order, as the model's tokenizer spells them; `[UNK]` is last.
    pub words: Vec<String>,
    /// Each row's id in the model's own 30,522-row table.
    pub model_ids: Vec<usize>,
    /// The model's rows for `words`, 384 float32 numbers each.
    pub token_table: Table,
    /// The model's whole learned position table (512 × 384).
    pub position_table: Table,
    /// The model's embedding block: token-type row 0 and its `LayerNorm`.
    pub block: EmbeddingBlock,
}

/// The trained vocabulary embedded in the binary.
///
/// # Panics
/// Only if the embedded file is unreadable, which the unit tests would show.
#[must_use]
pub fn tables() -> TrainedTables {
    read(ASSET).expect("the trained vocabulary's file is embedded in the binary")
}

/// Reads the trained vocabulary's parts from a file laid out as the script writes it.
///
/// # Errors
/// When a tensor, the word list or the `LayerNorm`'s epsilon is missing or malformed.
pub fn read(bytes: &'static [u8]) -> Result<TrainedTables> {
    let (header_size, metadata) = SafeTensors::read_metadata(bytes)
        .map_err(|error| anyhow::anyhow!("not a safetensors file: {error}"))?;
    let data_start = 8 + header_size;
    let tensors = metadata.tensors();
    let text = metadata.metadata().clone().unwrap_or_default();
    let words: Vec<String> = text
        .get("words")
        .context("the file has no word list")?
        .split('\n')
        .map(str::to_owned)
        .collect();
    let source: Arc<dyn Bytes> = Arc::new(Embedded(bytes));
    let table = |name: &str| -> Result<Table> {
        let info = tensor(&tensors, name, FileDtype::F32)?;
        let (rows, cols) = match info.shape[..] {
            [rows, cols] => (rows, cols),
            [cols] => (1, cols),
            _ => bail!("{name} has shape {:?}", info.shape),
        };
        Table::mapped(
            Arc::clone(&source),
            data_start + info.data_offsets.0,
            Dtype::F32,
            rows,
            cols,
        )
    };
    let token_table = table("token_rows")?;
    let position_table = table("position_rows")?;
    let row =
        |name: &str| -> Result<Array1<f32>> { table(name)?.row(0).context("an empty tensor") };
    let eps: f32 = text
        .get("layer_norm_eps")
        .context("the file does not give the LayerNorm's epsilon")?
        .parse()?;
    let block = EmbeddingBlock::Bert {
        token_type_row: row("token_type_row")?,
        norm: LayerNorm::new(row("layer_norm_weight")?, row("layer_norm_bias")?, eps)?,
    };
    let ids = tensor(&tensors, "model_ids", FileDtype::I64)?;
    let model_ids = bytes[data_start + ids.data_offsets.0..data_start + ids.data_offsets.1]
        .chunks_exact(8)
        .map(|chunk| {
            let id = i64::from_le_bytes(chunk.try_into().unwrap_or_default());
            usize::try_from(id).context("a negative model id")
        })
        .collect::<Result<Vec<_>>>()?;
    if words.len() != token_table.rows() || model_ids.len() != words.len() {
        bail!(
            "{} words, {} rows and {} model ids should be as many",
            words.len(),
            token_table.rows(),
            model_ids.len()
        );
    }
    Ok(TrainedTables {
        words,
        model_ids,
        token_table,
        position_table,
        block,
    })
}

/// A tensor's description, checked for its type.
fn tensor<'a>(
    tensors: &HashMap<String, &'a TensorInfo>,
    name: &str,
    dtype: FileDtype,
) -> Result<&'a TensorInfo> {
    let info = *tensors
        .get(name)
        .with_context(|| format!("the file has no tensor {name}"))?;
    if info.dtype != dtype {
        bail!("{name} holds {:?}, not {dtype:?}", info.dtype);
    }
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::analysis::similarity::nearest_rows;
    use crate::core::tables::block::ModelFamily;
    use crate::core::tables::weights::EmbeddingModel;
    use crate::core::text::vocabulary::VocabKind;

    /// Rows read straight from the model's own file by the script, as f32 bits.
    fn fixture() -> serde_json::Value {
        serde_json::from_str(include_str!("../../../tests/fixtures/trained-rows.json")).unwrap()
    }

    fn bits(values: &serde_json::Value) -> Vec<u32> {
        values
            .as_array()
            .unwrap()
            .iter()
            .map(|v| u32::try_from(v.as_u64().unwrap()).unwrap())
            .collect()
    }

    fn row_bits(table: &Table, row: usize) -> Vec<u32> {
        table
            .row(row)
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect()
    }

    #[test]
    fn rows_are_the_models_own_bit_for_bit() {
        let tables = tables();
        let fixture = fixture();
        assert_eq!(
            tables.words.len(),
            usize::try_from(fixture["word_count"].as_u64().unwrap()).unwrap()
        );
        for (token, expected) in fixture["tokens"].as_object().unwrap() {
            let row = tables.words.iter().position(|w| w == token).unwrap();
            let model_id = expected["model_id"].as_u64().unwrap();
            assert_eq!(tables.model_ids[row] as u64, model_id, "{token}");
            assert_eq!(
                row_bits(&tables.token_table, row),
                bits(&expected["bits"]),
                "{token}"
            );
        }
        for (position, expected) in fixture["positions"].as_object().unwrap() {
            let position: usize = position.parse().unwrap();
            assert_eq!(row_bits(&tables.position_table, position), bits(expected));
        }
    }

    #[test]
    fn the_file_has_the_shape_the_notice_describes() {
        let tables = tables();
        assert_eq!(tables.token_table.cols(), 384);
        assert_eq!(
            (tables.position_table.rows(), tables.position_table.cols()),
            (512, 384)
        );
        assert_eq!(tables.words.last().map(String::as_str), Some(UNKNOWN_TOKEN));
        assert_eq!(
            tables.model_ids.last(),
            Some(&100),
            "BERT's [UNK] is id 100"
        );
        let (_, words) = tables.words.split_last().unwrap();
        assert!(words.iter().all(|w| w.to_lowercase() == *w), "uncased");
        assert_eq!(
            tables
                .words
                .iter()
                .position(|w| w == "the")
                .map(|r| tables.model_ids[r]),
            Some(1996)
        );
        assert!(matches!(tables.block, EmbeddingBlock::Bert { .. }));
    }

    #[test]
    fn training_puts_related_words_near_each_other() {
        let tables = tables();
        let row = |word: &str| tables.words.iter().position(|w| w == word).unwrap();
        let nearest = |word: &str| -> Vec<&str> {
            let query = tables.token_table.row(row(word)).unwrap();
            nearest_rows(&tables.token_table, query.view(), 4)
                .into_iter()
                .skip(1)
                .map(|(id, _)| tables.words[id].as_str())
                .collect()
        };
        assert_eq!(nearest("king")[0], "queen");
        assert!(nearest("monday").contains(&"tuesday"));
        assert!(nearest("dog").contains(&"puppy"));
        assert!(nearest("red").contains(&"blue"));
    }

    #[test]
    fn the_model_is_trained_and_its_block_is_berts() {
        let model = EmbeddingModel::builtin(VocabKind::Trained, 0);
        assert!(model.is_trained());
        assert_eq!(model.seed(), None);
        assert_eq!(
            (model.dims(), model.context_length()),
            (DIMS, CONTEXT_LENGTH)
        );
        assert_eq!(model.family(), ModelFamily::Bert);
        let tokens = model.tokenize("the dog").unwrap();
        let lookups = model.embed(
            &tokens,
            crate::core::tables::positional::PositionScheme::Learned,
        );
        let dog = &lookups[1];
        let EmbeddingBlock::Bert {
            token_type_row,
            norm,
        } = model.block()
        else {
            panic!("a BERT block");
        };
        let sum = &(dog.token_vector.as_ref().unwrap() + token_type_row)
            + &model.position_table().unwrap().row(1).unwrap();
        assert_eq!(dog.model_embedding, norm.apply(sum.view()));
    }

    #[test]
    fn a_file_without_its_parts_is_refused() {
        let error = read(b"nonsense").unwrap_err().to_string();
        assert!(error.contains("not a safetensors file"), "{error}");
    }
}
