//! `embedlens attention` and `embedlens compare --model`: the model's own layer 0, printed.

use std::io::{self, Write};

use anyhow::{Result, anyhow, bail};
use serde::Serialize;

use super::json::NON_FINITE_AS_NULL;
use super::number::fixed4_row;
use super::timings::Stopwatch;
use super::write_or_stop;
use crate::cli::{AttentionArgs, AttentionFormat, HeadChoice};
use crate::core::analysis::layer0::{Layer0, Layer0Run};
use crate::core::explain::layer0::{MissingRow, PairError, SentenceIds, SentencePair};
use crate::core::files::Opened;
use crate::core::tables::weights::EmbeddingModel;
use crate::core::text::printable::printable;

/// Prints the model's own layer 0 for a sentence: each chosen head's weights and context, and
/// each token's output (all heads' contexts side by side, before the output projection); with
/// `--timings`, one line on `timings` with each stage's time.
///
/// # Errors
/// When no model is given, the model has no usable layer 0 (the message says why), a token
/// has no id, a head does not exist, or writing fails.
pub fn attention(
    args: &AttentionArgs,
    out: &mut impl Write,
    timings: &mut impl Write,
) -> Result<()> {
    let mut stopwatch = Stopwatch::start();
    let Some(Opened {
        path,
        model,
        layer0,
    }) = args.model.open()?
    else {
        bail!("attention runs a model's own first layer: give the model with --model PATH");
    };
    let layer = match layer0 {
        Ok(layer) => layer,
        Err(why) => bail!(
            "{}: the model's own layer 0 cannot be computed: {why}",
            path.display()
        ),
    };
    let tokens = match (&args.ids, &args.sentence) {
        (Some(ids), _) => model.tokens_from_ids(ids)?,
        (None, Some(sentence)) => model.tokenize_with(sentence, !args.model.no_special_tokens)?,
        (None, None) => bail!("give a sentence, or token ids with --ids"),
    };
    let ids = SentenceIds::of(&layer, &tokens, usize::MAX);
    if let Some(missing) = &ids.missing {
        bail!(missing_message(&layer, missing));
    }
    let ids = ids.ids;
    let heads: Vec<usize> = match args.head {
        HeadChoice::All => (0..layer.heads()).collect(),
        HeadChoice::One(head) if head < layer.heads() => vec![head],
        HeadChoice::One(head) => bail!(
            "head {head} does not exist: layer 0 has {} heads, 0 to {}",
            layer.heads(),
            layer.heads() - 1
        ),
    };
    stopwatch.lap("open");
    let (run, times) = layer.run_timed(&ids, !args.no_positions)?;
    stopwatch.add("norm", times.norm);
    stopwatch.add("projections", times.projections);
    stopwatch.add("heads", times.heads);
    let texts: Vec<String> = tokens.iter().map(|token| token.text.clone()).collect();
    write_or_stop(out, |out| match args.format {
        AttentionFormat::Json => attention_json(&model, &layer, &run, &texts, &heads, out),
        AttentionFormat::Table => attention_table(&model, &layer, &run, &texts, &heads, out),
    })?;
    stopwatch.lap("print");
    if args.timings {
        writeln!(timings, "{}", stopwatch.line())?;
    }
    Ok(())
}

fn family(layer: &Layer0) -> String {
    match layer.model_type() {
        Some(kind) => format!("{} ({kind})", layer.architecture()),
        None => layer.architecture().to_string(),
    }
}

/// `embedlens attention --format json`.
#[derive(Serialize)]
struct AttentionJson<'a> {
    model: &'a str,
    family: String,
    positions: bool,
    causal: bool,
    query_heads: usize,
    key_value_heads: usize,
    head_width: usize,
    heads: Vec<HeadJson>,
    tokens: Vec<TokenJson<'a>>,
    /// Present when some value is NaN or infinite, which JSON writes as null.
    #[serde(skip_serializing_if = "Option::is_none")]
    warning: Option<&'static str>,
}

/// One head: its weights (tokens × tokens) and context (tokens × head width).
#[derive(Serialize)]
struct HeadJson {
    head: usize,
    weights: Vec<Vec<f32>>,
    context: Vec<Vec<f32>>,
}

/// One token and its layer-0 output.
#[derive(Serialize)]
struct TokenJson<'a> {
    text: &'a str,
    id: usize,
    output: Vec<f32>,
}

