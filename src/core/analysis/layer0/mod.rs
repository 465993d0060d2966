//! The checkpoint's own first attention layer, every head, computed as Hugging Face
//! `transformers` computes it — with the model's position information, or without it.
//!
//! - BERT-style: the embedding block's `LayerNorm` output → query, key and value layers with
//!   bias → each head's scaled dot product → softmax, no mask ([`bert`]);
//! - GPT-2: token + position → `ln_1` → `c_attn` split into query, key and value → heads under
//!   the causal mask ([`gpt2`]);
//! - Llama-style (Llama, Mistral, Qwen2, Qwen3, Gemma 1–3, `StableLM`, Phi):
//!   `input_layernorm` → q/k/v projections (Qwen3 and Gemma 3: a norm of each query and key
//!   head; Gemma 2 and 3's other details in [`gemma`]) → `RoPE`
//!   (partial where the config says so) → grouped-query heads under the causal mask
//!   ([`rotary`]).
//!
//! The tensors come from any [`source::TensorSource`]: a safetensors checkpoint, or a GGUF
//! file read under the same names (`crate::core::files`), whose conversion the layer
//! undoes in its arithmetic ([`source::Conversion`]). The projections' rows and the heads are
//! shared between long-lived worker threads (`workers`).
//!
//! "Without positions" means no learned position row for BERT and GPT-2, and no rotation for
//! `RoPE` models. Every sum over tokens is taken in an order that does not depend on where the
//! tokens stand, so for BERT a reordered sentence without positions gives each token the
//! same output, bit for bit ([`crate::core::explain::claim`] says so in words).

pub mod bert;
pub mod gemma;
pub mod gpt2;
pub mod heads;
pub mod input;
pub mod limit;
pub mod linear;
pub mod norm;
pub mod rope;
pub mod rotary;
pub mod source;
mod workers;

use std::fmt;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use ndarray::Array2;

use crate::core::tables::table::Table;
use heads::{HeadLayout, HeadResult, Scoring, attend};
use input::InputStage;
use linear::Linear;
use norm::HeadNorms;
use rope::Rope;
use source::{Settings, TensorSource};

pub use limit::{MAX_LAYER0_TOKENS, ModelContext, TokenLimit};

/// The layout of a checkpoint's layer 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Architecture {
    /// BERT, `RoBERTa` and relatives: bidirectional, learned positions in the embedding block.
    Bert,
    /// GPT-2: causal, learned positions added before `ln_1`.
    Gpt2,
    /// Llama-style: causal, positions as a rotation of queries and keys.
    Rotary,
}

impl Architecture {
    /// The name used on screen and in JSON.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Bert => "BERT-style",
            Self::Gpt2 => "GPT-2",
            Self::Rotary => "Llama-style",
        }
    }
}

impl fmt::Display for Architecture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a model's own layer 0 cannot be computed, so the seeded head stands in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unavailable {
    /// The file holds no first attention layer of a layout embedlens knows.
    NoLayer0,
    /// The layer is there, but without `config.json` the number of heads is unknown.
    NoConfig(Architecture),
    /// `config.json` names a model type whose layer 0 differs in a way not implemented.
    ModelType {
        /// The layout its tensor names suggest.
        architecture: Architecture,
        /// `model_type`, or `None` when the config gives none.
        model_type: Option<String>,
    },
    /// A setting this implementation does not apply (such as a kind of `rope_scaling`).
    Setting {
        /// The setting's name in `config.json` (or the tensor's, for one that acts as a setting).
        name: String,
        /// Its value.
        value: String,
    },
    /// A GGUF file of an architecture whose names and settings embedlens does not map (or
    /// none named in `general.architecture`).
    GgufArchitecture(Option<String>),
    /// The tensors or settings are malformed; the message names the problem.
    Invalid(String),
}

/// The GGUF architectures whose layer 0 embedlens reads, for messages.
pub const GGUF_ARCHITECTURES: &str =
    "bert, gpt2, llama, qwen2, qwen3, stablelm, gemma, gemma2 and gemma3";

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoLayer0 => f.write_str(
                "the file holds no first attention layer of a BERT, GPT-2 or Llama-style model",
            ),
            Self::NoConfig(architecture) => write!(
                f,
                "the {architecture} layer 0 is there, but without config.json its number of \
                 heads is unknown"
            ),
            Self::ModelType {
                architecture,
                model_type: Some(model_type),
            } => write!(
                f,
                "model_type {model_type}: its first attention layer differs from the \
                 {architecture} layer embedlens computes"
            ),
            Self::ModelType {
                architecture,
                model_type: None,
            } => write!(
                f,
                "config.json gives no model_type, so which {architecture} model this is is unknown"
            ),
            Self::Setting { name, value } => {
                write!(f, "{name} is {value}, which embedlens does not apply")
            }
            Self::GgufArchitecture(Some(name)) => write!(
                f,
                "general.architecture {name}: embedlens reads the first attention layer of \
                 GGUF files of the {GGUF_ARCHITECTURES} architectures only"
            ),
            Self::GgufArchitecture(None) => f.write_str(
                "the GGUF file names no general.architecture, so its layer 0 is unknown",
            ),
            Self::Invalid(message) => f.write_str(message),
        }
    }
}

