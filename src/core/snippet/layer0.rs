//! A model's own layer 0 in the script: `transformers` runs it eagerly with
//! `output_attentions=True`, and a hook keeps what the attention module hands on.

use super::python::Script;
use super::tables::layer0_hook;
use crate::core::analysis::layer0::{Architecture, Layer0};

/// `layer0(ids)`: every head's weights and every token's output, with or without the model's
/// positions as embedlens runs it.
pub(super) fn function(script: &mut Script, layer: &Layer0, with_positions: bool) {
    script.comment(
        "The model's own layer 0, every head, as transformers computes it: run eagerly with \
         output_attentions=True; a hook keeps what the attention module hands on before its \
         output projection, every head's output side by side.",
    );
    script.line("def layer0(ids):");
    script.line("    kept = {}");
    script.line(format!(
        "    hook = {}",
        layer0_hook(layer.architecture(), layer.model_type())
    ));
    let mut call = "model(input_ids=ids[None], output_attentions=True".to_owned();
    let zeroed = match (with_positions, layer.architecture()) {
        (true, _) => None,
        (false, Architecture::Bert) => Some("model.embeddings.position_embeddings.weight"),
        (false, Architecture::Gpt2) => Some("model.wpe.weight"),
        (false, Architecture::Rotary) => {
            call.push_str(", position_ids=torch.zeros_like(ids)[None]");
            script
                .line("    # Positions off (p): every token at position 0, a rotation by nothing.");
            None
        }
    };
    call.push(')');
    if let Some(table) = zeroed {
        script.line(
            "    # Positions off (p): the position table all zeros, so no row adds anything.",
        );
        script.line(format!("    saved = {table}.clone()"));
        script.line(format!("    {table}.zero_()"));
    }
    script.line("    try:");
    script.line(format!("        output = {call}"));
    script.line("    finally:");
    script.line("        hook.remove()");
    if let Some(table) = zeroed {
        script.line(format!("        {table}.copy_(saved)"));
    }
    script.line("    return output.attentions[0][0], kept[\"outputs\"][0].reshape(len(ids), -1)");
}
