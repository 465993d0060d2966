//! What Gemma 2 (`gemma2`) and Gemma 3 (`gemma3_text`) do differently in layer 0, as
//! `transformers`' `Gemma2Attention` and `Gemma3Attention` do it: scores scaled by
//! `query_pre_attn_scalar^-½`; for a layer of sliding attention (layer 0 is one unless
//! `layer_types` says otherwise) a window of visible tokens; Gemma 2's scores capped by
//! `attn_logit_softcapping`; Gemma 3's own `RoPE` base for sliding layers and its norm of each
//! query and key head (read by [`super::rotary`]).

use super::Unavailable;
use super::heads::Scoring;
use super::rope::Rope;
use super::source::Settings;

/// The most tokens a layer's window can be, as a setting.
const MAX_WINDOW: usize = 1 << 30;

/// Which Gemma.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generation {
    /// Gemma 2: capped scores, every other layer sliding, one `RoPE` base.
    Two,
    /// Gemma 3: five sliding layers in six with their own `RoPE` base, norms of each head.
    Three,
}

/// How layer 0 of a Gemma 2 or 3 model attends.
#[derive(Clone, Debug, PartialEq)]
pub struct GemmaAttention {
    /// How a query·key product becomes a score.
    pub scoring: Scoring,
    /// The rotation of layer 0's queries and keys.
    pub rope: Rope,
    /// For sliding attention, how many tokens a query sees (itself and those before it).
    pub window: Option<usize>,
}

/// Layer 0's attention settings, with sentences saying where each came from.
///
/// # Errors
/// A setting this layer does not apply (Gemma 3 with capped scores, attention in both
/// directions, a `RoPE` scaling that reaches layer 0), or a malformed one.
pub fn attention(
    settings: &Settings,
    generation: Generation,
    head_dims: usize,
    notes: &mut Vec<String>,
) -> Result<GemmaAttention, Unavailable> {
    let cap = settings.number(&["attn_logit_softcapping"])?;
    if generation == Generation::Three && cap.is_some() {
        return Err(Unavailable::Setting {
            name: "attn_logit_softcapping".to_owned(),
            value: "a cap on Gemma 3's attention scores".to_owned(),
        });
    }
    if let Some(cap) = cap.filter(|cap| !(cap.is_finite() && *cap > 0.0)) {
        return Err(Unavailable::Setting {
            name: "attn_logit_softcapping".to_owned(),
            value: cap.to_string(),
        });
    }
    if settings.flag("use_bidirectional_attention", false)? {
        return Err(Unavailable::Setting {
            name: "use_bidirectional_attention".to_owned(),
            value: "true (attention in both directions)".to_owned(),
        });
    }
    let scalar = settings
        .number(&["query_pre_attn_scalar"])?
        .unwrap_or(256.0);
    if !(scalar.is_finite() && scalar > 0.0) {
        return Err(Unavailable::Setting {
            name: "query_pre_attn_scalar".to_owned(),
            value: scalar.to_string(),
        });
    }
    notes.push(match (generation, cap) {
        (Generation::Three, _) => format!(
            "Gemma 3: each query and key head is normalised (q_norm, k_norm, RMSNorm) before \
             the rotation; scores are scaled by query_pre_attn_scalar {scalar}^-½"
        ),
        (Generation::Two, Some(cap)) => format!(
            "Gemma 2: scores are scaled by query_pre_attn_scalar {scalar}^-½, then capped as \
             {cap} × tanh(score / {cap}) (attn_logit_softcapping)"
        ),
        (Generation::Two, None) => {
            format!("Gemma 2: scores are scaled by query_pre_attn_scalar {scalar}^-½")
        }
    });
    let (rope, window) = rotation(settings, generation, head_dims, notes)?;
    Ok(GemmaAttention {
        scoring: Scoring {
            scale: 1.0 / scalar.sqrt(),
            cap,
        },
        rope,
        window,
    })
}

