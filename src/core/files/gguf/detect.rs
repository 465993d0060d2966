//! Deciding, from a GGUF file's architecture and tensor names, which tensors are the
//! embedding tables and what the embedding block does with them.
//!
//! llama.cpp names the token table `token_embd.weight` and a learned position table
//! `position_embd.weight` (GPT-2, `StarCoder`); BERT adds `token_types.weight` and the
//! `LayerNorm` `token_embd_norm`. The architecture (`general.architecture`) prefixes the
//! model's settings: `<arch>.context_length`, `<arch>.embedding_length`,
//! `<arch>.rope.freq_base`, `<arch>.attention.layer_norm_epsilon`.

use anyhow::{Result, anyhow, bail};

use super::{GgufFile, GgufTensor, MetadataValue};
use crate::core::analysis::layer0::source::{MAX_EPSILON, is_epsilon};
use crate::core::files::OpenOptions;
use crate::core::files::detect::{LearnedOrigin, NoPositions, PositionSource};
use crate::core::tables::block::ModelFamily;
use crate::core::tables::table::shape_text;

/// llama.cpp's name for the token table.
pub(in crate::core::files) const TOKEN_TABLE: &str = "token_embd.weight";
/// llama.cpp's name for a learned position table.
const POSITION_TABLE: &str = "position_embd.weight";
/// BERT's token-type table and embedding `LayerNorm`, as llama.cpp names them.
const TOKEN_TYPES: &str = "token_types.weight";
const NORM_WEIGHT: &str = "token_embd_norm.weight";
const NORM_BIAS: &str = "token_embd_norm.bias";
/// llama.cpp's default RoPE base when a file gives none.
const DEFAULT_ROPE_BASE: &str = "10000";

/// The BERT parts beside the token table.
pub(in crate::core::files) struct GgufBert {
    pub(in crate::core::files) token_types: Option<String>,
    pub(in crate::core::files) norm: Option<(String, String)>,
    /// `LayerNorm`'s eps, and the key it came from.
    pub(in crate::core::files) eps: (f32, String),
}

/// The architecture's settings that bear on the embedding block.
#[derive(Default)]
struct Settings {
    context_length: Option<u64>,
    embedding_length: Option<u64>,
    rope_base: Option<String>,
    rope_dims: Option<u64>,
}

/// Which tensors to read, and why: decisions as values, turned into sentences last.
pub(in crate::core::files) struct GgufDetected {
    architecture: Option<String>,
    pub(in crate::core::files) family: ModelFamily,
    pub(in crate::core::files) token: String,
    token_chosen: bool,
    token_shape: String,
    pub(in crate::core::files) position_source: PositionSource,
    pub(in crate::core::files) bert: Option<GgufBert>,
    settings: Settings,
    /// The token table's width, for the checks against `embedding_length`.
    width: u64,
}

impl GgufDetected {
    /// Whether the architecture is Gemma's, which scales token vectors by √width.
    pub(in crate::core::files) fn is_gemma(&self) -> bool {
        self.architecture
            .as_deref()
            .is_some_and(|arch| arch.starts_with("gemma"))
    }

    /// The learned position table to read, if any.
    pub(in crate::core::files) fn position(&self) -> Option<&str> {
        match &self.position_source {
            PositionSource::Learned { name, .. } => Some(name),
            PositionSource::Rotary { .. } | PositionSource::None(_) => None,
        }
    }

