//! `embedlens snippet`: the Python script that reproduces a view in PyTorch, as `y` copies it.

use std::io::Write;

use anyhow::{Result, bail};

use super::write_or_stop;
use crate::cli::SnippetArgs;
use crate::core::analysis::attention::Mask;
use crate::core::snippet::{Head, View, script};
use crate::core::tables::positional::PositionScheme;
use crate::core::text::sentence;

/// Prints the script for the sentence (or ids), table, positions and attention asked for.
///
/// # Errors
/// When the table cannot be opened, the sentence has no tokens, an option does not apply
/// (`--causal` or `--head` beside a model's own layer 0, a head it lacks), or writing fails.
pub fn snippet(args: &SnippetArgs, out: &mut impl Write) -> Result<()> {
    let input = &args.input;
    let (model, layer0) = input.table.open(input.context_length)?;
    let special_tokens = !input.table.model.no_special_tokens;
    let (sentence, tokens, by_ids) = match (&input.ids, &input.sentence) {
        (Some(ids), _) => {
            let typed: Vec<String> = ids.iter().map(ToString::to_string).collect();
            (typed.join(" "), model.tokens_from_ids(ids)?, true)
        }
        (None, Some(text)) => {
            let read = sentence::read(&model, text, special_tokens, false)?;
            (text.clone(), read.tokens, false)
        }
        (None, None) => bail!("give a sentence, or token ids with --ids"),
    };
    if tokens.is_empty() {
        bail!("the sentence has no tokens");
    }
    let mask = if args.causal {
        Mask::Causal
    } else {
        Mask::None
    };
    let attends = args.attention || args.compare.is_some();
    if args.causal && !attends {
        bail!("--causal masks the seeded head: it goes with --attention or --compare");
    }
    let attention = match layer0.as_ref() {
        Some(Ok(layer)) if attends => {
            if args.causal {
                bail!("--causal masks the seeded head; the model's own layer 0 keeps its own mask");
            }
            if args.head >= layer.heads() {
                bail!(
                    "--head {}: the model's layer 0 has {} heads (0 to {})",
                    args.head,
                    layer.heads(),
                    layer.heads() - 1
                );
            }
            Some(Head::Layer0 {
                layer,
                head: args.head,
                with_positions: input.positions != PositionScheme::None,
            })
        }
        _ if args.head != 0 => {
            bail!("--head chooses a head of a model's own layer 0, with --attention or --compare")
        }
        _ => attends.then_some(Head::Seeded {
            seed: input.table.seed,
            mask,
        }),
    };
    let from_files = input.table.model.model.is_some() || input.table.shape.is_some();
    let view = View {
        model: &model,
        vocab: (!from_files).then_some(input.table.vocab),
        sentence: &sentence,
        tokens: &tokens,
        by_ids,
        special_tokens,
        scheme: input.positions,
        attention,
        other: args.compare.as_deref(),
    };
    let text = script(&view)?;
    write_or_stop(out, |out| out.write_all(text.as_bytes()))
}
