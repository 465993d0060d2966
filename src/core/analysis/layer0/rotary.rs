//! Llama-style layer 0: `input_layernorm` → q/k/v projections → `RoPE` → grouped-query heads
//! under the causal mask.
//!
//! Llama, Mistral, Mixtral and Qwen2 (with its q/k/v biases) use `RMSNorm`; Gemma scales the
//! token vector by `√hidden` and uses `RMSNorm` with `(1 + weight)`, and Gemma 2 and 3 add their
//! own attention details ([`super::gemma`]); `StableLM` and Phi use
//! `LayerNorm` and rotate only part of each head (`partial_rotary_factor`). Each family's
//! `model_type`s and quirks are one entry of `RECIPES`; [`load`] reads them, never a name.

use super::gemma::{self, Generation};
use super::heads::HeadLayout;
use super::heads::Scoring;
use super::input::InputStage;
use super::linear::{Linear, round_to_f32};
use super::norm::{HeadNorms, InputNorm, RmsNorm};
use super::rope::{Llama3Scaling, Pairs, Rope};
use super::source::{Settings, TensorSource, has, layer_norm, matrix, optional_vector, vector};
use super::{
    Architecture, Layer0, ModelContext, Parts, Unavailable, epsilon, inverse_sqrt, token_table,
};

/// The name that marks a Llama-style layer 0, after any prefix (`model.`).
pub const QUERY_SUFFIX: &str = "layers.0.self_attn.q_proj.weight";

/// llama.cpp's tensor of `RoPE` frequency divisors: how its converter stores Llama 3's
/// `rope_scaling` in a GGUF file (a safetensors checkpoint states it in `config.json`).
pub const ROPE_FREQUENCY_DIVISORS: &str = "rope_freqs.weight";

/// What one family of Llama-style models does in layer 0, in one place: the `model_type`s
/// that name it in `config.json`, and each of its quirks. A new family is one more entry in
/// `RECIPES`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Recipe {
    /// The `model_type`s that read this way.
    model_types: &'static [&'static str],
    /// The norm in front of the projections (`input_layernorm`).
    norm: NormKind,
    /// Gemma's: the token vector is multiplied by `√hidden` first, and every `RMSNorm` scales
    /// by `(1 + weight)`.
    gemma: bool,
    /// Whether each query and key head is normalised (`q_norm`, `k_norm`) before the rotation,
    /// and the note that says so (Gemma 3 says it beside its scores).
    head_norms: HeadNormKind,
    /// How queries and keys become scores and how they rotate.
    attention: AttentionKind,
    /// The share of each head that rotates when `config.json` gives no
    /// `partial_rotary_factor`.
    default_rotary_factor: f64,
}

/// The norm in front of layer 0's projections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NormKind {
    /// `RMSNorm`, its eps from `rms_norm_eps` (1e-6 when not given).
    Rms,
    /// `LayerNorm` with a bias, its eps from `layer_norm_eps` (1e-5 when not given).
    Layer,
}

/// Whether the family normalises each query and key head.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HeadNormKind {
    /// No norm of the heads; a `q_norm` or `k_norm` tensor is a setting not implemented.
    None,
    /// `q_norm` and `k_norm` (`RMSNorm`), with this note, if any.
    Rms(Option<&'static str>),
}

/// How the family attends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AttentionKind {
    /// Llama's: scores scaled by `head_dim^-½`, the rotation from `rope_theta`,
    /// `partial_rotary_factor` and `rope_scaling`.
    Llama,
    /// Gemma 2's or 3's own scale, cap, window and rotation ([`super::gemma`]).
    Gemma(Generation),
}