    /// What was found and why.
    pub(in crate::core::files) fn sentences(&self) -> Vec<String> {
        let arch = self.architecture.as_deref().unwrap_or("unknown");
        let mut settings = Vec::new();
        if let Some(n) = self.settings.context_length {
            settings.push(format!("context length {n} ({arch}.context_length)"));
        }
        if let Some(n) = self.settings.embedding_length {
            settings.push(format!("embedding length {n} ({arch}.embedding_length)"));
        }
        let mut sentences = vec![match &self.architecture {
            Some(arch) if settings.is_empty() => {
                format!("architecture: {arch} (general.architecture)")
            }
            Some(arch) => format!(
                "architecture: {arch} (general.architecture); {}",
                settings.join(", ")
            ),
            None => "architecture: not given (no general.architecture)".to_owned(),
        }];
        let how = if self.token_chosen {
            "chosen by name"
        } else {
            "llama.cpp's name"
        };
        sentences.push(format!(
            "token table: {} ({how}), {}, each row dequantized as it is read",
            self.token, self.token_shape
        ));
        match &self.position_source {
            PositionSource::Learned {
                name,
                origin,
                shape,
            } => sentences.push(match origin {
                LearnedOrigin::Chosen => {
                    format!("position table: {name} (chosen by name), {shape}")
                }
                LearnedOrigin::Gpt2 | LearnedOrigin::Bert { .. } => {
                    format!("position table: {name} (learned, {arch}), {shape}")
                }
            }),
            PositionSource::Rotary { rope_theta } => {
                let base = rope_theta.as_deref().unwrap_or(DEFAULT_ROPE_BASE);
                let given = if self.settings.rope_base.is_some() {
                    format!("{arch}.rope.freq_base {base}")
                } else {
                    format!("base {base}, llama.cpp's default")
                };
                let dims = self
                    .settings
                    .rope_dims
                    .map(|n| format!(", {arch}.rope.dimension_count {n}"))
                    .unwrap_or_default();
                sentences.push(format!(
                    "no position table: {arch} models rotate queries and keys inside attention \
                     (RoPE) instead ({given}{dims})"
                ));
            }
            PositionSource::None(_) => sentences.push(format!(
                "no position table: the file has no {POSITION_TABLE} and no {arch}.rope settings, \
                 so the model embedding shown is the token row alone"
            )),
        }
        if let Some(bert) = &self.bert
            && bert.token_types.is_none()
        {
            sentences.push(format!(
                "no {TOKEN_TYPES}: nothing is added for the sentence"
            ));
        }
        sentences
    }

    /// Anything the learner should not take at face value.
    pub(in crate::core::files) fn warnings(&self) -> Vec<String> {
        let arch = self.architecture.as_deref().unwrap_or("unknown");
        let mut warnings = Vec::new();
        if let Some(length) = self.settings.embedding_length
            && length != self.width
        {
            warnings.push(format!(
                "{arch}.embedding_length says {length}, but {} is {} wide",
                self.token, self.width
            ));
        }
        if let PositionSource::None(NoPositions::Missing { expected }) = &self.position_source {
            warnings.push(format!(
                "no {expected} beside {}: a {arch} model adds a learned position row, but this \
                 file has none",
                self.token
            ));
        }
        if let Some(bert) = &self.bert
            && bert.norm.is_none()
        {
            warnings.push(format!(
                "no {NORM_WEIGHT} and {NORM_BIAS}: the model embedding shown is the sum without \
                 BERT's LayerNorm"
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
                "{arch} models add no position row; the model embedding shown adds {name} only \
                 because it was chosen"
            ));
        }
        warnings
    }
}

/// `49152×576 q8_0`.
pub(in crate::core::files) fn describe(tensor: &GgufTensor) -> String {
    format!(
        "{} {}",
        shape_text(&tensor.shape()),
        tensor.ggml_type.to_string().to_lowercase()
    )
}

fn require<'a>(file: &'a GgufFile, name: &str) -> Result<&'a GgufTensor> {
    file.tensor(name).ok_or_else(|| {
        let embeddings: Vec<&str> = file
            .tensors()
            .iter()
            .map(|t| t.name.as_str())
            .filter(|n| n.contains("embd") || n.contains("emb"))
            .take(8)
            .collect();
        let hint = if embeddings.is_empty() {
            format!(
                "it holds {} tensors, none named like an embedding",
                file.tensors().len()
            )
        } else {
            format!("its embedding-like tensors are {}", embeddings.join(", "))
        };
        anyhow!("{}: no tensor named {name}; {hint}", file.path().display())
    })
}

