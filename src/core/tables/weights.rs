//! The embedding matrix and its lookup: an id is the address of a row.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use anyhow::{Result, bail};
use ndarray::Array1;

use crate::core::tables::block::{EmbeddingBlock, ModelFamily, non_finite_summary};
use crate::core::tables::positional::{PositionScheme, PositionVector, position_vector};
use crate::core::tables::table::Table;
use crate::core::tables::torch_init::TorchGenerator;
use crate::core::tables::trained;
use crate::core::text::tokenizer::TextTokenizer;
use crate::core::text::vocabulary::{Token, VocabKind, Vocabulary};

/// The seed PyTorch examples use, and ours unless `--seed` says otherwise.
pub const DEFAULT_SEED: u64 = 123;
/// The learned position table's rows for `--shape` tables unless `--context-length` says otherwise.
pub const DEFAULT_CONTEXT_LENGTH: usize = 16;
/// The width of the built-in gpt2 tables unless `--dim` says otherwise (as in the book's chapter).
pub const DEFAULT_GPT2_DIMS: u64 = 256;
/// GPT-2's context length: the rows of its learned position table.
pub const GPT2_CONTEXT_LENGTH: usize = 1024;
/// The most numbers a generated model may hold, token and position tables together: 2^28
/// float32, 1 GiB. The widest built-in gpt2 (`--dim 4096`) needs about 210 million.
pub const MAX_GENERATED_VALUES: usize = 1 << 28;

/// How to read text with a model whose own tokenizer could not be read.
pub const TOKENIZER_HINT: &str = "to read text, name the model's tokenizer.json with --tokenizer \
                                  PATH or put it beside the model's file";

/// A token table, an optional learned position table, and the tokenizer that names the rows.
#[derive(Clone, Debug)]
pub struct EmbeddingModel {
    label: String,
    tokenizer: Option<TextTokenizer>,
    /// Why there is no tokenizer, when the model's files describe one that could not be read.
    tokenizer_missing: Option<String>,
    token_table: Table,
    position_table: Option<Table>,
    seed: Option<u64>,
    widest_token: usize,
    provenance: Provenance,
}

/// Where a table's numbers came from: training, or a seeded random draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TableKind {
    /// Drawn by PyTorch's seeded initialisation, as before any training: which rows lie near
    /// each other is chance, so nearest neighbours say nothing about meaning.
    Random {
        /// The `torch.manual_seed` the table was drawn with.
        seed: u64,
    },
    /// Learned by training: the built-in trained vocabulary, or a checkpoint's own table.
    Trained,
}

impl TableKind {
    /// Whether the numbers were learned by training.
    #[must_use]
    pub fn is_trained(self) -> bool {
        self == Self::Trained
    }

    /// The kind in a few words, for a border beside its similarities.
    #[must_use]
    pub fn short_note(self) -> &'static str {
        match self {
            Self::Random { .. } => "untrained random table: nearness is chance",
            Self::Trained => "trained table",
        }
    }

    /// Its position table, as a noun phrase: a seeded table was never trained, so it is a
    /// learnable table, not a learned one.
    #[must_use]
    pub fn position_table(self) -> &'static str {
        match self {
            Self::Random { .. } => "learnable position table, here randomly initialised",
            Self::Trained => "learned position table",
        }
    }

    /// What its nearest rows mean, in a sentence.
    #[must_use]
    pub fn nearest_rows_note(self) -> &'static str {
        match self {
            Self::Random { .. } => {
                "This is an untrained, randomly initialised table: its nearest rows are noise, \
                 not related words."
            }
            Self::Trained => {
                "This is a trained table: training moved words used alike near each other, so its \
                 nearest rows tend to be related words."
            }
        }
    }
}