/// Every Llama-style family layer 0 is computed for.
const RECIPES: &[Recipe] = &[
    Recipe {
        model_types: &["llama", "mistral", "mixtral", "qwen2", "qwen2_moe"],
        norm: NormKind::Rms,
        gemma: false,
        head_norms: HeadNormKind::None,
        attention: AttentionKind::Llama,
        default_rotary_factor: 1.0,
    },
    Recipe {
        model_types: &["qwen3"],
        norm: NormKind::Rms,
        gemma: false,
        head_norms: HeadNormKind::Rms(Some(
            "Qwen3: each query and key head is normalised (q_norm, k_norm, RMSNorm) before the \
             rotation",
        )),
        attention: AttentionKind::Llama,
        default_rotary_factor: 1.0,
    },
    Recipe {
        model_types: &["gemma"],
        norm: NormKind::Rms,
        gemma: true,
        head_norms: HeadNormKind::None,
        attention: AttentionKind::Llama,
        default_rotary_factor: 1.0,
    },
    Recipe {
        model_types: &["gemma2"],
        norm: NormKind::Rms,
        gemma: true,
        head_norms: HeadNormKind::None,
        attention: AttentionKind::Gemma(Generation::Two),
        default_rotary_factor: 1.0,
    },
    Recipe {
        model_types: &["gemma3_text"],
        norm: NormKind::Rms,
        gemma: true,
        head_norms: HeadNormKind::Rms(None),
        attention: AttentionKind::Gemma(Generation::Three),
        default_rotary_factor: 1.0,
    },
    Recipe {
        model_types: &["stablelm"],
        norm: NormKind::Layer,
        gemma: false,
        head_norms: HeadNormKind::None,
        attention: AttentionKind::Llama,
        default_rotary_factor: 0.25,
    },
    Recipe {
        model_types: &["phi"],
        norm: NormKind::Layer,
        gemma: false,
        head_norms: HeadNormKind::None,
        attention: AttentionKind::Llama,
        default_rotary_factor: 0.5,
    },
];

/// The recipe of a `model_type`, if layer 0 is computed for it.
fn recipe(model_type: &str) -> Option<&'static Recipe> {
    RECIPES
        .iter()
        .find(|recipe| recipe.model_types.contains(&model_type))
}