impl From<anyhow::Error> for Unavailable {
    fn from(error: anyhow::Error) -> Self {
        Self::Invalid(format!("{error:#}"))
    }
}

/// A checkpoint's first attention layer, its weights read in place.
#[derive(Clone, Debug)]
pub struct Layer0 {
    architecture: Architecture,
    model_type: Option<String>,
    input: InputStage,
    query: Linear,
    key: Linear,
    value: Linear,
    layout: HeadLayout,
    head_norms: Option<HeadNorms>,
    rope: Option<Rope>,
    causal: bool,
    scoring: Scoring,
    limit: TokenLimit,
    notes: Vec<String>,
}

/// How long each stage of [`Layer0::run_timed`] took.
#[derive(Clone, Copy, Debug, Default)]
pub struct StageTimes {
    /// The input vectors: the rows looked up, positions added, the input norm applied.
    pub norm: Duration,
    /// The query, key and value projections, with the heads' norms and RoPE's rotation.
    pub projections: Duration,
    /// Every head's scores, weights and context, gathered into the outputs.
    pub heads: Duration,
}

/// Layer 0 run over one sentence.
#[derive(Clone, Debug, PartialEq)]
pub struct Layer0Run {
    /// Whether the model's position information was used.
    pub with_positions: bool,
    /// The token ids, in order.
    pub ids: Vec<usize>,
    /// What the query, key and value layers read (`tokens × hidden`).
    pub inputs: Array2<f32>,
    /// Every head's weights and context, in head order.
    pub heads: Vec<HeadResult>,
    /// Each token's output: all heads' contexts side by side (`tokens × heads·head_dims`),
    /// before the output projection — what the self-attention module returns.
    pub outputs: Array2<f32>,
}

/// Finds and reads layer 0 of a checkpoint, or says why it cannot.
///
/// # Errors
/// [`Unavailable`], with the reason the seeded head stands in.
pub fn load(source: &dyn TensorSource, settings: Option<&Settings>) -> Result<Layer0, Unavailable> {
    let names = source.names();
    let prefix_of = |suffix: &str| {
        names
            .iter()
            .filter_map(|name| name.strip_suffix(suffix))
            .min_by_key(|prefix| prefix.len())
            .map(str::to_owned)
    };
    if let Some(prefix) = prefix_of(bert::QUERY_SUFFIX) {
        return bert::load(source, require(settings, Architecture::Bert)?, &prefix);
    }
    if let Some(prefix) = prefix_of(gpt2::ATTENTION_SUFFIX) {
        return gpt2::load(source, require(settings, Architecture::Gpt2)?, &prefix);
    }
    if let Some(prefix) = prefix_of(rotary::QUERY_SUFFIX) {
        return rotary::load(source, require(settings, Architecture::Rotary)?, &prefix);
    }
    Err(Unavailable::NoLayer0)
}

fn require(
    settings: Option<&Settings>,
    architecture: Architecture,
) -> Result<&Settings, Unavailable> {
    settings.ok_or(Unavailable::NoConfig(architecture))
}

impl Layer0 {
    /// The layout.
    #[must_use]
    pub fn architecture(&self) -> Architecture {
        self.architecture
    }

    /// `model_type` from `config.json`.
    #[must_use]
    pub fn model_type(&self) -> Option<&str> {
        self.model_type.as_deref()
    }

    /// Query heads.
    #[must_use]
    pub fn heads(&self) -> usize {
        self.layout.heads
    }

    /// Key/value heads (fewer than query heads when queries are grouped).
    #[must_use]
    pub fn kv_heads(&self) -> usize {
        self.layout.kv_heads
    }

    /// Numbers per head.
    #[must_use]
    pub fn head_dims(&self) -> usize {
        self.layout.head_dims
    }

    /// Whether each token sees only itself and the tokens before it.
    #[must_use]
    pub fn is_causal(&self) -> bool {
        self.causal
    }