/// Where a model came from and what its file says about its embedding block.
#[derive(Clone, Debug, PartialEq)]
pub struct Provenance {
    /// The family its tensor names belong to.
    pub family: ModelFamily,
    /// What its embedding block outputs.
    pub block: EmbeddingBlock,
    /// Sentences saying what was found and why it was read that way.
    pub detection: Vec<String>,
    /// Sentences about anything the learner should not take at face value.
    pub warnings: Vec<String>,
    /// The file or folder it was opened from.
    pub source: Option<PathBuf>,
    /// Which learned position row the model itself reads for position 0 (`RoBERTa` starts at
    /// `pad_token_id + 1`, so 2; everything else at 0).
    pub position_offset: usize,
    /// The padding id the model counts positions from, when it does (`RoBERTa` and kin, as
    /// transformers' `create_position_ids_from_input_ids`): a padding token is not counted and
    /// reads row `padding_id`; the n-th other token reads row `padding_id + n`.
    pub padding_id: Option<usize>,
    /// The model's own name for its kind, `config.json`'s `model_type` (`mpnet`, `roberta`),
    /// when it gives one: the family a learner would look up.
    pub model_type: Option<String>,
    /// Whether it was read from a GGUF file (`transformers` reads one with `gguf_file=`).
    pub gguf: bool,
}

impl Default for Provenance {
    /// A generated table: token + learned position, nothing detected, no file.
    fn default() -> Self {
        Self {
            family: ModelFamily::Generated,
            block: EmbeddingBlock::Sum,
            detection: Vec::new(),
            warnings: Vec::new(),
            source: None,
            position_offset: 0,
            padding_id: None,
            model_type: None,
            gguf: false,
        }
    }
}

/// A width given on the command line as a number of dimensions.
#[must_use]
pub fn as_width(dims: u64) -> usize {
    usize::try_from(dims).unwrap_or(usize::MAX)
}

/// Refuses tables that would hold more than [`MAX_GENERATED_VALUES`] numbers, counted in
/// 128 bits so that no product of two sizes can overflow.
fn check_generated_size(rows: usize, dims: usize, context_length: usize) -> Result<()> {
    let wide = |n: usize| u128::try_from(n).unwrap_or(u128::MAX);
    let values = wide(rows)
        .saturating_mul(wide(dims))
        .saturating_add(wide(context_length).saturating_mul(wide(dims)));
    if values > wide(MAX_GENERATED_VALUES) {
        bail!(
            "a {rows}x{dims} table with {context_length} learned positions would hold {values} \
             numbers ({}); embedlens generates at most {MAX_GENERATED_VALUES} (1 GiB of float32)",
            byte_size(values.saturating_mul(4))
        );
    }
    Ok(())
}

/// A number of bytes in the largest unit that keeps it at least 1, such as `40 PB`.
fn byte_size(bytes: u128) -> String {
    let units = ["bytes", "KB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"];
    let mut size = bytes;
    let mut unit = 0;
    while size >= 1000 && unit + 1 < units.len() {
        size /= 1000;
        unit += 1;
    }
    format!("{size} {}", units[unit])
}

/// The built-in `trained` vocabulary as a model: the words, their trained rows, the trained
/// position table and the model's own embedding block (BERT's: token type, then `LayerNorm`).
///
/// No seed: [`EmbeddingModel::table_kind`] says these numbers were learned.
fn trained_model() -> EmbeddingModel {
    let tables = trained::tables();
    let words = tables.words.len() - 1;
    let (name, unknown) = (trained::MODEL_NAME, trained::UNKNOWN_TOKEN);
    let (context_length, dims) = (trained::CONTEXT_LENGTH, trained::DIMS);
    let provenance = Provenance {
        family: ModelFamily::Bert,
        block: tables.block,
        detection: vec![
            format!(
                "trained rows: {name}'s embeddings.word_embeddings.weight for the {words} \
                 words of the words vocabulary its uncased tokenizer reads as one token, and \
                 {unknown}; built into embedlens (Apache-2.0)"
            ),
            format!(
                "position table: its embeddings.position_embeddings.weight, \
                 {context_length}×{dims} f32"
            ),
            "the embedding block outputs LayerNorm(token + token type + position), as BERT's \
             does"
                .to_owned(),
        ],
        ..Provenance::default()
    };
    let vocabulary = Vocabulary::with_unknown(VocabKind::Trained.name(), tables.words, unknown);
    EmbeddingModel::new(
        VocabKind::Trained.name(),
        Some(TextTokenizer::Words(vocabulary)),
        tables.token_table,
        Some(tables.position_table),
    )
    .with_provenance(provenance)
}

