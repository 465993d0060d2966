//! The embedding matrix and its lookup: an id is the address of a row.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use anyhow::{Result, bail};
use ndarray::Array1;

use crate::core::tables::block::{EmbeddingBlock, ModelFamily, non_finite_summary};
use crate::core::tables::positional::{PositionScheme, PositionVector, position_vector};
use crate::core::tables::table::Table;
use crate::core::tables::torch_init::TorchGenerator;
use crate::core::tables::trained;
use crate::core::text::tokenizer::{Readiness, TextTokenizer};
use crate::core::text::vocabulary::{Token, VocabKind, Vocabulary};

mod provenance;

pub use provenance::{Provenance, TableKind};

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

/// What a pane shows for an id's name while the tokenizer's names are still being read.
pub const NAMES_PENDING: &str = "reading…";

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
    provenance: Provenance,
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
        Self {
            label: label.into(),
            tokenizer,
            tokenizer_missing: None,
            token_table,
            position_table,
            seed: None,
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

    /// Why the model's own tokenizer cannot read text, when its files describe one: it could
    /// not be read, or its reader of text could not be built (known once a build was tried).
    #[must_use]
    pub fn text_unreadable(&self) -> Option<&str> {
        let failed = match self.tokenizer_readiness() {
            Some(Readiness::Failed(why)) => Some(why),
            _ => None,
        };
        self.tokenizer_missing.as_deref().or(failed)
    }

    /// Why text cannot be read: the reason, when the model's files describe a tokenizer that
    /// could not be read (or its reader of text could not be built), and what to give instead.
    #[must_use]
    pub fn no_text_message(&self) -> String {
        match self.text_unreadable() {
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

    /// What the explorer says when it reads typed text as token ids because the model's own
    /// tokenizer cannot read text: why, and what to give instead.
    #[must_use]
    pub fn ids_only_note(&self) -> Option<String> {
        self.text_unreadable()
            .map(|why| format!("Read as token ids: {why}; {TOKENIZER_HINT}."))
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

    /// The widest token text in terminal columns, counted up to
    /// [`crate::core::text::tokenizer::WIDEST_COUNTED`].
    #[must_use]
    pub fn widest_token(&self) -> usize {
        self.tokenizer
            .as_ref()
            .map_or(0, TextTokenizer::widest_token)
    }

    /// Whether text can be read with the model's tokenizer: it has one, and its reader of text
    /// is built (built now, waiting for it, if it is not yet).
    #[must_use]
    pub fn reads_text(&self) -> bool {
        self.tokenizer
            .as_ref()
            .is_some_and(|tokenizer| tokenizer.prepare().is_ok())
    }

    /// Starts building the tokenizer's reader of text on another thread, if it is waiting to
    /// be built, so that the explorer draws at once and typing finds it ready.
    pub fn prepare_tokenizer_in_background(&self) {
        let pending = self
            .tokenizer
            .clone()
            .filter(|tokenizer| tokenizer.readiness() == Readiness::Pending);
        if let Some(tokenizer) = pending {
            std::thread::spawn(move || {
                // A failure is kept with the tokenizer, and said where text would be read.
                let _ = tokenizer.prepare();
            });
        }
    }

    /// Whether the tokenizer's reader of text is still being built (never waits).
    #[must_use]
    pub fn text_pending(&self) -> bool {
        self.tokenizer_readiness() == Some(Readiness::Pending)
    }

    /// Where the tokenizer's reader of text is, without waiting: `None` for a table without a
    /// tokenizer.
    #[must_use]
    pub fn tokenizer_readiness(&self) -> Option<Readiness<'_>> {
        self.tokenizer.as_ref().map(TextTokenizer::readiness)
    }

    /// The token text of an id, if the table has a tokenizer (names read later are read now:
    /// see [`Self::names_pending`]).
    #[must_use]
    pub fn token_text(&self, id: usize) -> Option<String> {
        self.tokenizer.as_ref().and_then(|t| t.token_text(id))
    }

    /// Whether the tokenizer's names are still to be read (on its worker, after the first
    /// frame): a pane drawn meanwhile shows [`NAMES_PENDING`] rather than wait. Never waits.
    #[must_use]
    pub fn names_pending(&self) -> bool {
        self.tokenizer
            .as_ref()
            .is_some_and(|tokenizer| !tokenizer.names_read())
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
            Some(tokenizer) if tokenizer.prepare().is_ok() => {
                tokenizer.tokenize(text, special_tokens)
            }
            _ => bail!(self.no_text_message()),
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
mod tests;
