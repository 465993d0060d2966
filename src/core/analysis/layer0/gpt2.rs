//! GPT-2's layer 0: `ln_1(token + position)` → `c_attn` → heads under the causal mask.

use ndarray::{Array2, s};

use super::heads::{HeadLayout, Scoring};
use super::input::InputStage;
use super::linear::Linear;
use super::source::{Settings, TensorSource, layer_norm, matrix, vector};
use super::{
    Architecture, Layer0, ModelContext, Parts, Unavailable, epsilon, inverse_sqrt, token_table,
};
use crate::core::tables::table::Table;

/// The name that marks GPT-2's layer 0, after any prefix (`transformer.`).
pub const ATTENTION_SUFFIX: &str = "h.0.attn.c_attn.weight";

/// Reads GPT-2's layer 0 whose tensor names start with `prefix`.
///
/// `c_attn` is a `Conv1D`: its weight is stored `hidden × 3·hidden` (input × output). It is
/// read once, turned to `outputs × inputs` (a GGUF file stores it so already), and split into
/// the query, key and value layers: the one copy of those matrices.
///
/// # Errors
/// [`Unavailable`] when a tensor is missing or malformed.
pub fn load(
    source: &dyn TensorSource,
    settings: &Settings,
    prefix: &str,
) -> Result<Layer0, Unavailable> {
    let token_name = format!("{prefix}wte.weight");
    let position_name = format!("{prefix}wpe.weight");
    let shape_of = |name: &str| {
        source.shape(name).map(|shape| shape.shape).ok_or_else(|| {
            Unavailable::Invalid(format!("no {name} beside {prefix}{ATTENTION_SUFFIX}"))
        })
    };
    let (token, hidden) = token_table(source, &token_name, &format!("{prefix}{ATTENTION_SUFFIX}"))?;
    let positions = shape_of(&position_name)?.first().copied().unwrap_or(0);
    let position = matrix(source, &position_name, positions, hidden)?;
    let (eps, eps_note) = epsilon(settings, &["layer_norm_epsilon"], 1e-5)?;
    let block = format!("{prefix}h.0.");
    let norm = layer_norm(
        source,
        &format!("{block}ln_1.weight"),
        &format!("{block}ln_1.bias"),
        hidden,
        eps,
    )?;
    let heads = settings
        .count(&["n_head", "num_attention_heads"], hidden)?
        .ok_or_else(|| Unavailable::Setting {
            name: "n_head".to_owned(),
            value: "nothing".to_owned(),
        })?;
    if !hidden.is_multiple_of(heads) {
        return Err(Unavailable::Invalid(format!(
            "{hidden} numbers do not split into {heads} heads"
        )));
    }
    if !settings.flag("scale_attn_weights", true)? {
        return Err(Unavailable::Setting {
            name: "scale_attn_weights".to_owned(),
            value: "false".to_owned(),
        });
    }
    let weight_name = format!("{block}attn.c_attn.weight");
    let transposed = if source.conversion().attention_weight_transposed {
        rows_of(&matrix(source, &weight_name, 3 * hidden, hidden)?)?
    } else {
        transpose(&matrix(source, &weight_name, hidden, 3 * hidden)?, hidden)?
    };
    let bias = vector(source, &format!("{block}attn.c_attn.bias"), 3 * hidden)?;
    let part = |index: usize| -> Result<Linear, Unavailable> {
        let rows = transposed.slice(s![index * hidden..(index + 1) * hidden, ..]);
        let bias = bias
            .slice(s![index * hidden..(index + 1) * hidden])
            .to_owned();
        Ok(Linear::new(Table::from(rows.to_owned()), Some(bias))?)
    };
    let projections = [part(0)?, part(1)?, part(2)?];
    let head_dims = hidden / heads;
    Parts {
        architecture: Architecture::Gpt2,
        model_type: settings.text("model_type").map(str::to_owned),
        input: InputStage::Gpt2 {
            token,
            position,
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
        causal: true,
        scoring: Scoring::scaled(inverse_sqrt(head_dims)),
        context: ModelContext::PositionRows(positions),
        notes: vec![format!("ln_1: {eps_note}")],
    }
    .build()
}

/// A weight already stored `outputs × inputs`, read into memory.
fn rows_of(weight: &Table) -> Result<Array2<f32>, Unavailable> {
    let mut rows = Array2::zeros((weight.rows(), weight.cols()));
    let complete = weight.for_each_row(|output, row| {
        rows.row_mut(output).assign(&ndarray::ArrayView1::from(row));
    });
    if complete {
        Ok(rows)
    } else {
        Err(Unavailable::Invalid("c_attn could not be read".to_owned()))
    }
}

/// A `Conv1D` weight (`inputs × outputs`) as `outputs × inputs`.
fn transpose(weight: &Table, inputs: usize) -> Result<Array2<f32>, Unavailable> {
    let mut transposed = Array2::zeros((weight.cols(), inputs));
    let complete = weight.for_each_row(|input, row| {
        transposed
            .column_mut(input)
            .assign(&ndarray::ArrayView1::from(row));
    });
    if complete {
        Ok(transposed)
    } else {
        Err(Unavailable::Invalid("c_attn could not be read".to_owned()))
    }
}