/// The width and context length of each built-in vocabulary.
fn builtin_shape(kind: VocabKind) -> (usize, usize) {
    match kind {
        VocabKind::Seed => (3, 16),
        VocabKind::Words => (8, 64),
        VocabKind::Trained => (trained::DIMS, trained::CONTEXT_LENGTH),
        VocabKind::Gpt2 => (as_width(DEFAULT_GPT2_DIMS), GPT2_CONTEXT_LENGTH),
    }
}

impl EmbeddingModel {
    /// A model from its parts: a label for titles, the tables and the tokenizer, if any.
    #[must_use]
    pub fn new(
        label: impl Into<String>,
        tokenizer: Option<TextTokenizer>,
        token_table: Table,
        position_table: Option<Table>,
    ) -> Self {
        let widest_token = tokenizer.as_ref().map_or(0, TextTokenizer::widest_token);
        Self {
            label: label.into(),
            tokenizer,
            tokenizer_missing: None,
            token_table,
            position_table,
            seed: None,
            widest_token,
            provenance: Provenance::default(),
        }
    }

    /// The same model, with what its file said about it.
    #[must_use]
    pub fn with_provenance(mut self, provenance: Provenance) -> Self {
        self.provenance = provenance;
        self
    }

    /// The same model, saying why it has no tokenizer: its files describe one that could not
    /// be read (a sentence such as "the file's tokenizer could not be rebuilt: …").
    #[must_use]
    pub fn with_tokenizer_missing(mut self, why: impl Into<String>) -> Self {
        self.tokenizer_missing = Some(why.into());
        self
    }

    /// Why text cannot be read: the reason, when the model's files describe a tokenizer that
    /// could not be read, and what to give instead.
    #[must_use]
    pub fn no_text_message(&self) -> String {
        match &self.tokenizer_missing {
            Some(why) => format!(
                "the {} table cannot read text: {why}; {TOKENIZER_HINT}, or give token ids with \
                 --ids",
                self.label
            ),
            None => format!(
                "the {} table has no vocabulary to read words with; give token ids with --ids",
                self.label
            ),
        }
    }

    /// A built-in vocabulary with `torch.manual_seed(seed)`, its token table, then its position table.
    ///
    /// `gpt2` has 256 dimensions here; [`EmbeddingModel::gpt2`] takes another width. `trained`
    /// is no draw: it is all-MiniLM-L6-v2's own rows ([`trained`]), whatever the seed.
    #[must_use]
    pub fn builtin(kind: VocabKind, seed: u64) -> Self {
        if kind == VocabKind::Trained {
            return trained_model();
        }
        let Some(vocabulary) = Vocabulary::builtin(kind) else {
            return Self::gpt2(seed, as_width(DEFAULT_GPT2_DIMS));
        };
        let (dims, context_length) = builtin_shape(kind);
        let mut generator = TorchGenerator::manual_seed(seed);
        let token_table = generator.embedding(vocabulary.len(), dims);
        let position_table = generator.embedding(context_length, dims);
        let mut model = Self::new(
            kind.name(),
            Some(TextTokenizer::Words(vocabulary)),
            token_table.into(),
            Some(position_table.into()),
        );
        model.seed = Some(seed);
        model
    }