/// Reads a Llama-style layer 0 whose tensor names start with `prefix`.
///
/// # Errors
/// [`Unavailable`] for a model type or setting not implemented, or a tensor missing or
/// malformed.
#[expect(
    clippy::too_many_lines,
    reason = "one setting and tensor after another, in the order the module reads them"
)]
pub fn load(
    source: &dyn TensorSource,
    settings: &Settings,
    prefix: &str,
) -> Result<Layer0, Unavailable> {
    let model_type = settings.text("model_type").map(str::to_owned);
    let Some(recipe) = model_type.as_deref().and_then(recipe) else {
        return Err(Unavailable::ModelType {
            architecture: Architecture::Rotary,
            model_type,
        });
    };
    let token_name = format!("{prefix}embed_tokens.weight");
    let (token, hidden) = token_table(source, &token_name, &format!("{prefix}{QUERY_SUFFIX}"))?;
    let mut notes = Vec::new();
    let conversion = source.conversion();
    let gemma = recipe.gemma;
    if conversion.norm_weights_include_one && gemma {
        notes.push(
            "Gemma: the file stores each norm weight with its 1 already added (1 + weight)"
                .to_owned(),
        );
    }
    // Gemma scales by `1 + weight`, unless the file stores the weight with its 1 added.
    let rms_norm = |weight, eps| {
        if gemma && !conversion.norm_weights_include_one {
            RmsNorm::gemma(weight, eps)
        } else {
            RmsNorm::new(weight, eps)
        }
    };

    let heads = settings
        .count(&["num_attention_heads"], hidden)?
        .ok_or_else(|| Unavailable::Setting {
            name: "num_attention_heads".to_owned(),
            value: "nothing".to_owned(),
        })?;
    let kv_heads = settings
        .count(&["num_key_value_heads"], heads)?
        .unwrap_or(heads);
    let head_dims = match settings.count(&["head_dim"], 1 << 16)? {
        Some(dims) => dims,
        None if hidden.is_multiple_of(heads) => hidden / heads,
        None => {
            return Err(Unavailable::Invalid(format!(
                "{hidden} numbers do not split into {heads} heads and {} gives no head_dim",
                settings.origin()
            )));
        }
    };

    let block = format!("{prefix}layers.0.");
    let norm_weight = format!("{block}input_layernorm.weight");
    let norm = match recipe.norm {
        NormKind::Rms => {
            let (eps, note) = epsilon(settings, &["rms_norm_eps"], 1e-6)?;
            notes.push(format!("input_layernorm: RMSNorm, {note}"));
            let weight = vector(source, &norm_weight, hidden)?;
            InputNorm::Rms(rms_norm(weight, eps))
        }
        NormKind::Layer => {
            let (eps, note) = epsilon(settings, &["layer_norm_eps"], 1e-5)?;
            notes.push(format!("input_layernorm: LayerNorm, {note}"));
            let norm = layer_norm(
                source,
                &norm_weight,
                &format!("{block}input_layernorm.bias"),
                hidden,
                eps,
            )?;
            InputNorm::Layer(norm)
        }
    };
    let multiplier = gemma.then(|| {
        #[expect(clippy::cast_precision_loss, reason = "widths are far below 2^52")]
        let root = (hidden as f64).sqrt();
        let factor = round_to_f32(root);
        notes.push(format!(
            "Gemma: each token vector is multiplied by √{hidden} = {factor} (float32) first"
        ));
        factor
    });
    let head_norms = if let HeadNormKind::Rms(note) = recipe.head_norms {
        let (eps, _) = epsilon(settings, &["rms_norm_eps"], 1e-6)?;
        let norm = |name: &str| -> Result<RmsNorm, Unavailable> {
            let weight = vector(
                source,
                &format!("{block}self_attn.{name}.weight"),
                head_dims,
            )?;
            Ok(rms_norm(weight, eps))
        };
        notes.extend(note.map(str::to_owned));
        Some(HeadNorms {
            query: norm("q_norm")?,
            key: norm("k_norm")?,
        })
    } else {
        None
    };
    for qk_norm in ["q_norm", "k_norm", "q_layernorm", "k_layernorm"] {
        if head_norms.is_none() && has(source, &format!("{block}self_attn.{qk_norm}.weight")) {
            return Err(Unavailable::Setting {
                name: format!("self_attn.{qk_norm}"),
                value: "a norm of queries and keys".to_owned(),
            });
        }
    }

    let attention = format!("{block}self_attn.");
    let linear = |name: &str, outputs: usize| -> Result<Linear, Unavailable> {
        let weight = matrix(
            source,
            &format!("{attention}{name}.weight"),
            outputs,
            hidden,
        )?;
        let bias = optional_vector(source, &format!("{attention}{name}.bias"), outputs)?;
        Ok(Linear::new(weight, bias)?)
    };
    let projections = [
        linear("q_proj", heads * head_dims)?,
        linear("k_proj", kv_heads * head_dims)?,
        linear("v_proj", kv_heads * head_dims)?,
    ];
    if projections.iter().any(Linear::has_bias) {
        notes.push("the query, key and value layers add biases".to_owned());
    }
    let (mut rope, scoring, window) = match recipe.attention {
        AttentionKind::Gemma(generation) => {
            let attention = gemma::attention(settings, generation, head_dims, &mut notes)?;
            (attention.rope, attention.scoring, attention.window)
        }
        AttentionKind::Llama => {
            let rope = rope(
                settings,
                recipe.default_rotary_factor,
                head_dims,
                &mut notes,
            )?;
            (rope, Scoring::scaled(inverse_sqrt(head_dims)), None)
        }
    };
    let pairs = rope.rotary_dims() / 2;
    if let Some(divisors) = optional_vector(source, ROPE_FREQUENCY_DIVISORS, pairs)? {
        rope = rope.with_frequency_divisors(divisors.as_slice().unwrap_or_default())?;
        notes.push(format!(
            "RoPE: each pair's angle divided by its number in {ROPE_FREQUENCY_DIVISORS} \
             (Llama 3's scaling, as llama.cpp stores it)"
        ));
    }
    if conversion.interleaved_query_key_rows {
        rope = rope.with_pairs(Pairs::Adjacent, head_dims)?;
        notes.push(
            "the file interleaves each head's query and key rows (llama.cpp's converter), so \
             RoPE turns neighbouring numbers: the same pairs, the same scores"
                .to_owned(),
        );
    }

    let stated = settings.count(&["max_position_embeddings"], usize::MAX >> 12)?;
    let context = match (stated, window) {
        (stated, Some(window)) if stated.is_none_or(|n| window < n) => ModelContext::Window(window),
        (Some(n), _) => ModelContext::Stated(n),
        (None, _) => ModelContext::Unstated,
    };
    Parts {
        architecture: Architecture::Rotary,
        model_type,
        input: InputStage::Rotary {
            token,
            multiplier,
            norm,
        },
        projections,
        layout: HeadLayout {
            heads,
            kv_heads,
            head_dims,
        },
        head_norms,
        rope: Some(rope),
        causal: true,
        scoring,
        context,
        notes,
    }
    .build()
}

