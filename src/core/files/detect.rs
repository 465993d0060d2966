//! Deciding which tensors are the embedding tables, by the names real checkpoints use.

use anyhow::{Result, anyhow, bail};

use super::safetensors::TensorEntry;
use super::safetensors::checkpoint::{Checkpoint, Config};
use super::{DEFAULT_LAYER_NORM_EPS, OpenOptions};
use crate::core::tables::block::ModelFamily;
use crate::core::tables::table::shape_text;

/// Token-table names real checkpoints use, with the family each belongs to.
const KNOWN_TOKEN_NAMES: [(&str, ModelFamily); 6] = [
    ("wte.weight", ModelFamily::Gpt2),
    ("transformer.wte.weight", ModelFamily::Gpt2),
    ("embeddings.word_embeddings.weight", ModelFamily::Bert),
    ("bert.embeddings.word_embeddings.weight", ModelFamily::Bert),
    ("model.embed_tokens.weight", ModelFamily::Rotary),
    ("embed_tokens.weight", ModelFamily::Rotary),
];

/// `model_type`s whose `embed_tokens` table is not followed by RoPE (learned or relative
/// positions elsewhere).
const NOT_ROTARY_MODEL_TYPES: [&str; 12] = [
    "t5",
    "mt5",
    "umt5",
    "longt5",
    "bart",
    "mbart",
    "opt",
    "pegasus",
    "marian",
    "whisper",
    "m2m_100",
    "blenderbot",
];

/// `model_type`s whose position ids are counted from the padding index, as transformers'
/// `create_position_ids_from_input_ids` does: the first token reads row `pad_token_id + 1`.
const PADDING_POSITION_MODEL_TYPES: [&str; 15] = [
    "roberta",
    "roberta-prelayernorm",
    "xlm-roberta",
    "xlm-roberta-xl",
    "camembert",
    "longformer",
    "data2vec-text",
    "mpnet",
    "ibert",
    "luke",
    "markuplm",
    "xmod",
    "esm",
    "layoutlmv3",
    "lilt",
];

/// A token-table name that matched a known layout.
struct NameMatch {
    pub(super) family: ModelFamily,
    /// Everything before the family's own part of the name, dot included (`transformer.`).
    pub(super) prefix: String,
    /// How it matched, for the detection sentence.
    pub(super) reason: String,
}

fn family_style(family: ModelFamily) -> &'static str {
    match family {
        ModelFamily::Gpt2 => "GPT-2",
        ModelFamily::Bert => "BERT-style",
        ModelFamily::Rotary => "Llama-style",
        ModelFamily::Unknown | ModelFamily::Generated => "unknown",
    }
}

/// The part of a token-table name the family's other tables share a prefix with.
fn family_stem(family: ModelFamily) -> &'static str {
    match family {
        ModelFamily::Gpt2 => "wte.weight",
        ModelFamily::Bert => "embeddings.word_embeddings.weight",
        ModelFamily::Rotary => "embed_tokens.weight",
        ModelFamily::Unknown | ModelFamily::Generated => "",
    }
}

/// Matches a name against the known token-table names: exactly, or after a prefix.
fn classify(name: &str) -> Option<NameMatch> {
    let exact = KNOWN_TOKEN_NAMES.iter().find(|(known, _)| *known == name);
    let suffix = || {
        KNOWN_TOKEN_NAMES
            .iter()
            .find(|(known, _)| name.strip_suffix(known).is_some_and(|p| p.ends_with('.')))
    };
    let &(known, family) = exact.or_else(suffix)?;
    let prefix = name.strip_suffix(family_stem(family))?.to_owned();
    let style = family_style(family);
    let reason = if exact.is_some() {
        format!("{style} name")
    } else {
        let outer = name.strip_suffix(known).unwrap_or_default();
        format!("{style} name {known} under the prefix {outer}")
    };
    Some(NameMatch {
        family,
        prefix,
        reason,
    })
}

