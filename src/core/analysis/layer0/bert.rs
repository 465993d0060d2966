//! BERT-style layer 0: `BertSelfAttention` over the embedding block's `LayerNorm` output.

use super::heads::{HeadLayout, Scoring};
use super::input::InputStage;
use super::linear::Linear;
use super::source::{Settings, TensorSource, has, layer_norm, matrix, optional_vector};
use super::{
    Architecture, Layer0, ModelContext, Parts, Unavailable, epsilon, inverse_sqrt, token_table,
};
use crate::core::files::padding_position_offset;

/// The name that marks a BERT-style layer 0, after any prefix (`bert.`, `roberta.`).
pub const QUERY_SUFFIX: &str = "encoder.layer.0.attention.self.query.weight";

/// `model_type`s whose layer 0 is not plain `BertSelfAttention` over the embeddings.
const OTHER_MODEL_TYPES: [&str; 4] = ["electra", "albert", "deberta", "deberta-v2"];

/// Reads a BERT-style layer 0 whose tensor names start with `prefix`.
///
/// # Errors
/// [`Unavailable`] when a model type differs, a tensor is missing or malformed.
pub fn load(
    source: &dyn TensorSource,
    settings: &Settings,
    prefix: &str,
) -> Result<Layer0, Unavailable> {
    let model_type = settings.text("model_type").map(str::to_owned);
    if let Some(kind) = model_type
        .as_deref()
        .filter(|t| OTHER_MODEL_TYPES.contains(t))
    {
        return Err(Unavailable::ModelType {
            architecture: Architecture::Bert,
            model_type: Some(kind.to_owned()),
        });
    }
    let embeddings = format!("{prefix}embeddings.");
    let token_name = format!("{embeddings}word_embeddings.weight");
    let (token, hidden) = token_table(source, &token_name, &format!("{prefix}{QUERY_SUFFIX}"))?;
    let position_name = format!("{embeddings}position_embeddings.weight");
    let positions = source
        .shape(&position_name)
        .and_then(|shape| shape.shape.first().copied())
        .ok_or_else(|| Unavailable::Invalid(format!("no {position_name}")))?;
    let position = matrix(source, &position_name, positions, hidden)?;
    // Where position 0 reads: the same answer the tables' reader gives (one home for it).
    let position_offset = padding_position_offset(
        model_type.as_deref(),
        settings.number(&["pad_token_id"])?,
        settings.number(&["max_position_embeddings"])?,
        positions,
    )
    .map_err(|error| Unavailable::Invalid(format!("config.json: {error}")))?
    .map_or(0, |pad| pad + 1);
    let token_type_name = format!("{embeddings}token_type_embeddings.weight");
    let token_type = if has(source, &token_type_name) {
        let types = source
            .shape(&token_type_name)
            .and_then(|shape| shape.shape.first().copied())
            .unwrap_or(0);
        matrix(source, &token_type_name, types, hidden)?
            .row(0)
            .ok_or_else(|| Unavailable::Invalid(format!("{token_type_name} has no row 0")))?
    } else {
        ndarray::Array1::zeros(hidden)
    };
    let (eps, eps_note) = epsilon(settings, &["layer_norm_eps"], 1e-12)?;
    let (weight, bias) = if has(source, &format!("{embeddings}LayerNorm.weight")) {
        ("weight", "bias")
    } else {
        ("gamma", "beta")
    };
    let norm = layer_norm(
        source,
        &format!("{embeddings}LayerNorm.{weight}"),
        &format!("{embeddings}LayerNorm.{bias}"),
        hidden,
        eps,
    )?;
    let heads = settings
        .count(&["num_attention_heads"], hidden)?
        .ok_or_else(|| Unavailable::Setting {
            name: "num_attention_heads".to_owned(),
            value: "nothing".to_owned(),
        })?;
    if !hidden.is_multiple_of(heads) {
        return Err(Unavailable::Invalid(format!(
            "{hidden} numbers do not split into {heads} heads"
        )));
    }
    let attention = format!("{prefix}encoder.layer.0.attention.self.");
    let linear = |name: &str| -> Result<Linear, Unavailable> {
        let weight = matrix(source, &format!("{attention}{name}.weight"), hidden, hidden)?;
        let bias = optional_vector(source, &format!("{attention}{name}.bias"), hidden)?;
        Ok(Linear::new(weight, bias)?)
    };
    let projections = [linear("query")?, linear("key")?, linear("value")?];
    let head_dims = hidden / heads;
    Parts {
        architecture: Architecture::Bert,
        model_type,
        input: InputStage::Bert {
            token,
            position,
            position_offset,
            token_type,
            norm,
        },
        projections,
        head_norms: None,
        layout: HeadLayout {
            heads,
            kv_heads: heads,
            head_dims,
        },
        rope: None,
        causal: false,
        scoring: Scoring::scaled(inverse_sqrt(head_dims)),
        context: ModelContext::PositionRows(positions.saturating_sub(position_offset)),
        notes: vec![format!("embeddings LayerNorm: {eps_note}")],
    }
    .build()
}