/// The rotation the settings describe: `rope_theta`, `partial_rotary_factor` and
/// `rope_scaling` (top level, or inside `rope_parameters` as newer configs write them).
fn rope(
    settings: &Settings,
    default_factor: f64,
    head_dims: usize,
    notes: &mut Vec<String>,
) -> Result<Rope, Unavailable> {
    let theta = settings
        .number_at(&[&["rope_theta"], &["rope_parameters", "rope_theta"]])?
        .unwrap_or(10_000.0);
    let factor = settings
        .number_at(&[
            &["partial_rotary_factor"],
            &["rope_parameters", "partial_rotary_factor"],
        ])?
        .unwrap_or(default_factor);
    if !(factor > 0.0 && factor <= 1.0) {
        return Err(Unavailable::Setting {
            name: "partial_rotary_factor".to_owned(),
            value: factor.to_string(),
        });
    }
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss,
        reason = "int(head_dim * partial_rotary_factor), as transformers computes it"
    )]
    let rotary_dims = (head_dims as f64 * factor) as usize;
    let mut rope = Rope::new(theta, head_dims, rotary_dims)?;
    notes.push(if rotary_dims == head_dims {
        format!("RoPE: rope_theta {theta}, every dimension of a head rotates")
    } else {
        format!(
            "RoPE: rope_theta {theta}, the first {rotary_dims} of {head_dims} dimensions of a \
             head rotate (partial_rotary_factor {factor})"
        )
    });
    let scaling_type = settings
        .nested_text("rope_scaling", "rope_type")
        .or_else(|| settings.nested_text("rope_scaling", "type"))
        .or_else(|| settings.nested_text("rope_parameters", "rope_type"));
    let scaling_number =
        |key: &str| settings.number_at(&[&["rope_scaling", key], &["rope_parameters", key]]);
    match scaling_type {
        None | Some("default") => {}
        // Dynamic NTK changes the angles only past the original context length.
        Some("dynamic") => notes.push(
            "rope_scaling dynamic: within the original context the angles are unchanged".to_owned(),
        ),
        Some("llama3") => {
            let scaling = Llama3Scaling {
                factor: scaling_number("factor")?.unwrap_or(8.0),
                low_frequency_factor: scaling_number("low_freq_factor")?.unwrap_or(1.0),
                high_frequency_factor: scaling_number("high_freq_factor")?.unwrap_or(4.0),
                original_context: scaling_number("original_max_position_embeddings")?
                    .unwrap_or(8192.0),
            };
            rope = rope.with_llama3_scaling(scaling);
            notes.push(format!(
                "rope_scaling llama3: factor {}, low/high frequency factors {}/{}, original \
                 context {}",
                scaling.factor,
                scaling.low_frequency_factor,
                scaling.high_frequency_factor,
                scaling.original_context
            ));
        }
        Some(other) => {
            return Err(Unavailable::Setting {
                name: "rope_scaling".to_owned(),
                value: other.to_owned(),
            });
        }
    }
    Ok(rope)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_model_type_has_one_recipe() {
        let mut seen: Vec<&str> = RECIPES
            .iter()
            .flat_map(|recipe| recipe.model_types.iter().copied())
            .collect();
        let count = seen.len();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), count, "a model_type in two recipes");
        assert_eq!(recipe("phi").map(|r| r.default_rotary_factor), Some(0.5));
        assert!(recipe("gemma3_text").is_some_and(|r| r.gemma));
        assert!(recipe("gpt2").is_none());
    }
}