    /// The rotation of queries and keys, for `RoPE` models.
    #[must_use]
    pub fn rope(&self) -> Option<&Rope> {
        self.rope.as_ref()
    }

    /// The most tokens layer 0 is computed for, and why.
    #[must_use]
    pub fn token_limit(&self) -> TokenLimit {
        self.limit
    }

    /// Sentences saying what was read and from where (settings, defaults taken).
    #[must_use]
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Runs layer 0 over the token ids, with or without the model's position information.
    ///
    /// # Errors
    /// When there are no tokens, more than [`Layer0::token_limit`], or an id has no row.
    pub fn run(&self, ids: &[usize], with_positions: bool) -> Result<Layer0Run> {
        self.run_timed(ids, with_positions).map(|(run, _)| run)
    }

    /// [`Layer0::run`], with the time each stage took (what `attention --timings` prints).
    ///
    /// # Errors
    /// As [`Layer0::run`].
    ///
    /// # Panics
    /// Never: the arrays it slices are made here with the widths it slices them by.
    pub fn run_timed(
        &self,
        ids: &[usize],
        with_positions: bool,
    ) -> Result<(Layer0Run, StageTimes)> {
        if ids.is_empty() {
            bail!("layer 0 needs at least one token");
        }
        if let Some(refusal) = self.limit.refusal(ids.len()) {
            bail!(refusal);
        }
        let rows = self.input.token_table().rows();
        if let Some(&id) = ids.iter().find(|&&id| id >= rows) {
            bail!("id {id} has no row: the token table has {rows} rows");
        }
        let started = Instant::now();
        let Some(inputs) = self.input.vectors(ids, with_positions) else {
            bail!("a position past the model's position table");
        };
        let norm = started.elapsed();
        let started = Instant::now();
        let flat = inputs.as_slice().expect("a fresh array is contiguous");
        // The vectors of the last run on this thread, refilled (given back below).
        let mut projected = PROJECTED.take();
        linear::apply_all_into([&self.query, &self.key, &self.value], flat, &mut projected);
        let [queries, keys, values] = &mut projected;
        if let Some(norms) = &self.head_norms {
            norms.apply(queries, true);
            norms.apply(keys, false);
        }
        if let (Some(rope), true) = (&self.rope, with_positions) {
            let dims = self.layout.head_dims;
            for (position, vector) in queries
                .chunks_exact_mut(self.layout.query_width())
                .enumerate()
            {
                rope.rotate_heads(vector, dims, position);
            }
            for (position, vector) in keys.chunks_exact_mut(self.layout.kv_width()).enumerate() {
                rope.rotate_heads(vector, dims, position);
            }
        }
        let projections = started.elapsed();
        let started = Instant::now();
        let heads = attend(
            queries,
            keys,
            values,
            ids.len(),
            self.layout,
            self.causal,
            self.scoring,
        );
        let dims = self.layout.head_dims;
        let mut outputs = Array2::zeros((ids.len(), self.layout.query_width()));
        for (head, result) in heads.iter().enumerate() {
            outputs
                .slice_mut(ndarray::s![.., head * dims..(head + 1) * dims])
                .assign(&result.context);
        }
        PROJECTED.set(projected);
        let times = StageTimes {
            norm,
            projections,
            heads: started.elapsed(),
        };
        let run = Layer0Run {
            with_positions,
            ids: ids.to_vec(),
            inputs,
            heads,
            outputs,
        };
        Ok((run, times))
    }

    /// Every query head's score between two copies of the token `id`, a key `distance`
    /// tokens before the query, for each distance in `0..distances`: `scores[head][distance]`.
    ///
    /// With the model's rotation the query is turned by `distance` and the key by 0, which
    /// `RoPE` makes the same as any two positions that far apart; without it every distance
    /// gives the same score. `None` for models without `RoPE` or an id without a row.
    #[must_use]
    pub fn copy_scores(
        &self,
        id: usize,
        distances: usize,
        with_positions: bool,
    ) -> Option<Vec<Vec<f64>>> {
        let rope = self.rope.as_ref()?;
        let inputs = self.input.vectors(&[id], false)?;
        let flat = inputs.as_slice()?;
        let dims = self.layout.head_dims;
        let mut query = self.query.apply(flat);
        let mut key = self.key.apply(flat);
        if let Some(norms) = &self.head_norms {
            norms.apply(&mut query, true);
            norms.apply(&mut key, false);
        }
        let scores = (0..self.layout.heads)
            .map(|head| {
                let query = &query[head * dims..(head + 1) * dims];
                let kv = self.layout.kv_head_of(head);
                let key = &key[kv * dims..(kv + 1) * dims];
                (0..distances)
                    .map(|distance| {
                        let mut rotated = query.to_vec();
                        if with_positions {
                            rope.rotate(&mut rotated, distance);
                        }
                        self.scoring.score(heads::exact_dot(&rotated, key))
                    })
                    .collect()
            })
            .collect();
        Some(scores)
    }

