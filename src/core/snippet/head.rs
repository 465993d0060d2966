//! The script's position vectors for each scheme, and the seeded attention head, worked as
//! embedlens works them.

use super::View;
use super::python::Script;
use super::tables::Tables;
use crate::core::analysis::attention::Mask;
use crate::core::tables::positional::{ALIBI_HEADS, PositionScheme, alibi_slopes};

/// `embed(ids, positions)`: token vectors, position vectors and their sum, the input vectors.
pub(super) fn embed_function(script: &mut Script, view: &View, tables: Tables) {
    script.line("def embed(ids, positions):");
    script.line("    token_vectors = token_table(ids)");
    let zeros = "    position_vectors = torch.zeros_like(token_vectors)";
    match view.scheme {
        PositionScheme::None => {
            script.line(format!("{zeros}  # positions off (p): nothing is added"));
        }
        PositionScheme::Learned if tables.position_table => {
            script.line("    position_vectors = position_table(positions)  # row p of the table");
        }
        PositionScheme::Learned => {
            script.line(format!("{zeros}  # no learned position table"));
        }
        PositionScheme::Sinusoidal => {
            script.line(
                "    # Sinusoidal: sin in even dimensions, cos in odd ones, dimension pair i at the",
            );
            script.line(
                "    # angle position / 10000^(2i / width), in float64, rounded once to float32.",
            );
            script.line("    width = token_vectors.shape[1]");
            script.line("    pair = torch.arange(width) // 2 * 2");
            script.line(
                "    angles = positions[:, None].double() / 10000.0 ** (pair.double() / width)",
            );
            script.line(
                "    position_vectors = torch.where(pair == torch.arange(width), angles.sin(), \
                 angles.cos()).float()",
            );
        }
        PositionScheme::Rope | PositionScheme::Alibi => {
            script.line(format!(
                "{zeros}  # {} adds nothing here: it acts inside attention",
                view.scheme.label()
            ));
        }
    }
    script.line("    return token_vectors, position_vectors, token_vectors + position_vectors");
}

/// The seeded head: three `nn.Linear` layers after `torch.manual_seed(seed)`, and
/// `self_attention(inputs, positions)` as the attention pane computes it.
pub(super) fn seeded(script: &mut Script, view: &View, seed: u64, mask: Mask) {
    let dims = view.model.dims();
    script.comment(&format!(
        "One head of self-attention, as the attention pane (a) computes it: the book's \
         SelfAttention_v2, three nn.Linear({dims}, {dims}, bias=False) layers drawn after \
         torch.manual_seed({seed}) again, query, key, value."
    ));
    script.line(format!("torch.manual_seed({seed})"));
    for name in ["W_query", "W_key", "W_value"] {
        script.line(format!(
            "{name} = torch.nn.Linear({dims}, {dims}, bias=False)"
        ));
    }
    let scheme = view.scheme;
    if scheme == PositionScheme::Rope {
        script.blank();
        script.blank();
        script.line("def rope(vectors, positions):");
        script.line(
            "    # RoPE as embedlens turns queries and keys: dimensions 2i and 2i+1 as a pair, turned",
        );
        script.line(
            "    # by the angle position * 10000^(-2i / width), in float64, rounded once to float32.",
        );
        script.line("    x = vectors.double()");
        script.line("    width = x.shape[1]");
        script.line("    even = torch.arange(0, width - 1, 2)");
        script
            .line("    angles = positions[:, None].double() * 10000.0 ** (-even.double() / width)");
        script.line("    cos, sin = angles.cos(), angles.sin()");
        script.line("    turned = x.clone()");
        script.line("    turned[:, even] = x[:, even] * cos - x[:, even + 1] * sin");
        script.line("    turned[:, even + 1] = x[:, even] * sin + x[:, even + 1] * cos");
        script.line("    return turned.float()");
    }
    script.blank();
    script.blank();
    script.line("def self_attention(inputs, positions):");
    script.line(
        "    # Sums in float64, rounded once to float32, as embedlens works them: so reordering the",
    );
    script.line(
        "    # words cannot change a bit of an output (float32 sums follow the words' order).",
    );
    script.line("    x = inputs.double()");
    script.line("    queries = (x @ W_query.weight.double().T).float()");
    script.line("    keys = (x @ W_key.weight.double().T).float()");
    script.line("    values = (x @ W_value.weight.double().T).float()");
    if scheme == PositionScheme::Rope {
        script.line("    queries, keys = rope(queries, positions), rope(keys, positions)");
    }
    script.line("    scores = queries.double() @ keys.double().T / math.sqrt(keys.shape[1])");
    if scheme == PositionScheme::Alibi {
        let slope = alibi_slopes(ALIBI_HEADS)[0];
        script.line(format!(
            "    # ALiBi: the first of {ALIBI_HEADS} heads' slopes, {slope}, times the distance"
        ));
        script.line(format!(
            "    scores = scores - {slope} * (positions[:, None] - positions[None, :]).abs()"
        ));
    }
    if mask == Mask::Causal {
        script.line("    # The causal mask: no token sees the tokens after it.");
        script.line("    hidden = torch.ones_like(scores, dtype=torch.bool).triu(1)");
        script.line("    scores = scores.masked_fill(hidden, float(\"-inf\"))");
    }
    script.line("    weights = torch.softmax(scores, dim=-1)");
    script.line("    return weights, (weights @ values.double()).float()");
}