/// The token table by the matching rule: exact known names first, then suffix matches.
fn find_token_table(checkpoint: &Checkpoint) -> Option<(String, Vec<String>)> {
    for (known, _) in KNOWN_TOKEN_NAMES {
        if checkpoint.tensors.contains_key(known) {
            return Some((known.to_owned(), Vec::new()));
        }
    }
    for (known, _) in KNOWN_TOKEN_NAMES {
        let dotted = format!(".{known}");
        let mut matches = checkpoint.tensors.keys().filter(|n| n.ends_with(&dotted));
        if let Some(first) = matches.next() {
            let others: Vec<&str> = matches.map(String::as_str).collect();
            let warnings = if others.is_empty() {
                Vec::new()
            } else {
                vec![format!(
                    "{first} was taken as the token table; {} could also be one",
                    others.join(", ")
                )]
            };
            return Some((first.clone(), warnings));
        }
    }
    None
}

/// The BERT tables beside the token table.
pub(super) struct BertNames {
    pub(super) token_type: Option<String>,
    pub(super) norm: Option<(String, String)>,
}

/// Where a model's position information comes from, as detection decided it.
///
/// A decision, not prose: [`Detected::sentences`] turns it into words at the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionSource {
    /// A learned table whose rows are added to the token vectors.
    Learned {
        /// The tensor's name.
        name: String,
        /// Why it was taken.
        origin: LearnedOrigin,
        /// Its shape and dtype, as `1024×768 f32`.
        shape: String,
    },
    /// Queries and keys are rotated inside attention (`RoPE`); nothing is added here.
    Rotary {
        /// `rope_theta` as `config.json` gives it, when it does.
        rope_theta: Option<String>,
    },
    /// No position information is added by the embedding block, and why.
    None(NoPositions),
}

/// Why a learned position table was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LearnedOrigin {
    /// GPT-2's `wpe.weight` beside `wte.weight`.
    Gpt2,
    /// BERT's `position_embeddings`; position p reads row p + `offset`.
    Bert {
        /// How far the model's position ids are shifted (`RoBERTa`: `pad_token_id + 1`).
        offset: usize,
    },
    /// Named on the command line.
    Chosen,
}

/// Why the embedding block adds no position row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoPositions {
    /// The family adds a learned table, but the file has none by the expected name.
    Missing {
        /// The name that was looked for.
        expected: String,
    },
    /// A learned table of a layout embedlens does not apply (OPT and BART start at row 2).
    Unapplied {
        /// The table's name.
        name: String,
    },
    /// `config.json` names a model type that puts positions inside its layers.
    InsideLayers {
        /// The `model_type`.
        model_type: String,
    },
    /// The token table's name matches no layout embedlens knows.
    UnknownLayout,
}

/// How the token table was found.
enum TokenReason {
    /// Named on the command line (and perhaps also a known layout's name).
    Chosen(Option<String>),
    /// A known layout's name.
    Matched(String),
    /// Found by name, no layout known.
    Found,
}

/// Which tensors to read, and why: decisions as values.
pub(super) struct Detected {
    pub(super) family: ModelFamily,
    pub(super) token: String,
    token_reason: TokenReason,
    token_shape: String,
    pub(super) position_source: PositionSource,
    pub(super) bert: Option<BertNames>,
    pub(super) position_offset: usize,
    /// The padding id positions are counted from (`RoBERTa` and kin), if they are.
    pub(super) padding_id: Option<usize>,
    pub(super) layer_norm_eps: (f32, String),
    /// `RoBERTa`'s offset guessed from a `roberta.` prefix, with no config to say so.
    roberta_guessed: bool,
    /// A Gemma `model_type` and its width: it scales token vectors by √width.
    pub(super) gemma: Option<(String, usize)>,
    /// Other tensors that could also be the token table.
    ambiguous: Vec<String>,
}

impl Detected {
    /// The learned position table to read, if any.
    pub(super) fn position(&self) -> Option<&str> {
        match &self.position_source {
            PositionSource::Learned { name, .. } => Some(name),
            PositionSource::Rotary { .. } | PositionSource::None(_) => None,
        }
    }

