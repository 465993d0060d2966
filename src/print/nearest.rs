//! `embedlens nearest`: the rows of the whole table nearest one row by cosine, exactly as the
//! similarity pane finds them (one scan for both: [`nearest_rows_once`] is the pane's
//! `nearest_rows` reading a file's rows from it rather than through its map, as a process that
//! reads them once should).

use std::io::{self, Write};

use anyhow::{Result, bail};
use serde::Serialize;

use super::timings::Stopwatch;
use super::{table_name, write_or_stop};
use crate::cli::{NearestArgs, NearestFormat};
use crate::core::analysis::similarity::nearest_rows_once;
use crate::core::tables::positional::{PositionScheme, PositionVector};
use crate::core::tables::weights::{DEFAULT_CONTEXT_LENGTH, EmbeddingModel};
use crate::core::text::printable::printable;
use crate::core::text::vocabulary::Token;

/// Prints the `--top` rows nearest a word's row (or `--id`'s), or its input vector at `--at`
/// with `--positions`; with `--timings`, one line on `timings` with each stage's time.
///
/// # Errors
/// When the table cannot be opened, the word is not one token with a row, the id has no
/// row, the position has no vector, the row has length zero, or writing fails.
pub fn nearest(args: &NearestArgs, out: &mut impl Write, timings: &mut impl Write) -> Result<()> {
    let mut stopwatch = Stopwatch::start();
    let (model, _) = args.table.open(DEFAULT_CONTEXT_LENGTH)?;
    let token = query_token(&model, args)?;
    stopwatch.lap("open");
    let Some(lookup) = model
        .embed(std::slice::from_ref(&token), args.positions)
        .pop()
    else {
        bail!("the token was not looked up");
    };
    if let Some(warning) = lookup.position.warning() {
        bail!(warning);
    }
    let Some(query) = lookup.input_vector else {
        bail!("id {} has no row", token.id.unwrap_or_default());
    };
    let rows = nearest_rows_once(model.token_table(), query.view(), usize::from(args.top));
    stopwatch.lap("scan");
    let id = token.id.unwrap_or_default();
    if rows.is_empty() {
        bail!("row {id} has length zero: it points nowhere, so no row is nearest to it");
    }
    let added = matches!(lookup.position, PositionVector::Added(_));
    let query = Query {
        text: &token.text,
        id,
        positions: args.positions,
        at: (args.positions != PositionScheme::None).then(|| args.at.unwrap_or(0)),
        added,
    };
    write_or_stop(out, |out| match args.format {
        NearestFormat::Table => nearest_table(&model, &query, &rows, out),
        NearestFormat::Json => nearest_json(&model, &query, &rows, out),
    })?;
    stopwatch.lap("print");
    if args.timings {
        writeln!(timings, "{}", stopwatch.line())?;
    }
    Ok(())
}

/// The token whose row the scan starts from: the word, read as exactly one token, or `--id`.
fn query_token(model: &EmbeddingModel, args: &NearestArgs) -> Result<Token> {
    let mut token = match (&args.word, args.id) {
        (_, Some(id)) => model.tokens_from_ids(&[id])?.remove(0),
        (Some(word), None) => {
            let mut tokens = model.tokenize_with(word, false)?;
            if tokens.len() != 1 {
                let texts: Vec<String> = tokens
                    .iter()
                    .map(|t| printable(&t.text).into_owned())
                    .collect();
                bail!(
                    "\"{}\" is {} tokens ({}): nearest starts from one row; give one token, \
                     or its id with --id",
                    printable(word),
                    tokens.len(),
                    texts.join(", ")
                );
            }
            tokens.remove(0)
        }
        (None, None) => bail!("give a word, or a row's id with --id"),
    };
    if token.unknown || token.id.is_none() {
        bail!(
            "\"{}\" is not in the {} vocabulary",
            printable(&token.text),
            model.tokenizer().map_or(model.label(), |t| t.name())
        );
    }
    token.position = args.at.unwrap_or(0);
    Ok(token)
}

/// What the scan started from.
struct Query<'a> {
    text: &'a str,
    id: usize,
    positions: PositionScheme,
    at: Option<usize>,
    /// Whether a position vector was added to the row (learned, sinusoidal).
    added: bool,
}

impl Query<'_> {
    /// The vector the scan compared with, in words.
    fn describe(&self) -> String {
        let row = format!("'{}' (id {})", printable(self.text), self.id);
        match self.at {
            Some(at) if self.added => {
                format!("{row} + its {} position vector at {at}", self.positions)
            }
            Some(at) => format!(
                "{row} at {at} ({} adds nothing to the token vector)",
                self.positions
            ),
            None => row,
        }
    }
}

fn nearest_table(
    model: &EmbeddingModel,
    query: &Query,
    rows: &[(usize, f64)],
    out: &mut impl Write,
) -> io::Result<()> {
    writeln!(
        out,
        "Nearest rows to {} among all {} rows, by cosine over all {} dims, exact ({}):",
        query.describe(),
        model.rows(),
        model.dims(),
        table_name(model)
    )?;
    writeln!(out, "{}", model.table_kind().nearest_rows_note())?;
    let names: Vec<String> = rows
        .iter()
        .map(|&(id, _)| {
            model
                .token_text(id)
                .map(|text| printable(&text).into_owned())
                .unwrap_or_default()
        })
        .collect();
    let id_width = rows
        .iter()
        .map(|(id, _)| id.to_string().len())
        .max()
        .unwrap_or(0)
        .max(2);
    let name_width = names
        .iter()
        .map(|name| name.chars().count())
        .max()
        .unwrap_or(0)
        .max(5);
    writeln!(
        out,
        "rank  {:>id_width$}  {:<name_width$}  cosine",
        "id", "token"
    )?;
    for (rank, (&(id, cosine), name)) in rows.iter().zip(&names).enumerate() {
        writeln!(
            out,
            "{:>4}  {id:>id_width$}  {name:<name_width$}  {cosine:.4}",
            rank + 1
        )?;
    }
    Ok(())
}

/// `nearest --format json`.
#[derive(Serialize)]
struct NearestJson<'a> {
    table: String,
    shape: [usize; 2],
    query: QueryJson<'a>,
    nearest: Vec<RowJson>,
}

#[derive(Serialize)]
struct QueryJson<'a> {
    text: &'a str,
    id: usize,
    positions: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    at: Option<usize>,
}

/// One of the nearest rows; `cosine` as the f64 the scan computed.
#[derive(Serialize)]
struct RowJson {
    id: usize,
    token: Option<String>,
    cosine: f64,
}

fn nearest_json(
    model: &EmbeddingModel,
    query: &Query,
    rows: &[(usize, f64)],
    out: &mut impl Write,
) -> io::Result<()> {
    let report = NearestJson {
        table: table_name(model),
        shape: [model.rows(), model.dims()],
        query: QueryJson {
            text: query.text,
            id: query.id,
            positions: query.positions.name(),
            at: query.at,
        },
        nearest: rows
            .iter()
            .map(|&(id, cosine)| RowJson {
                id,
                token: model.token_text(id),
                cosine,
            })
            .collect(),
    };
    serde_json::to_writer_pretty(&mut *out, &report)?;
    writeln!(out)
}