    /// GPT-2's tokenizer with `torch.manual_seed(seed); nn.Embedding(50257, dims)`, then
    /// `nn.Embedding(1024, dims)`: untrained tables, as at the start of training.
    ///
    /// The tables are made on another thread so the first frame does not wait for them; rows
    /// read as `None` (and [`EmbeddingModel::is_ready`] is false) until they are done.
    ///
    /// # Panics
    /// Only if the GPT-2 ranks embedded in the binary are unreadable, which a build would show.
    #[must_use]
    pub fn gpt2(seed: u64, dims: usize) -> Self {
        let tokenizer = TextTokenizer::gpt2().expect("the GPT-2 ranks are embedded in the binary");
        let rows = tokenizer.vocab_size();
        let tokens = Arc::new(OnceLock::new());
        let positions = Arc::new(OnceLock::new());
        let (token_cell, position_cell) = (Arc::clone(&tokens), Arc::clone(&positions));
        std::thread::spawn(move || {
            let mut generator = TorchGenerator::manual_seed(seed);
            let _ = token_cell.set(generator.embedding(rows, dims));
            let _ = position_cell.set(generator.embedding(GPT2_CONTEXT_LENGTH, dims));
        });
        let mut model = Self::new(
            VocabKind::Gpt2.name(),
            Some(tokenizer),
            Table::deferred(rows, dims, tokens),
            Some(Table::deferred(GPT2_CONTEXT_LENGTH, dims, positions)),
        );
        model.seed = Some(seed);
        model
    }

    /// An unnamed `nn.Embedding(rows, dims)`, then `nn.Embedding(context_length, dims)`.
    ///
    /// # Errors
    /// When a dimension is zero, or the tables would hold more than [`MAX_GENERATED_VALUES`]
    /// numbers.
    pub fn shaped(rows: usize, dims: usize, context_length: usize, seed: u64) -> Result<Self> {
        if rows == 0 || dims == 0 {
            bail!("the shape {rows}x{dims} has no values; both numbers must be at least 1");
        }
        check_generated_size(rows, dims, context_length)?;
        let mut generator = TorchGenerator::manual_seed(seed);
        let token_table = generator.embedding(rows, dims);
        let position_table = generator.embedding(context_length, dims);
        let mut model = Self::new(
            format!("{rows}x{dims}"),
            None,
            token_table.into(),
            Some(position_table.into()),
        );
        model.seed = Some(seed);
        Ok(model)
    }

    /// The vocabulary's name, or the shape of an unnamed table.
    #[must_use]
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The tokenizer that names the rows, if the table has one.
    #[must_use]
    pub fn tokenizer(&self) -> Option<&TextTokenizer> {
        self.tokenizer.as_ref()
    }

    /// The weight matrix: one row per id.
    #[must_use]
    pub fn token_table(&self) -> &Table {
        &self.token_table
    }

    /// The learned position table (one row per position), if the model has one.
    #[must_use]
    pub fn position_table(&self) -> Option<&Table> {
        self.position_table.as_ref()
    }

    /// The generator seed the tables came from, for generated tables.
    #[must_use]
    pub fn seed(&self) -> Option<u64> {
        self.seed
    }

    /// Whether the numbers were learned by training or drawn at random: what a screen that
    /// compares vectors must say, since only training puts related words near each other.
    #[must_use]
    pub fn table_kind(&self) -> TableKind {
        match self.seed {
            Some(seed) => TableKind::Random { seed },
            None => TableKind::Trained,
        }
    }

    /// Whether the table's numbers were learned by training (see [`EmbeddingModel::table_kind`]).
    #[must_use]
    pub fn is_trained(&self) -> bool {
        self.table_kind().is_trained()
    }

    /// The family of model the tables come from (`Generated` for built-in tables).
    #[must_use]
    pub fn family(&self) -> ModelFamily {
        self.provenance.family
    }

    /// The family as a learner would look it up: the config's `model_type` (`mpnet`, not the
    /// BERT layout embedlens reads it as), else the layout's name; the layout's own spelling
    /// when the two agree (`BERT`, not `bert`).
    #[must_use]
    pub fn family_name(&self) -> String {
        let layout = self.family().name();
        match &self.provenance.model_type {
            Some(model_type) if !model_type.eq_ignore_ascii_case(layout) => model_type.clone(),
            _ => layout.to_owned(),
        }
    }

    /// Sentences saying which tables were found and why they were read that way.
    #[must_use]
    pub fn detection(&self) -> &[String] {
        &self.provenance.detection
    }

    /// What the model's embedding block outputs, the vector its first layer receives.
    #[must_use]
    pub fn block(&self) -> &EmbeddingBlock {
        &self.provenance.block
    }