pub(in crate::core::files) fn detect_gguf(
    file: &GgufFile,
    options: &OpenOptions,
) -> Result<GgufDetected> {
    let architecture = file.text("general.architecture").map(str::to_owned);
    let arch = architecture.as_deref().unwrap_or("");
    let key = |suffix: &str| format!("{arch}.{suffix}");
    let number = |suffix: &str| file.get(&key(suffix)).and_then(MetadataValue::as_u64);
    let settings = Settings {
        context_length: number("context_length"),
        embedding_length: number("embedding_length"),
        rope_base: file.get(&key("rope.freq_base")).map(ToString::to_string),
        rope_dims: number("rope.dimension_count"),
    };
    let token = options
        .token_tensor
        .clone()
        .unwrap_or_else(|| TOKEN_TABLE.to_owned());
    let token_tensor = require(file, &token)?;
    let &[width, rows] = token_tensor.dims.as_slice() else {
        bail!(
            "{}: tensor {token} has shape {}; a token table must be two-dimensional (rows × width)",
            file.path().display(),
            shape_text(&token_tensor.shape())
        );
    };
    if width == 0 || rows == 0 {
        bail!(
            "{}: tensor {token} is {rows}×{width}; a token table needs at least one row and one \
             column",
            file.path().display()
        );
    }
    let learned = |name: &str, origin| -> Result<PositionSource> {
        Ok(PositionSource::Learned {
            name: name.to_owned(),
            origin,
            shape: describe(require(file, name)?),
        })
    };
    let has_rope = file
        .metadata()
        .iter()
        .any(|(name, _)| name.starts_with(&format!("{arch}.rope.")));
    let has_position = file.tensor(POSITION_TABLE).is_some();
    let (family, position_source) = if let Some(name) = &options.position_tensor {
        let family = if has_rope {
            ModelFamily::Rotary
        } else {
            ModelFamily::Unknown
        };
        (family, learned(name, LearnedOrigin::Chosen)?)
    } else if arch == "bert" {
        let source = if has_position {
            learned(POSITION_TABLE, LearnedOrigin::Bert { offset: 0 })?
        } else {
            PositionSource::None(NoPositions::Missing {
                expected: POSITION_TABLE.to_owned(),
            })
        };
        (ModelFamily::Bert, source)
    } else if has_position {
        let family = if arch == "gpt2" {
            ModelFamily::Gpt2
        } else {
            ModelFamily::Unknown
        };
        (family, learned(POSITION_TABLE, LearnedOrigin::Gpt2)?)
    } else if arch == "gpt2" {
        let missing = NoPositions::Missing {
            expected: POSITION_TABLE.to_owned(),
        };
        (ModelFamily::Gpt2, PositionSource::None(missing))
    } else if has_rope {
        let rope_theta = settings.rope_base.clone();
        (ModelFamily::Rotary, PositionSource::Rotary { rope_theta })
    } else {
        (
            ModelFamily::Unknown,
            PositionSource::None(NoPositions::UnknownLayout),
        )
    };
    let bert = if arch == "bert" {
        Some(bert_parts(file, &key("attention.layer_norm_epsilon"))?)
    } else {
        None
    };
    Ok(GgufDetected {
        architecture,
        family,
        token_chosen: options.token_tensor.is_some(),
        token_shape: describe(token_tensor),
        token,
        position_source,
        bert,
        settings,
        width,
    })
}

/// BERT's token-type table, embedding `LayerNorm` and its eps, as far as the file has them.
fn bert_parts(file: &GgufFile, eps_key: &str) -> Result<GgufBert> {
    #[expect(clippy::cast_possible_truncation, reason = "ggml keeps eps as f32")]
    let eps = match file.get(eps_key) {
        // As config.json's layer_norm_eps is held (and as attention holds this one).
        Some(value) => match value.as_f64() {
            Some(eps) if is_epsilon(eps) => (eps as f32, eps_key.to_owned()),
            _ => bail!(
                "{}: {eps_key} is {value}, not a small positive number (at most \
                 {MAX_EPSILON}; real models use 1e-5 to 1e-12)",
                file.path().display()
            ),
        },
        None => (1e-12, "BERT's default; the file gives no eps".to_owned()),
    };
    Ok(GgufBert {
        token_types: file.tensor(TOKEN_TYPES).map(|t| t.name.clone()),
        norm: (file.tensor(NORM_WEIGHT).is_some() && file.tensor(NORM_BIAS).is_some())
            .then(|| (NORM_WEIGHT.to_owned(), NORM_BIAS.to_owned())),
        eps,
    })
}