fn token_json<'a>(run: &Layer0Run, texts: &'a [String]) -> Vec<TokenJson<'a>> {
    texts
        .iter()
        .zip(&run.ids)
        .zip(run.outputs.rows())
        .map(|((text, &id), output)| TokenJson {
            text,
            id,
            output: output.to_vec(),
        })
        .collect()
}

fn attention_json(
    model: &EmbeddingModel,
    layer: &Layer0,
    run: &Layer0Run,
    texts: &[String],
    heads: &[usize],
    out: &mut impl Write,
) -> io::Result<()> {
    let heads = heads
        .iter()
        .map(|&head| {
            let result = &run.heads[head];
            HeadJson {
                head,
                weights: result
                    .weights
                    .rows()
                    .into_iter()
                    .map(|row| row.iter().map(|&w| round(w)).collect())
                    .collect(),
                context: result
                    .context
                    .rows()
                    .into_iter()
                    .map(|row| row.to_vec())
                    .collect(),
            }
        })
        .collect();
    let value = AttentionJson {
        model: model.label(),
        family: family(layer),
        positions: run.with_positions,
        causal: layer.is_causal(),
        query_heads: layer.heads(),
        key_value_heads: layer.kv_heads(),
        head_width: layer.head_dims(),
        heads,
        tokens: token_json(run, texts),
        warning: non_finite(run).then_some(NON_FINITE_AS_NULL),
    };
    serde_json::to_writer(&mut *out, &value)?;
    writeln!(out)
}

/// Whether a run holds a value JSON cannot write (NaN or infinity): its outputs, or any
/// head's weights or context.
fn non_finite(run: &Layer0Run) -> bool {
    run.outputs.iter().any(|x| !x.is_finite())
        || run.heads.iter().any(|head| {
            head.weights.iter().any(|w| !w.is_finite())
                || head.context.iter().any(|x| !x.is_finite())
        })
}

/// An attention weight as the float32 PyTorch would hold.
fn round(weight: f64) -> f32 {
    crate::core::analysis::layer0::linear::round_to_f32(weight)
}

fn attention_table(
    model: &EmbeddingModel,
    layer: &Layer0,
    run: &Layer0Run,
    texts: &[String],
    heads: &[usize],
    out: &mut impl Write,
) -> io::Result<()> {
    writeln!(
        out,
        "{}: layer 0 of a {} model, {} query heads, {} key/value heads, {} numbers each",
        model.label(),
        printable(&family(layer)),
        layer.heads(),
        layer.kv_heads(),
        layer.head_dims()
    )?;
    writeln!(out, "{}", positions_line(layer, run.with_positions))?;
    for note in layer.notes() {
        writeln!(out, "  {note}")?;
    }
    let labels: Vec<String> = texts
        .iter()
        .enumerate()
        .map(|(index, text)| format!("{index} {}", printable(text)))
        .collect();
    let label_width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    for &head in heads {
        let result = &run.heads[head];
        writeln!(
            out,
            "\nhead {head} (key/value head {}): weights, row = query token, column = key token",
            head / (layer.heads() / layer.kv_heads())
        )?;
        for (label, row) in labels.iter().zip(result.weights.rows()) {
            writeln!(
                out,
                "{label:<label_width$} {}",
                fixed4_row(row.iter().copied(), 0)
            )?;
        }
        writeln!(out, "head {head}: context (its output for each token)")?;
        for (label, row) in labels.iter().zip(result.context.rows()) {
            writeln!(
                out,
                "{label:<label_width$} {}",
                fixed4_row(row.iter().copied(), 0)
            )?;
        }
    }
    writeln!(
        out,
        "\nlayer-0 output of each token (all {} heads' contexts side by side, before the output \
         projection, {} numbers)",
        layer.heads(),
        run.outputs.ncols()
    )?;
    for ((label, id), row) in labels.iter().zip(&run.ids).zip(run.outputs.rows()) {
        writeln!(
            out,
            "{label:<label_width$} id {id}: {}",
            fixed4_row(row.iter().copied(), 0)
        )?;
    }
    Ok(())
}

/// Which position information went in, in words.
fn positions_line(layer: &Layer0, with_positions: bool) -> String {
    let mask = if layer.is_causal() {
        "causal mask (each token sees itself and the tokens before it)"
    } else {
        "no mask (every token sees every token)"
    };
    let positions = match (layer.rope(), with_positions) {
        (Some(_), true) => "positions: on (queries and keys rotated by RoPE)",
        (Some(_), false) => "positions: off (no rotation: every token as if at position 0)",
        (None, true) => "positions: on (the learned position table is added)",
        (None, false) => "positions: off (no position table: the token vectors alone)",
    };
    format!("{positions}; {mask}")
}

