//! What Gemma 3 (`model_type` `gemma3_text`) does differently in layer 0, as `transformers`'
//! `Gemma3Attention` does it: a norm of each query and key head before the rotation, scores
//! scaled by `query_pre_attn_scalar^-½`, and, for a layer of sliding attention (layer 0 is one
//! unless `layer_types` says otherwise), its own `RoPE` base and a window of visible tokens.

use super::Unavailable;
use super::rope::Rope;
use super::source::Settings;

/// The most tokens a layer's window can be, as a setting.
const MAX_WINDOW: usize = 1 << 30;

/// How layer 0 of a Gemma 3 model attends.
#[derive(Clone, Debug, PartialEq)]
pub struct Gemma3Attention {
    /// `query_pre_attn_scalar^-½`, the score scale.
    pub scale: f64,
    /// The rotation of layer 0's queries and keys.
    pub rope: Rope,
    /// For sliding attention, how many tokens a query sees (itself and those before it).
    pub window: Option<usize>,
}

/// Layer 0's attention settings, with sentences saying where each came from.
///
/// # Errors
/// A setting this layer does not apply (scores capped by `attn_logit_softcapping`, attention
/// in both directions, a `RoPE` scaling of a full-attention layer 0), or a malformed one.
pub fn attention(
    settings: &Settings,
    head_dims: usize,
    notes: &mut Vec<String>,
) -> Result<Gemma3Attention, Unavailable> {
    if settings.is_set("attn_logit_softcapping") {
        return Err(Unavailable::Setting {
            name: "attn_logit_softcapping".to_owned(),
            value: "a cap on the attention scores".to_owned(),
        });
    }
    if settings.flag("use_bidirectional_attention", false) {
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
    notes.push(format!(
        "Gemma 3: each query and key head is normalised (q_norm, k_norm, RMSNorm) before \
         the rotation; scores are scaled by query_pre_attn_scalar {scalar}^-½"
    ));
    let sliding = match settings.list_text("layer_types", 0) {
        Some(kind) => kind == "sliding_attention",
        // `sliding_window_pattern` (6 by default): every sixth layer attends to all tokens.
        None => {
            settings
                .count(&["sliding_window_pattern"], MAX_WINDOW)?
                .unwrap_or(6)
                != 1
        }
    };
    let (kind, theta) = if sliding {
        let theta = settings
            .path_number(&["rope_parameters", "sliding_attention", "rope_theta"])
            .or(settings.number(&["rope_local_base_freq"])?)
            .unwrap_or(10_000.0);
        ("sliding_attention", theta)
    } else {
        let scaling = settings
            .path_text(&["rope_parameters", "full_attention", "rope_type"])
            .or_else(|| settings.nested_text("rope_scaling", "rope_type"));
        if let Some(other) = scaling.filter(|kind| *kind != "default") {
            return Err(Unavailable::Setting {
                name: "rope_scaling".to_owned(),
                value: other.to_owned(),
            });
        }
        let theta = settings
            .path_number(&["rope_parameters", "full_attention", "rope_theta"])
            .or(settings.number(&["rope_theta"])?)
            .unwrap_or(1_000_000.0);
        ("full_attention", theta)
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
            "a query sees at most the {window} tokens up to itself: computed for at most \
             {window} tokens, where the window hides nothing"
        ));
        Some(window)
    } else {
        None
    };
    Ok(Gemma3Attention {
        scale: 1.0 / scalar.sqrt(),
        rope,
        window,
    })
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
            16,
            &mut notes,
        )
        .unwrap();
        assert_eq!(found.rope.theta(), 10_000.0);
        assert_eq!(found.window, Some(512));
        assert!((found.scale - 1.0 / 12.0).abs() < 1e-15);
        assert!(notes.iter().any(|note| note.contains("sliding_attention")));
    }

    #[expect(clippy::float_cmp, reason = "settings read back exactly")]
    #[test]
    fn a_full_attention_layer_0_turns_by_rope_theta_and_refuses_a_scaling() {
        let full = r#"{"layer_types": ["full_attention"], "rope_parameters": {
            "full_attention": {"rope_theta": 1000000.0, "rope_type": "default"},
            "sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"}}}"#;
        let found = attention(&settings(full), 16, &mut Vec::new()).unwrap();
        assert_eq!(found.rope.theta(), 1_000_000.0);
        assert_eq!(found.window, None);
        let scaled = full.replace(
            r#""rope_theta": 1000000.0, "rope_type": "default""#,
            r#""rope_theta": 1000000.0, "rope_type": "linear", "factor": 8.0"#,
        );
        assert_eq!(
            attention(&settings(&scaled), 16, &mut Vec::new()).unwrap_err(),
            Unavailable::Setting {
                name: "rope_scaling".to_owned(),
                value: "linear".to_owned()
            }
        );
    }

    #[test]
    fn capped_scores_and_attention_both_ways_are_refused() {
        for json in [
            r#"{"attn_logit_softcapping": 50.0}"#,
            r#"{"use_bidirectional_attention": true}"#,
        ] {
            assert!(matches!(
                attention(&settings(json), 16, &mut Vec::new()),
                Err(Unavailable::Setting { .. })
            ));
        }
    }
}