/// Layer 0's rotation, and its window when it is a layer of sliding attention.
fn rotation(
    settings: &Settings,
    generation: Generation,
    head_dims: usize,
    notes: &mut Vec<String>,
) -> Result<(Rope, Option<usize>), Unavailable> {
    // `sliding_window_pattern`: every n-th layer attends to all tokens (6 for Gemma 3, 2 for
    // Gemma 2), so layer 0 slides unless the pattern is 1.
    let pattern = match generation {
        Generation::Two => 2,
        Generation::Three => 6,
    };
    let sliding = match settings.list_text("layer_types", 0) {
        Some(kind) => kind == "sliding_attention",
        None => {
            settings
                .count(&["sliding_window_pattern"], MAX_WINDOW)?
                .unwrap_or(pattern)
                != 1
        }
    };
    let (kind, theta) = if sliding && generation == Generation::Three {
        let theta = settings
            .number_at(&[
                &["rope_parameters", "sliding_attention", "rope_theta"],
                &["rope_local_base_freq"],
            ])?
            .unwrap_or(10_000.0);
        ("sliding_attention", theta)
    } else {
        let scaling = settings
            .path_text(&["rope_parameters", "full_attention", "rope_type"])
            .or_else(|| settings.nested_text("rope_parameters", "rope_type"))
            .or_else(|| settings.nested_text("rope_scaling", "rope_type"));
        if let Some(other) = scaling.filter(|kind| *kind != "default") {
            return Err(Unavailable::Setting {
                name: "rope_scaling".to_owned(),
                value: other.to_owned(),
            });
        }
        let default = match generation {
            Generation::Two => 10_000.0,
            Generation::Three => 1_000_000.0,
        };
        let theta = settings
            .number_at(&[
                &["rope_parameters", "full_attention", "rope_theta"],
                &["rope_parameters", "rope_theta"],
                &["rope_theta"],
            ])?
            .unwrap_or(default);
        let kind = if sliding {
            "sliding_attention"
        } else {
            "full_attention"
        };
        (kind, theta)
    };
    let rope = Rope::new(theta, head_dims, head_dims)?;
    notes.push(format!(
        "layer 0 is {kind}: RoPE with its rope_theta {theta}, every dimension of a head rotates"
    ));
    let window = if sliding {
        let window = settings
            .count(&["sliding_window"], MAX_WINDOW)?
            .unwrap_or(4096);
        notes.push(format!(
            "a query sees at most the {window} tokens up to itself"
        ));
        Some(window)
    } else {
        None
    };
    Ok((rope, window))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(json: &str) -> Settings {
        Settings::parse(json).unwrap()
    }

    #[expect(clippy::float_cmp, reason = "settings read back exactly")]
    #[test]
    fn a_sliding_layer_0_turns_by_the_local_base_and_keeps_to_its_window() {
        let mut notes = Vec::new();
        // The older names: rope_local_base_freq beside rope_theta, no layer_types.
        let found = attention(
            &settings(
                r#"{"query_pre_attn_scalar": 144, "rope_theta": 1000000.0,
                    "rope_local_base_freq": 10000.0, "sliding_window": 512}"#,
            ),
            Generation::Three,
            16,
            &mut notes,
        )
        .unwrap();
        assert_eq!(found.rope.theta(), 10_000.0);
        assert_eq!(found.window, Some(512));
        assert!((found.scoring.scale - 1.0 / 12.0).abs() < 1e-15);
        assert!(notes.iter().any(|note| note.contains("sliding_attention")));
    }

    #[expect(clippy::float_cmp, reason = "settings read back exactly")]
    #[test]
    fn a_full_attention_layer_0_turns_by_rope_theta_and_refuses_a_scaling() {
        let full = r#"{"layer_types": ["full_attention"], "rope_parameters": {
            "full_attention": {"rope_theta": 1000000.0, "rope_type": "default"},
            "sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"}}}"#;
        let found = attention(&settings(full), Generation::Three, 16, &mut Vec::new()).unwrap();
        assert_eq!(found.rope.theta(), 1_000_000.0);
        assert_eq!(found.window, None);
        let scaled = full.replace(
            r#""rope_theta": 1000000.0, "rope_type": "default""#,
            r#""rope_theta": 1000000.0, "rope_type": "linear", "factor": 8.0"#,
        );
        assert_eq!(
            attention(&settings(&scaled), Generation::Three, 16, &mut Vec::new()).unwrap_err(),
            Unavailable::Setting {
                name: "rope_scaling".to_owned(),
                value: "linear".to_owned()
            }
        );
    }

    #[test]
    fn gemma_2_caps_its_scores_and_turns_by_rope_theta() {
        let found = attention(
            &settings(r#"{"attn_logit_softcapping": 50.0, "rope_theta": 10000.0}"#),
            Generation::Two,
            16,
            &mut Vec::new(),
        )
        .unwrap();
        assert_eq!(found.scoring.cap, Some(50.0));
        assert_eq!(found.window, Some(4096));
        assert!((found.rope.theta() - 10_000.0).abs() < 1e-9);
        // 50 × tanh(100 / 50): a score of 100 (after the scale of 1/16) is held below 50.
        let capped = found.scoring.score(1600.0);
        assert!((capped - 50.0 * 2f64.tanh()).abs() < 1e-12, "{capped}");
    }

    #[test]
    fn what_this_layer_does_not_apply_is_refused() {
        for (json, generation) in [
            (r#"{"attn_logit_softcapping": 50.0}"#, Generation::Three),
            (r#"{"attn_logit_softcapping": -1.0}"#, Generation::Two),
            (
                r#"{"use_bidirectional_attention": true}"#,
                Generation::Three,
            ),
        ] {
            assert!(matches!(
                attention(&settings(json), generation, 16, &mut Vec::new()),
                Err(Unavailable::Setting { .. })
            ));
        }
    }
}