/// Why a token cannot go through layer 0, as the print subcommands say it.
fn missing_message(layer: &Layer0, missing: &MissingRow) -> String {
    match missing.id {
        None => format!("\"{}\" has no id in the model's vocabulary", missing.text),
        Some(id) => format!(
            "id {id} has no row: the token table has {} rows",
            layer.token_rows()
        ),
    }
}

/// `embedlens compare --model --format json`.
#[derive(Serialize)]
struct CompareJson<'a> {
    model: &'a str,
    family: String,
    a: &'a str,
    b: &'a str,
    states: Vec<StateJson<'a>>,
    /// Present when some value is NaN or infinite, which JSON writes as null.
    #[serde(skip_serializing_if = "Option::is_none")]
    warning: Option<&'static str>,
}

/// Both sentences without or with the model's positions, and the verdict.
#[derive(Serialize)]
struct StateJson<'a> {
    positions: bool,
    verdict: &'a str,
    a: Vec<TokenJson<'a>>,
    b: Vec<TokenJson<'a>>,
}

/// `embedlens compare --model`: both sentences through the model's own layer 0, without and
/// with its positions, and what that shows.
///
/// # Errors
/// When a sentence has a token without an id, too many tokens, or writing fails.
pub(super) fn compare_real(
    model: &EmbeddingModel,
    layer: &Layer0,
    sentences: [&str; 2],
    special_tokens: bool,
    json_format: bool,
    out: &mut impl Write,
) -> Result<()> {
    let mut tokens = Vec::with_capacity(2);
    for sentence in sentences {
        let read = model.tokenize_with(sentence, special_tokens)?;
        if read.is_empty() {
            bail!("\"{sentence}\" has no tokens");
        }
        tokens.push(read);
    }
    let mut states = Vec::new();
    for with_positions in [false, true] {
        let pair =
            SentencePair::compute(layer, [&tokens[0], &tokens[1]], usize::MAX, with_positions)
                .map_err(|error| match error {
                    PairError::MissingRow { missing, .. } => {
                        anyhow!(missing_message(layer, &missing))
                    }
                    PairError::NoTokens { sentence } => {
                        anyhow!("\"{}\" has no tokens", sentences[sentence])
                    }
                    PairError::Run(why) => anyhow!(why),
                })?;
        let verdict = pair.sentence();
        states.push((with_positions, pair, verdict));
    }
    let texts = &states[0].1.words;
    write_or_stop(out, |out| {
        if json_format {
            let value = CompareJson {
                model: model.label(),
                family: family(layer),
                a: sentences[0],
                b: sentences[1],
                states: states
                    .iter()
                    .map(|(with_positions, pair, verdict)| StateJson {
                        positions: *with_positions,
                        verdict,
                        a: token_json(&pair.runs[0], &texts[0]),
                        b: token_json(&pair.runs[1], &texts[1]),
                    })
                    .collect(),
                warning: states
                    .iter()
                    .any(|(_, pair, _)| pair.runs.iter().any(non_finite))
                    .then_some(NON_FINITE_AS_NULL),
            };
            serde_json::to_writer(&mut *out, &value)?;
            return writeln!(out);
        }
        writeln!(
            out,
            "{}: the model's own layer 0 ({}, {} heads), each token's output before the output \
             projection",
            model.label(),
            printable(&family(layer)),
            layer.heads()
        )?;
        for (with_positions, pair, verdict) in &states {
            writeln!(out, "\n{}", positions_line(layer, *with_positions))?;
            let [a, b] = &pair.runs;
            for (name, run, texts) in [("A", a, &texts[0]), ("B", b, &texts[1])] {
                writeln!(out, "{name}: {}", sentences[usize::from(name == "B")])?;
                for ((index, text), row) in texts.iter().enumerate().zip(run.outputs.rows()) {
                    let more = if row.len() > 6 { " …" } else { "" };
                    writeln!(
                        out,
                        "  {index} {:<12} {}{more}",
                        printable(text),
                        fixed4_row(row.iter().take(6).copied(), 0)
                    )?;
                }
            }
            writeln!(out, "{verdict}")?;
        }
        Ok(())
    })
}