    /// Rows of the token table: ids from 0 to one less have a row.
    #[must_use]
    pub fn token_rows(&self) -> usize {
        self.input.token_table().rows()
    }

    /// Numbers in each token vector the layer reads.
    #[must_use]
    pub fn hidden(&self) -> usize {
        self.input.token_table().cols()
    }

    /// Multiply-adds of the query, key and value projections for `tokens` tokens: the bulk of
    /// the layer's work, which decides whether it runs off the key path.
    #[must_use]
    pub fn projection_work(&self, tokens: usize) -> usize {
        let widths = self.layout.query_width() + 2 * self.layout.kv_width();
        tokens.saturating_mul(self.hidden()).saturating_mul(widths)
    }
}

/// The parts a family's loader hands to [`Layer0`].
pub(crate) struct Parts {
    architecture: Architecture,
    model_type: Option<String>,
    input: InputStage,
    projections: [Linear; 3],
    layout: HeadLayout,
    head_norms: Option<HeadNorms>,
    rope: Option<Rope>,
    causal: bool,
    scoring: Scoring,
    /// The most tokens the model itself reads.
    context: ModelContext,
    notes: Vec<String>,
}

impl Parts {
    /// Checks that the parts fit together and makes the layer.
    fn build(self) -> Result<Layer0, Unavailable> {
        let [query, key, value] = self.projections;
        let hidden = self.input.token_table().cols();
        let layout = self.layout;
        if layout.heads == 0 || layout.kv_heads == 0 || layout.head_dims == 0 {
            return Err(Unavailable::Invalid("a layer with no heads".to_owned()));
        }
        if !layout.heads.is_multiple_of(layout.kv_heads) {
            return Err(Unavailable::Invalid(format!(
                "{} query heads cannot share {} key/value heads evenly",
                layout.heads, layout.kv_heads
            )));
        }
        let widths = [
            (
                query.inputs(),
                query.outputs(),
                layout.query_width(),
                "query",
            ),
            (key.inputs(), key.outputs(), layout.kv_width(), "key"),
            (value.inputs(), value.outputs(), layout.kv_width(), "value"),
        ];
        for (inputs, outputs, expected, name) in widths {
            if inputs != hidden || outputs != expected {
                return Err(Unavailable::Invalid(format!(
                    "the {name} layer maps {inputs} numbers to {outputs}; with {hidden}-wide \
                     token vectors and {} heads of {} it should map {hidden} to {expected}",
                    if name == "query" {
                        layout.heads
                    } else {
                        layout.kv_heads
                    },
                    layout.head_dims
                )));
            }
        }
        let limit = TokenLimit::new(self.context, layout.heads);
        let mut notes = self.notes;
        if !matches!(
            limit.bound(),
            limit::Bound::Model(
                ModelContext::PositionRows(_) | ModelContext::Stated(_) | ModelContext::Unstated
            )
        ) {
            notes.push(limit.note());
        }
        Ok(Layer0 {
            architecture: self.architecture,
            model_type: self.model_type,
            input: self.input,
            query,
            key,
            value,
            layout,
            head_norms: self.head_norms,
            rope: self.rope,
            causal: self.causal,
            scoring: self.scoring,
            limit,
            notes,
        })
    }
}

/// `1 / sqrt(width)`, the usual score scale.
fn inverse_sqrt(width: usize) -> f64 {
    #[expect(clippy::cast_precision_loss, reason = "widths are far below 2^52")]
    let width = width as f64;
    1.0 / width.sqrt()
}

/// The token table `name`, which must stand beside `beside` (the tensor that marked the
/// family): its numbers and its width.
fn token_table(
    source: &dyn TensorSource,
    name: &str,
    beside: &str,
) -> Result<(Table, usize), Unavailable> {
    let shape = source
        .shape(name)
        .ok_or_else(|| Unavailable::Invalid(format!("no {name} beside {beside}")))?;
    let [rows, hidden] = shape.shape[..] else {
        return Err(Unavailable::Invalid(format!(
            "{name} is not two-dimensional"
        )));
    };
    Ok((source::matrix(source, name, rows, hidden)?, hidden))
}