    /// Sentences about anything in the file the learner should not take at face value.
    #[must_use]
    pub fn warnings(&self) -> &[String] {
        &self.provenance.warnings
    }

    /// The file or folder the model was opened from, if it was.
    #[must_use]
    pub fn source(&self) -> Option<&Path> {
        self.provenance.source.as_deref()
    }

    /// Whether the model was read from a GGUF file.
    #[must_use]
    pub fn is_gguf(&self) -> bool {
        self.provenance.gguf
    }

    /// Which learned position row the model reads for position 0 (2 for `RoBERTa`, else 0).
    #[must_use]
    pub fn position_offset(&self) -> usize {
        self.provenance.position_offset
    }

    /// How many rows (ids) the matrix has.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.token_table.rows()
    }

    /// How many numbers each vector has.
    #[must_use]
    pub fn dims(&self) -> usize {
        self.token_table.cols()
    }

    /// How many positions the learned table covers (0 without one).
    #[must_use]
    pub fn context_length(&self) -> usize {
        self.position_table.as_ref().map_or(0, Table::rows)
    }

    /// Whether every table can be read now (false while one is still being generated).
    #[must_use]
    pub fn is_ready(&self) -> bool {
        self.token_table.is_ready() && self.position_table.as_ref().is_none_or(Table::is_ready)
    }

    /// Blocks until every table can be read: what a printout needs before it reads rows.
    pub fn wait_until_ready(&self) {
        self.token_table.wait();
        if let Some(table) = &self.position_table {
            table.wait();
        }
    }

    /// The widest token text in terminal columns.
    #[must_use]
    pub fn widest_token(&self) -> usize {
        self.widest_token
    }

    /// The token text of an id, if the table has a tokenizer.
    #[must_use]
    pub fn token_text(&self, id: usize) -> Option<String> {
        self.tokenizer.as_ref().and_then(|t| t.token_text(id))
    }

    /// The embedding layer's whole job: the row whose number is the id.
    #[must_use]
    pub fn lookup(&self, id: usize) -> Option<Array1<f32>> {
        self.token_table.row(id)
    }

    /// A warning when row `id` holds NaN or infinite numbers, which are shown as they are.
    ///
    /// Only the row looked at is checked, so opening a file never reads the whole table.
    #[must_use]
    pub fn non_finite_warning(&self, id: usize) -> Option<String> {
        let row = self.lookup(id)?;
        non_finite_summary(row.view()).map(|found| {
            format!(
                "row {id} holds {found}; they are shown as they are, and every sum or distance \
                 built from them is NaN or infinite too"
            )
        })
    }

    /// What the model's own embedding block outputs for a looked-up token: its token vector
    /// with the model's learned position row for the token's position, whatever scheme the
    /// explorer is showing.
    ///
    /// `None` when the token has no row, or the block needs a position row the table lacks.
    #[must_use]
    pub fn model_embedding(&self, lookup: &TokenLookup) -> Option<Array1<f32>> {
        let token_vector = lookup.token_vector.as_ref()?;
        let row = match self.provenance.padding_id {
            // Where padding is counted out, the row depends on the tokens before; embed knows.
            Some(_) => return lookup.model_embedding.clone(),
            None => lookup.token.position.checked_add(self.position_offset())?,
        };
        self.block_output(token_vector, row)
    }

    /// A sentence for the screen when the model's learned position rows are not its positions:
    /// where they are counted from the padding id (`RoBERTa`, `MPNet`, ...) or shifted.
    #[must_use]
    pub fn position_rows_note(&self) -> Option<String> {
        let offset = self.position_offset();
        match self.provenance.padding_id {
            Some(padding) => Some(format!(
                "Its positions are counted from pad_token_id + 1: position p reads learned row \
                 p + {offset}, and a padding token (id {padding}) is not counted and reads row \
                 {padding}."
            )),
            None if offset > 0 => Some(format!(
                "Its positions are shifted: position p reads learned row p + {offset}."
            )),
            None => None,
        }
    }

    /// The learned position row the model itself reads for each token: its position plus the
    /// offset, or, where positions are counted from the padding id, the padding row for a
    /// padding token and `padding_id + n` for the n-th other token.
    #[must_use]
    pub fn model_position_rows(&self, tokens: &[Token]) -> Vec<Option<usize>> {
        let Some(padding) = self.provenance.padding_id else {
            return tokens
                .iter()
                .map(|token| token.position.checked_add(self.position_offset()))
                .collect();
        };
        // Counted from the token's position, less the padding tokens before it, so a token
        // looked up alone keeps its position.
        let mut padding_before = 0usize;
        tokens
            .iter()
            .map(|token| {
                if token.id == Some(padding) {
                    padding_before += 1;
                    Some(padding)
                } else {
                    (token.position + 1)
                        .checked_sub(padding_before)?
                        .checked_add(padding)
                }
            })
            .collect()
    }

    fn block_output(&self, token_vector: &Array1<f32>, row: usize) -> Option<Array1<f32>> {
        let block = self.block();
        let learned_position = if block.uses_position_row() {
            self.position_table
                .as_ref()
                .and_then(|table| table.row(row))
        } else {
            None
        };
        block.output(token_vector, learned_position.as_ref())
    }

    /// Tokenises text with the tokenizer, special tokens included.
    ///
    /// # Errors
    /// When the table has no tokenizer, so only ids can address it.
    pub fn tokenize(&self, text: &str) -> Result<Vec<Token>> {
        self.tokenize_with(text, true)
    }

    /// Tokenises text, with or without the special tokens the tokenizer adds.
    ///
    /// # Errors
    /// When the table has no tokenizer, so only ids can address it, or the tokenizer fails.
    pub fn tokenize_with(&self, text: &str, special_tokens: bool) -> Result<Vec<Token>> {
        match &self.tokenizer {
            Some(tokenizer) => tokenizer.tokenize(text, special_tokens),
            None => bail!(self.no_text_message()),
        }
    }

    /// Tokens for ids given directly, named by the tokenizer where there is one.
    ///
    /// # Errors
    /// When an id has no row.
    pub fn tokens_from_ids(&self, ids: &[usize]) -> Result<Vec<Token>> {
        ids.iter()
            .enumerate()
            .map(|(position, &id)| {
                if id >= self.rows() {
                    bail!(
                        "id {id} has no row: the {} table has {} rows (ids 0 to {})",
                        self.label,
                        self.rows(),
                        self.rows().saturating_sub(1)
                    );
                }
                let text = self.token_text(id).unwrap_or_else(|| format!("#{id}"));
                Ok(Token {
                    text,
                    span: 0..0,
                    position,
                    id: Some(id),
                    special: false,
                    unknown: false,
                })
            })
            .collect()
    }

    /// The position vector the scheme adds at a position.
    #[must_use]
    pub fn position_vector(&self, scheme: PositionScheme, position: usize) -> PositionVector {
        position_vector(scheme, self.position_table.as_ref(), self.dims(), position)
    }

    /// Looks up every token and adds its position vector.
    #[must_use]
    pub fn embed(&self, tokens: &[Token], scheme: PositionScheme) -> Vec<TokenLookup> {
        let model_rows = self.model_position_rows(tokens);
        tokens
            .iter()
            .zip(model_rows)
            .map(|(token, model_row)| {
                let token_vector = token.id.and_then(|id| self.lookup(id));
                let position = match token_vector {
                    Some(_) => self.position_vector(scheme, token.position),
                    None => PositionVector::Absent,
                };
                let input_vector = match (&token_vector, &position) {
                    (Some(vector), PositionVector::Added(added)) => Some(vector + added),
                    (Some(vector), PositionVector::Absent | PositionVector::InAttention(_)) => {
                        Some(vector.clone())
                    }
                    _ => None,
                };
                let model_embedding = token_vector
                    .as_ref()
                    .zip(model_row)
                    .and_then(|(vector, row)| self.block_output(vector, row));
                TokenLookup {
                    token: token.clone(),
                    token_vector,
                    position,
                    input_vector,
                    model_embedding,
                }
            })
            .collect()
    }
}