    /// What was found and why, in the order a reader follows it.
    pub(super) fn sentences(&self) -> Vec<String> {
        let token = &self.token;
        let reason = match &self.token_reason {
            TokenReason::Chosen(Some(found)) => format!("chosen by name; a {found}"),
            TokenReason::Chosen(None) => "chosen by name".to_owned(),
            TokenReason::Matched(found) => found.clone(),
            TokenReason::Found => "found by name".to_owned(),
        };
        let mut sentences = vec![format!(
            "token table: {token} ({reason}), {}",
            self.token_shape
        )];
        match &self.position_source {
            PositionSource::Learned {
                name,
                origin,
                shape,
            } => sentences.push(match origin {
                LearnedOrigin::Gpt2 => format!("position table: {name} (GPT-2), {shape}"),
                LearnedOrigin::Bert { offset: 0 } => {
                    format!("position table: {name} (BERT), {shape}")
                }
                LearnedOrigin::Bert { offset } => format!(
                    "position table: {name} (BERT), {shape}; position p reads row p + {offset}: \
                     positions are counted from pad_token_id + 1 (as in RoBERTa), and a padding \
                     token is not counted and reads row {}",
                    offset - 1
                ),
                LearnedOrigin::Chosen => {
                    format!("position table: {name} (chosen by name), {shape}")
                }
            }),
            PositionSource::Rotary { rope_theta } => {
                let confirmed = rope_theta
                    .as_ref()
                    .map(|theta| format!(" (config.json: rope_theta {theta})"))
                    .unwrap_or_default();
                sentences.push(format!(
                    "no position table: {token} is a Llama-style name; these models rotate \
                     queries and keys inside attention (RoPE) instead{confirmed}"
                ));
            }
            PositionSource::None(NoPositions::Unapplied { name }) => sentences.push(format!(
                "no position table used: {name} beside {token} is a learned table of a layout \
                 embedlens does not apply (OPT and BART start it at row 2); name it as the \
                 position tensor to add it"
            )),
            PositionSource::None(NoPositions::InsideLayers { model_type }) => {
                sentences.push(format!(
                    "no position table: config.json says model_type {model_type}, which puts \
                     position information inside its layers, not in a table added here"
                ));
            }
            PositionSource::None(NoPositions::Missing { .. } | NoPositions::UnknownLayout) => {}
        }
        if self
            .bert
            .as_ref()
            .is_some_and(|bert| bert.token_type.is_none())
        {
            sentences.push(
                "no token_type_embeddings (as in DistilBERT): nothing is added for the sentence"
                    .to_owned(),
            );
        }
        if self.family == ModelFamily::Unknown && self.position().is_none() {
            sentences.push(format!(
                "no position table: {token} matches no layout embedlens knows, so the model \
                 embedding shown is the token row alone"
            ));
        }
        sentences
    }

    /// Anything the learner should not take at face value.
    pub(super) fn warnings(&self) -> Vec<String> {
        let token = &self.token;
        let mut warnings = self.ambiguous.clone();
        if self.roberta_guessed {
            warnings.push(
                "no config.json: the roberta. prefix suggests RoBERTa, whose positions start at \
                 row 2 (pad_token_id 1 + 1)"
                    .to_owned(),
            );
        }
        if let PositionSource::None(NoPositions::Missing { expected }) = &self.position_source {
            warnings.push(match self.family {
                ModelFamily::Bert => format!(
                    "no {expected} beside {token}: a BERT-style model adds a learned position \
                     row, but this file has none"
                ),
                _ => format!(
                    "no {expected} beside {token}: GPT-2 adds a learned position row, but this \
                     file has none"
                ),
            });
        }
        if let Some(bert) = &self.bert
            && bert.norm.is_none()
        {
            let embeddings = token
                .strip_suffix("word_embeddings.weight")
                .unwrap_or_default();
            warnings.push(format!(
                "no {embeddings}LayerNorm.weight and .bias: the model embedding shown is the sum \
                 without BERT's LayerNorm"
            ));
        }
        if self.family == ModelFamily::Rotary
            && let PositionSource::Learned {
                name,
                origin: LearnedOrigin::Chosen,
                ..
            } = &self.position_source
        {
            warnings.push(format!(
                "{token} is a Llama-style table, which adds no position row; the model embedding \
                 shown adds {name} only because it was chosen"
            ));
        }
        warnings
    }
}

pub(super) fn describe(entry: &TensorEntry) -> String {
    format!(
        "{} {}",
        shape_text(&entry.shape),
        entry.dtype.to_string().to_lowercase()
    )
}