/// A small positive `eps` from the settings, or the family's default.
fn epsilon(settings: &Settings, keys: &[&str], default: f64) -> Result<(f64, String)> {
    Ok(match settings.epsilon(keys)? {
        Some(eps) => (eps, format!("{} {eps:e} ({})", keys[0], settings.origin())),
        None => (default, format!("{} {default:e} (the default)", keys[0])),
    })
}

thread_local! {
    /// The query, key and value vectors of the last [`Layer0::run_timed`] on this thread,
    /// whose memory the next run fills again: fresh memory each run cost the projections a
    /// page fault every 4 KiB (perf). What they hold is written before it is read.
    static PROJECTED: std::cell::Cell<[Vec<f32>; 3]> = std::cell::Cell::default();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::files::{FileSource, OpenOptions, open};

    fn llama() -> Layer0 {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/layer0/llama_gqa_bf16");
        open(&FileSource::path(&folder), &OpenOptions::default())
            .map(|opened| opened.layer0)
            .unwrap()
            .unwrap()
    }

    #[expect(clippy::float_cmp, reason = "the same arithmetic gives the same bits")]
    #[test]
    fn copy_scores_are_the_scores_the_layer_itself_computes_for_two_copies() {
        let layer = llama();
        let id = 5;
        let rotated = layer.copy_scores(id, 4, true).unwrap();
        let plain = layer.copy_scores(id, 4, false).unwrap();
        assert_eq!(rotated.len(), layer.heads());
        // The word, then two other tokens, then the word again: three tokens apart.
        let run = layer.run(&[id, 1, 2, id], true).unwrap();
        let still = layer.run(&[id, 1, 2, id], false).unwrap();
        for head in 0..layer.heads() {
            let (turned, flat) = (&rotated[head], &plain[head]);
            // Distance 0 turns nothing; without the rotation no distance changes the score.
            assert_eq!(turned[0], flat[0]);
            assert!(flat.iter().all(|&score| score == flat[0]), "{flat:?}");
            // The layer's own score of the second copy's query against the first copy's key.
            assert_eq!(run.heads[head].scores[[3, 0]], turned[3]);
            assert_eq!(still.heads[head].scores[[3, 0]], flat[0]);
            // RoPE: only the distance matters (up to float32 rounding of the rotations).
            let at_3 = run.heads[head].scores[[3, 3]];
            assert!((at_3 - turned[0]).abs() <= 1e-5 * turned[0].abs().max(1.0));
            // The causal mask hides the later copy from the first.
            assert_eq!(run.heads[head].scores[[0, 3]], f64::NEG_INFINITY);
        }
        assert!(
            rotated.iter().any(|scores| scores[3] != scores[0]),
            "the rotation changes some head's score with distance"
        );
    }

    #[test]
    fn copy_scores_need_rope_and_a_row() {
        let layer = llama();
        let rows = layer.input.token_table().rows();
        assert!(layer.copy_scores(rows, 2, true).is_none());
        let bert = open(
            &FileSource::path(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/layer0/bert"),
            ),
            &OpenOptions::default(),
        )
        .map(|opened| opened.layer0)
        .unwrap()
        .unwrap();
        assert!(bert.copy_scores(1, 2, true).is_none());
    }

    #[test]
    fn bert_style_positions_count_from_the_padding_token_where_model_file_says_so() {
        let folder =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/layer0/bert");
        let bytes = std::fs::read(folder.join("model.safetensors")).unwrap();
        let source = source::SafetensorsBytes::new("bert", std::sync::Arc::new(bytes)).unwrap();
        let config = std::fs::read_to_string(folder.join("config.json")).unwrap();
        let with_type = |model_type: &str| {
            let text = config
                .replace(
                    "\"model_type\": \"bert\"",
                    &format!("\"model_type\": \"{model_type}\""),
                )
                .replace("\"pad_token_id\": 0", "\"pad_token_id\": 1");
            load(&source, Some(&Settings::parse(&text).unwrap())).unwrap()
        };
        // The fixture's table has 24 rows; MPNet (as RoBERTa) starts at row pad + 1 = 2.
        assert_eq!(with_type("bert").token_limit().tokens(), 24);
        assert_eq!(with_type("mpnet").token_limit().tokens(), 22);
        assert_eq!(with_type("roberta").token_limit().tokens(), 22);
        let ids = [4, 5, 6];
        assert_ne!(
            with_type("bert").run(&ids, true).unwrap().outputs,
            with_type("mpnet").run(&ids, true).unwrap().outputs
        );
        assert_eq!(
            with_type("bert").run(&ids, false).unwrap().outputs,
            with_type("mpnet").run(&ids, false).unwrap().outputs,
            "without positions the offset changes nothing"
        );
    }
}