/// One token's trip through the embedding layer.
#[derive(Clone, Debug, PartialEq)]
pub struct TokenLookup {
    /// The token looked up.
    pub token: Token,
    /// The row its id selected, or `None` when it has no row.
    pub token_vector: Option<Array1<f32>>,
    /// What the position scheme adds at its position.
    pub position: PositionVector,
    /// Token vector plus position vector: what self-attention would receive.
    pub input_vector: Option<Array1<f32>>,
    /// What the model's own embedding block outputs here (its learned positions, its
    /// `LayerNorm`), whatever scheme is shown; see [`EmbeddingModel::model_embedding`].
    pub model_embedding: Option<Array1<f32>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::analysis::metrics::euclidean_distance;

    use ndarray::ArrayView1;

    #[test]
    fn a_seeded_position_table_is_learnable_never_learned() {
        let seeded = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED).table_kind();
        let phrase = seeded.position_table();
        assert!(phrase.contains("learnable"), "{phrase}");
        assert!(phrase.contains("randomly initialised"), "{phrase}");
        assert!(
            !phrase.contains("learned") && !phrase.contains("trained"),
            "{phrase}"
        );
        let trained = EmbeddingModel::builtin(VocabKind::Trained, DEFAULT_SEED).table_kind();
        assert_eq!(trained.position_table(), "learned position table");
    }

    fn four_decimals(v: ArrayView1<f32>) -> String {
        v.iter()
            .map(|x| format!("{x:.4}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn lookup_returns_the_row() {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        assert_eq!(
            (model.rows(), model.dims(), model.context_length()),
            (6, 3, 16)
        );
        assert_eq!(
            four_decimals(model.lookup(5).unwrap().view()),
            "-2.8400 -0.7849 -1.4096"
        );
        assert_eq!(model.lookup(6), None);
    }

    #[test]
    fn the_same_id_gives_the_same_vector_at_any_position() {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        let tokens = model.tokenize("fox bites the fox").unwrap();
        let lookups = model.embed(&tokens, PositionScheme::None);
        assert_eq!(lookups[0].token_vector, lookups[3].token_vector);
        assert_eq!(lookups[0].input_vector, lookups[3].input_vector);
        assert_eq!(
            four_decimals(lookups[3].token_vector.as_ref().unwrap().view()),
            "1.2753 -0.2010 -0.1606"
        );
    }

    #[test]
    fn positions_pull_the_copies_apart() {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        let tokens = model.tokenize("fox bites the fox").unwrap();
        for scheme in [PositionScheme::Learned, PositionScheme::Sinusoidal] {
            let lookups = model.embed(&tokens, scheme);
            assert_eq!(lookups[0].token_vector, lookups[3].token_vector);
            let first = lookups[0].input_vector.as_ref().unwrap();
            let second = lookups[3].input_vector.as_ref().unwrap();
            assert!(
                euclidean_distance(first.view(), second.view()) > 0.1,
                "{scheme}"
            );
            let expected =
                lookups[3].token_vector.as_ref().unwrap() + &lookups[3].position.vector().unwrap();
            assert_eq!(second, &expected);
        }
    }

    #[test]
    fn learned_position_table_is_the_next_layer_drawn() {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        // Row 0 of manual_seed(123); Embedding(6,3); Embedding(16,3), from the reference file.
        assert_eq!(
            model
                .position_table()
                .unwrap()
                .row(0)
                .unwrap()
                .iter()
                .map(|v| v.to_bits())
                .collect::<Vec<_>>(),
            [3_221_786_473, 1_065_792_425, 3_200_706_369]
        );
    }

    #[test]
    fn positions_past_the_learned_table_are_flagged() {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        let text = ["the"; 17].join(" ");
        let lookups = model.embed(&model.tokenize(&text).unwrap(), PositionScheme::Learned);
        assert_eq!(
            lookups[16].position.warning().as_deref(),
            Some("position 16 is beyond the context length 16")
        );
        assert_eq!(lookups[16].input_vector, None);
        assert!(lookups[15].input_vector.is_some());
    }

    #[test]
    fn words_without_a_row_have_no_vectors() {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        let lookups = model.embed(&model.tokenize("the cat").unwrap(), PositionScheme::Learned);
        assert_eq!(lookups[1].token.id, None);
        assert_eq!(lookups[1].token_vector, None);
        assert_eq!(lookups[1].position, PositionVector::Absent);
        assert_eq!(lookups[1].input_vector, None);
    }

    #[test]
    fn shaped_tables_take_ids_only() {
        let model = EmbeddingModel::shaped(6, 3, 16, DEFAULT_SEED).unwrap();
        assert_eq!(
            model.token_table(),
            EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED).token_table()
        );
        assert!(model.tokenize("fox").is_err());
        let tokens = model.tokens_from_ids(&[3, 1, 4]).unwrap();
        assert_eq!(tokens[2].text, "#4");
        let error = model.tokens_from_ids(&[6]).unwrap_err().to_string();
        assert!(error.contains("id 6 has no row"), "{error}");
        assert!(EmbeddingModel::shaped(0, 3, 16, 1).is_err());
    }

    #[test]
    fn shapes_beyond_the_limit_are_refused_without_overflow() {
        for (rows, dims, context_length) in [
            (100_000_000, 100_000_000, 16),
            (4_294_967_296, 4_294_967_297, 16),
            (usize::MAX, usize::MAX, usize::MAX),
            (6, 3, 1 << 40),
            (MAX_GENERATED_VALUES, 1, 1),
        ] {
            let error = EmbeddingModel::shaped(rows, dims, context_length, 1)
                .expect_err("too large")
                .to_string();
            assert!(
                error.contains("at most 268435456"),
                "{rows}x{dims}, {context_length}: {error}"
            );
        }
        let error = EmbeddingModel::shaped(100_000_000, 100_000_000, 16, 1)
            .expect_err("too large")
            .to_string();
        assert!(error.contains("(40 PB)"), "{error}");
        // Exactly at the limit is allowed (checked without making it: 1 GiB).
        check_generated_size(MAX_GENERATED_VALUES - 16, 1, 16).expect("at the limit");
    }

    #[test]
    fn built_in_tables_are_generated_and_their_block_sums_token_and_position() {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        assert_eq!(model.family(), ModelFamily::Generated);
        assert_eq!(model.block(), &EmbeddingBlock::Sum);
        assert!(model.detection().is_empty() && model.warnings().is_empty());
        assert_eq!((model.source(), model.position_offset()), (None, 0));
        // The model's own block uses its learned rows whatever scheme is on screen.
        let lookups = model.embed(&model.tokenize("fox bites").unwrap(), PositionScheme::None);
        let expected = lookups[1].token_vector.as_ref().unwrap()
            + &model.position_table().unwrap().row(1).unwrap();
        assert_eq!(lookups[1].model_embedding.as_ref(), Some(&expected));
        assert_eq!(model.model_embedding(&lookups[1]), Some(expected));
        assert_eq!(model.non_finite_warning(0), None);
    }

    #[test]
    fn generated_tables_are_random_and_say_their_seed() {
        let seeded = EmbeddingModel::builtin(VocabKind::Words, 7);
        assert_eq!(seeded.table_kind(), TableKind::Random { seed: 7 });
        assert!(!seeded.is_trained());
        assert!(!EmbeddingModel::shaped(2, 2, 2, 1).unwrap().is_trained());
        let table = Table::from(ndarray::Array2::<f32>::zeros((2, 2)));
        let from_file = EmbeddingModel::new("file", None, table, None);
        assert_eq!(from_file.table_kind(), TableKind::Trained);
    }

    #[test]
    fn the_seed_changes_every_table() {
        let a = EmbeddingModel::builtin(VocabKind::Words, 1);
        let b = EmbeddingModel::builtin(VocabKind::Words, 2);
        assert_ne!(a.token_table(), b.token_table());
        assert_eq!(a.dims(), 8);
        assert_eq!(a.context_length(), 64);
    }
}