pub(super) fn detect(checkpoint: &Checkpoint, options: &OpenOptions) -> Result<Detected> {
    let mut ambiguous = Vec::new();
    let (token, chosen) = if let Some(name) = &options.token_tensor {
        (checkpoint.require(name)?.name.clone(), true)
    } else {
        let Some((name, found_warnings)) = find_token_table(checkpoint) else {
            bail!(
                "{}: found no embedding table (looked for wte.weight, \
                 embeddings.word_embeddings.weight and model.embed_tokens.weight, with or \
                 without a prefix); name the token tensor to use. {}",
                checkpoint.display_name(),
                checkpoint.some_names()
            );
        };
        ambiguous.extend(found_warnings);
        (name, false)
    };
    let token_entry = checkpoint.require(&token)?;
    let name_match = classify(&token);
    let token_reason = match (&name_match, chosen) {
        (found, true) => TokenReason::Chosen(found.as_ref().map(|m| m.reason.clone())),
        (Some(found), false) => TokenReason::Matched(found.reason.clone()),
        (None, false) => TokenReason::Found,
    };
    let mut detected = Detected {
        family: name_match
            .as_ref()
            .map_or(ModelFamily::Unknown, |m| m.family),
        token: token.clone(),
        token_reason,
        token_shape: describe(token_entry),
        position_source: PositionSource::None(NoPositions::UnknownLayout),
        bert: None,
        position_offset: 0,
        padding_id: None,
        layer_norm_eps: (DEFAULT_LAYER_NORM_EPS, String::new()),
        roberta_guessed: false,
        gemma: None,
        ambiguous,
    };
    if let Some(name_match) = &name_match {
        match name_match.family {
            ModelFamily::Gpt2 => detect_gpt2(checkpoint, &name_match.prefix, &mut detected),
            ModelFamily::Bert => detect_bert(checkpoint, &name_match.prefix, &mut detected)?,
            ModelFamily::Rotary => detect_rotary(checkpoint, &name_match.prefix, &mut detected),
            ModelFamily::Unknown | ModelFamily::Generated => {}
        }
    }
    if let Some(name) = &options.position_tensor {
        let entry = checkpoint.require(name)?;
        detected.position_source = PositionSource::Learned {
            name: name.clone(),
            origin: LearnedOrigin::Chosen,
            shape: describe(entry),
        };
    }
    Ok(detected)
}

fn detect_gpt2(checkpoint: &Checkpoint, prefix: &str, detected: &mut Detected) {
    let position = format!("{prefix}wpe.weight");
    detected.position_source = match checkpoint.tensors.get(&position) {
        Some(entry) => PositionSource::Learned {
            name: position,
            origin: LearnedOrigin::Gpt2,
            shape: describe(entry),
        },
        None => PositionSource::None(NoPositions::Missing { expected: position }),
    };
}

fn detect_bert(checkpoint: &Checkpoint, prefix: &str, detected: &mut Detected) -> Result<()> {
    let embeddings = format!("{prefix}embeddings.");
    let position = format!("{embeddings}position_embeddings.weight");
    detected.position_source = match checkpoint.tensors.get(&position) {
        Some(entry) => {
            let rows = entry.shape.first().copied().unwrap_or(0);
            detected.position_offset = roberta_offset(checkpoint, prefix, rows, detected)?;
            PositionSource::Learned {
                name: position,
                origin: LearnedOrigin::Bert {
                    offset: detected.position_offset,
                },
                shape: describe(entry),
            }
        }
        None => PositionSource::None(NoPositions::Missing { expected: position }),
    };
    let token_type = format!("{embeddings}token_type_embeddings.weight");
    let token_type = checkpoint
        .tensors
        .contains_key(&token_type)
        .then_some(token_type);
    let norm = [("weight", "bias"), ("gamma", "beta")]
        .into_iter()
        .map(|(w, b)| {
            (
                format!("{embeddings}LayerNorm.{w}"),
                format!("{embeddings}LayerNorm.{b}"),
            )
        })
        .find(|(w, b)| checkpoint.tensors.contains_key(w) && checkpoint.tensors.contains_key(b));
    detected.layer_norm_eps = layer_norm_eps(checkpoint)?;
    detected.bert = Some(BertNames { token_type, norm });
    Ok(())
}

/// How far `RoBERTa`-style models shift position ids (`pad_token_id + 1`), else 0; the shift
/// must leave a row of the `position_rows`-row table for position 0.
fn roberta_offset(
    checkpoint: &Checkpoint,
    prefix: &str,
    position_rows: usize,
    detected: &mut Detected,
) -> Result<usize> {
    match &checkpoint.config {
        Some(config) => {
            let padding = padding_position_offset(
                config.model_type(),
                config.number("pad_token_id")?,
                config.number("max_position_embeddings")?,
                position_rows,
            )
            .map_err(|error| anyhow!("{}: {error}", config.path.display()))?;
            detected.padding_id = padding;
            Ok(padding.map_or(0, |pad| pad + 1))
        }
        None if prefix.starts_with("roberta.") => {
            detected.roberta_guessed = true;
            detected.padding_id = Some(1);
            Ok(2)
        }
        None => Ok(0),
    }
}

/// Whether a BERT-style model counts its positions after the padding token, as `RoBERTa`,
/// `MPNet` and their kin do (position 0 reads row `pad_token_id + 1`): by its `model_type`, or
/// by a table of a power of two plus `pad_token_id + 1` rows (514 for pad 1), whatever the type
/// is called. The padding id when it does (1 when the config gives none), `None` when not.
///
/// The one answer for every reader of BERT-style positions: the tables and layer 0.
///
/// # Errors
/// When `pad_token_id` is not a small whole number, or leaves the `position_rows`-row table no
/// row for position 0 (the message names the setting, not the file).
pub fn padding_position_offset(
    model_type: Option<&str>,
    pad: Option<f64>,
    max_positions: Option<f64>,
    position_rows: usize,
) -> Result<Option<usize>> {
    let known = model_type.is_some_and(|t| PADDING_POSITION_MODEL_TYPES.contains(&t));
    let shaped = match (pad, max_positions) {
        (Some(pad), Some(rows)) if pad >= 1.0 && rows > pad + 1.0 => {
            let rest = rows - pad - 1.0;
            rest.fract() == 0.0 && rest >= 64.0 && rest.log2().fract() == 0.0
        }
        _ => false,
    };
    if !known && !shaped {
        return Ok(None);
    }
    let pad = pad.unwrap_or(1.0);
    if pad.fract() != 0.0 || !(0.0..=1e9).contains(&pad) {
        bail!("pad_token_id {pad} is not a small whole number");
    }
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "checked above to be a small whole number"
    )]
    let pad = pad as usize;
    if pad + 1 >= position_rows {
        bail!(
            "pad_token_id {pad} would put position 0 at row {}, but the position table has only \
             {position_rows} rows; the config does not fit this checkpoint",
            pad + 1
        );
    }
    Ok(Some(pad))
}

fn layer_norm_eps(checkpoint: &Checkpoint) -> Result<(f32, String)> {
    let Some(config) = &checkpoint.config else {
        return Ok((
            DEFAULT_LAYER_NORM_EPS,
            "BERT's default; there is no config.json".to_owned(),
        ));
    };
    match config.settings.epsilon(&["layer_norm_eps"])? {
        Some(eps) => {
            #[expect(
                clippy::cast_possible_truncation,
                reason = "PyTorch hands eps to its f32 kernel"
            )]
            let eps = eps as f32;
            Ok((eps, "layer_norm_eps in config.json".to_owned()))
        }
        None => Ok((
            DEFAULT_LAYER_NORM_EPS,
            "BERT's default; config.json gives no layer_norm_eps".to_owned(),
        )),
    }
}

fn detect_rotary(checkpoint: &Checkpoint, prefix: &str, detected: &mut Detected) {
    let learned = format!("{prefix}embed_positions.weight");
    if checkpoint.tensors.contains_key(&learned) {
        detected.family = ModelFamily::Unknown;
        detected.position_source = PositionSource::None(NoPositions::Unapplied { name: learned });
        return;
    }
    let config = checkpoint.config.as_ref();
    let model_type = config.and_then(Config::model_type);
    if let Some(kind) = model_type.filter(|t| NOT_ROTARY_MODEL_TYPES.contains(t)) {
        detected.family = ModelFamily::Unknown;
        detected.position_source = PositionSource::None(NoPositions::InsideLayers {
            model_type: kind.to_owned(),
        });
        return;
    }
    detected.position_source = PositionSource::Rotary {
        rope_theta: config.and_then(|c| c.settings.written("rope_theta")),
    };
    if let Some(kind) = model_type.filter(|t| t.starts_with("gemma")) {
        detected.gemma = Some((kind.to_owned(), token_width(checkpoint, &detected.token)));
    }
}

fn token_width(checkpoint: &Checkpoint, token: &str) -> usize {
    checkpoint
        .tensors
        .get(token)
        .and_then(|e| e.shape.last().copied())
        .unwrap_or(0)
}
