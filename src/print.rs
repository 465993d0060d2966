//! The print subcommands: `lookup` and `matrix` as table, JSON or CSV.
//!
//! JSON and CSV write every float32 in its shortest form that parses back to the same float32
//! (`serde_json` writes `f32` with `ryu`, CSV uses `f32`'s `Display`), so a script can compare
//! values bit for bit with PyTorch. The table rounds to four decimals, as PyTorch prints.

use std::io::{self, BufWriter, Write};

use anyhow::{Result, bail};
use ndarray::{Array1, ArrayView1};
use serde::Serialize;

use crate::cli::{CompareArgs, Format, InspectArgs, LookupArgs, MatrixArgs};
use crate::core::attention::Mask;
use crate::core::compare::Comparison;
use crate::core::positional::PositionScheme;
use crate::core::readout::describe_copies;
use crate::core::text_tokenizer::TextTokenizer;
use crate::core::tokenizer::UNKNOWN;
use crate::core::weights::{DEFAULT_CONTEXT_LENGTH, EmbeddingModel, TokenLookup};

/// Prints each token's lookup: position, text, id, token vector, position vector, input vector.
///
/// The tokens come from the sentence, read with the vocabulary, or from `--ids`; the table is
/// a built-in vocabulary's or an unnamed `--shape`. A closed pipe (`| head`) ends the output
/// quietly.
///
/// # Errors
/// When the table cannot be built, an id has no row, a `--shape` table is given a sentence
/// instead of ids, there are no tokens, or writing fails.
pub fn lookup(args: &LookupArgs, out: &mut impl Write) -> Result<()> {
    let model = args.table.model(args.context_length)?;
    let tokens = match (&args.ids, &args.sentence) {
        (Some(ids), _) => model.tokens_from_ids(ids)?,
        (None, Some(sentence)) => {
            model.tokenize_with(sentence, !args.table.model.no_special_tokens)?
        }
        (None, None) => bail!("give a sentence, or token ids with --ids"),
    };
    if tokens.is_empty() {
        bail!(if args.ids.is_some() {
            "there are no token ids to look up"
        } else {
            "the sentence has no tokens"
        });
    }
    let scheme = args.positions;
    let lookups = model.embed(&tokens, scheme);
    write_or_stop(out, |out| match args.table.format {
        Format::Table => lookup_table(&model, &lookups, scheme, out),
        Format::Json => lookup_json(&model, &lookups, scheme, out),
        Format::Csv => lookup_csv(&model, &lookups, out),
    })
}

/// Prints the weight matrix: one row per id, named by the vocabulary when there is one.
///
/// # Errors
/// When the table cannot be built or writing fails.
pub fn matrix(args: &MatrixArgs, out: &mut impl Write) -> Result<()> {
    let model = args.table.model(DEFAULT_CONTEXT_LENGTH)?;
    write_or_stop(out, |out| match args.table.format {
        Format::Table => matrix_table(&model, out),
        Format::Json => matrix_json(&model, out),
        Format::Csv => matrix_csv(&model, out),
    })
}

/// Runs `write` on a buffered `out`; a reader that closed the pipe early is not an error.
fn write_or_stop<W: Write>(
    out: &mut W,
    write: impl FnOnce(&mut BufWriter<&mut W>) -> io::Result<()>,
) -> Result<()> {
    let mut buffered = BufWriter::new(out);
    match write(&mut buffered).and_then(|()| buffered.flush()) {
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        result => Ok(result?),
    }
}

/// Prints `embedlens compare`: what two sentences hand the model, and one head's outputs.
///
/// # Errors
/// When the table cannot be built, a sentence cannot be compared (a word without a row), or
/// writing fails.
pub fn compare(args: &CompareArgs, out: &mut impl Write) -> Result<()> {
    let model = args.table.model(DEFAULT_CONTEXT_LENGTH)?;
    let mask = if args.causal {
        Mask::Causal
    } else {
        Mask::None
    };
    let comparison = crate::core::compare::compare(
        &model,
        &args.first,
        &args.second,
        args.positions,
        mask,
        args.table.seed,
    )?;
    write_or_stop(out, |out| match args.table.format {
        Format::Json => compare_json(&comparison, out),
        Format::Table | Format::Csv => compare_table(&comparison, out),
    })
}

/// `compare --format json`: both sentences' tokens and the verdicts.
#[derive(Serialize)]
struct CompareReport<'a> {
    positions: &'static str,
    mask: &'static str,
    sentences: Vec<SentenceReport<'a>>,
    same_token_vectors: bool,
    same_mean_vector: bool,
    links: &'a [(usize, usize)],
    id_differences: &'a [String],
}

#[derive(Serialize)]
struct SentenceReport<'a> {
    text: &'a str,
    tokens: Vec<ComparedToken<'a>>,
}

#[derive(Serialize)]
struct ComparedToken<'a> {
    position: usize,
    text: &'a str,
    id: Option<usize>,
    token_vector: Option<Vec<f32>>,
    position_vector: Option<Vec<f32>>,
    input_vector: Option<Vec<f32>>,
    attention_output: Option<Vec<f32>>,
}

fn compare_json(comparison: &Comparison, out: &mut impl Write) -> io::Result<()> {
    let sentences = comparison
        .sentences
        .iter()
        .map(|sentence| SentenceReport {
            text: &sentence.text,
            tokens: sentence
                .lookups
                .iter()
                .enumerate()
                .map(|(index, lookup)| ComparedToken {
                    position: lookup.token.position,
                    text: &lookup.token.text,
                    id: lookup.token.id,
                    token_vector: lookup.token_vector.as_ref().map(|v| v.to_vec()),
                    position_vector: lookup.position.vector().map(|v| v.to_vec()),
                    input_vector: lookup.input_vector.as_ref().map(|v| v.to_vec()),
                    attention_output: sentence.attention.outputs.get(index).map(|v| v.to_vec()),
                })
                .collect(),
        })
        .collect();
    let report = CompareReport {
        positions: comparison.scheme.name(),
        mask: comparison.mask.name(),
        sentences,
        same_token_vectors: comparison.same_token_vectors,
        same_mean_vector: comparison.same_mean_vector,
        links: &comparison.links,
        id_differences: &comparison.id_differences,
    };
    serde_json::to_writer_pretty(&mut *out, &report)?;
    writeln!(out)
}

fn compare_table(comparison: &Comparison, out: &mut impl Write) -> io::Result<()> {
    let mask = match comparison.mask {
        Mask::None => "unmasked (every token sees every token)",
        Mask::Causal => "causal mask",
    };
    writeln!(out, "positions: {}, attention: {mask}", comparison.scheme)?;
    for (name, sentence) in ["A", "B"].iter().zip(&comparison.sentences) {
        writeln!(out, "\n{name}: {}", sentence.text)?;
        let columns = [
            Column::right("pos"),
            Column::left("text"),
            Column::right("id"),
            Column::left("input vector"),
            Column::left("attention output"),
        ];
        let inputs = vector_cells(
            sentence
                .lookups
                .iter()
                .map(|lookup| lookup.input_vector.as_ref().map(|v| v.view())),
        );
        let outputs = vector_cells(sentence.attention.outputs.iter().map(|v| Some(v.view())));
        let rows: Vec<Row> = sentence
            .lookups
            .iter()
            .zip(inputs)
            .zip(outputs)
            .map(|((lookup, input), output)| Row {
                cells: vec![
                    lookup.token.position.to_string(),
                    lookup.token.text.clone(),
                    lookup
                        .token
                        .id
                        .map_or_else(|| "—".to_owned(), |id| id.to_string()),
                    input.unwrap_or_default(),
                    output.unwrap_or_default(),
                ],
                note: None,
            })
            .collect();
        write_columns(out, &columns, &rows)?;
    }
    let verdict = |same: bool| if same { "yes" } else { "no" };
    writeln!(out)?;
    writeln!(
        out,
        "same token vectors: {}",
        verdict(comparison.same_token_vectors)
    )?;
    writeln!(
        out,
        "same mean vector: {}",
        verdict(comparison.same_mean_vector)
    )?;
    for difference in &comparison.id_differences {
        writeln!(out, "{difference}")?;
    }
    Ok(())
}

/// Prints `embedlens inspect`: every tensor of a model file and what was detected.
///
/// # Errors
/// When the files cannot be read, or the output cannot be written.
pub fn inspect(args: &InspectArgs, out: &mut impl Write) -> Result<()> {
    let inspection = crate::core::model_file::inspect(&args.path)?;
    write_or_stop(out, |out| write!(out, "{inspection}"))
}

/// The table's name, as the heading of the table format says it.
fn table_name(model: &EmbeddingModel) -> String {
    let shape = format!("{}x{} weights", model.rows(), model.dims());
    match model.tokenizer() {
        Some(tokenizer) => format!("{} vocabulary, {shape}", tokenizer.name()),
        None => format!("unnamed table, {shape}"),
    }
}

/// `, seed N` for generated tables; nothing for tables read from a file.
fn seed_note(model: &EmbeddingModel) -> String {
    model
        .seed()
        .map(|seed| format!(", seed {seed}"))
        .unwrap_or_default()
}

/// Every row of the weight matrix, in id order.
fn table_rows(model: &EmbeddingModel) -> impl Iterator<Item = Array1<f32>> + '_ {
    (0..model.rows()).filter_map(|id| model.lookup(id))
}

/// The position scheme as the heading says it, with the learned table's reach.
fn scheme_name(model: &EmbeddingModel, scheme: PositionScheme) -> String {
    match scheme {
        PositionScheme::Learned => {
            format!("learned (context length {})", model.context_length())
        }
        PositionScheme::Rope | PositionScheme::Alibi => {
            format!("{scheme} (inside attention: nothing is added to the token vectors)")
        }
        PositionScheme::None | PositionScheme::Sinusoidal => scheme.to_string(),
    }
}

/// The vectors as `lookup --format json` writes them.
#[derive(Serialize)]
struct LookupReport<'a> {
    vocab: Option<&'a str>,
    shape: [usize; 2],
    positions: &'static str,
    tokens: Vec<TokenReport<'a>>,
}

/// One token of [`LookupReport`]; `f32` fields so `serde_json` writes them shortest.
#[derive(Serialize)]
struct TokenReport<'a> {
    position: usize,
    text: &'a str,
    id: Option<usize>,
    token_vector: Option<Vec<f32>>,
    position_vector: Option<Vec<f32>>,
    input_vector: Option<Vec<f32>>,
    /// What the model's own embedding block outputs (GPT-2: wte + wpe; BERT: the sum with
    /// token type 0, then `LayerNorm`), beside the article's plain sum in `input_vector`.
    model_embedding: Option<Vec<f32>>,
    /// Whether the tokenizer added this token (such as `[CLS]`).
    special: bool,
    warning: Option<String>,
}

/// The weights as `matrix --format json` writes them.
#[derive(Serialize)]
struct MatrixReport {
    shape: [usize; 2],
    tokens: Option<Vec<String>>,
    rows: Vec<Vec<f32>>,
}

fn lookup_json(
    model: &EmbeddingModel,
    lookups: &[TokenLookup],
    scheme: PositionScheme,
    out: &mut impl Write,
) -> io::Result<()> {
    let report = LookupReport {
        vocab: model.tokenizer().map(TextTokenizer::name),
        shape: [model.rows(), model.dims()],
        positions: scheme.name(),
        tokens: lookups
            .iter()
            .map(|lookup| TokenReport {
                position: lookup.token.position,
                text: &lookup.token.text,
                id: lookup.token.id,
                token_vector: lookup.token_vector.as_ref().map(|v| v.to_vec()),
                position_vector: lookup.position.vector().map(|v| v.to_vec()),
                input_vector: lookup.input_vector.as_ref().map(|v| v.to_vec()),
                model_embedding: lookup.model_embedding.as_ref().map(|v| v.to_vec()),
                special: lookup.token.special,
                warning: lookup
                    .position
                    .warning()
                    .or_else(|| lookup.token.id.and_then(|id| model.non_finite_warning(id))),
            })
            .collect(),
    };
    serde_json::to_writer_pretty(&mut *out, &report)?;
    writeln!(out)
}

fn matrix_json(model: &EmbeddingModel, out: &mut impl Write) -> io::Result<()> {
    let report = MatrixReport {
        shape: [model.rows(), model.dims()],
        tokens: model.tokenizer().map(|tokenizer| {
            (0..model.rows())
                .map(|id| tokenizer.token_text(id).unwrap_or_default())
                .collect()
        }),
        rows: table_rows(model).map(|row| row.to_vec()).collect(),
    };
    serde_json::to_writer_pretty(&mut *out, &report)?;
    writeln!(out)
}

/// A CSV field, quoted as RFC 4180 asks when it holds a comma, a quote or a line break.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// Header cells `prefix0,prefix1,…` for a vector of `dims` numbers, each after a comma.
fn csv_vector_header(out: &mut impl Write, prefix: &str, dims: usize) -> io::Result<()> {
    (0..dims).try_for_each(|dim| write!(out, ",{prefix}{dim}"))
}

/// A vector's cells, each after a comma: shortest round-tripping numbers, or empty cells.
fn csv_vector(
    out: &mut impl Write,
    vector: Option<ArrayView1<f32>>,
    dims: usize,
) -> io::Result<()> {
    match vector {
        Some(vector) => vector.iter().try_for_each(|value| write!(out, ",{value}")),
        None => (0..dims).try_for_each(|_| write!(out, ",")),
    }
}

fn lookup_csv(
    model: &EmbeddingModel,
    lookups: &[TokenLookup],
    out: &mut impl Write,
) -> io::Result<()> {
    let dims = model.dims();
    write!(out, "position,text,id")?;
    for prefix in ["token_", "position_", "input_"] {
        csv_vector_header(out, prefix, dims)?;
    }
    writeln!(out)?;
    for lookup in lookups {
        let id = lookup.token.id.map(|id| id.to_string()).unwrap_or_default();
        write!(
            out,
            "{},{},{id}",
            lookup.token.position,
            csv_field(&lookup.token.text)
        )?;
        csv_vector(out, lookup.token_vector.as_ref().map(|v| v.view()), dims)?;
        csv_vector(out, lookup.position.vector(), dims)?;
        csv_vector(out, lookup.input_vector.as_ref().map(|v| v.view()), dims)?;
        writeln!(out)?;
    }
    Ok(())
}

fn matrix_csv(model: &EmbeddingModel, out: &mut impl Write) -> io::Result<()> {
    write!(out, "id,token")?;
    csv_vector_header(out, "d", model.dims())?;
    writeln!(out)?;
    for (id, row) in table_rows(model).enumerate() {
        let token = model
            .token_text(id)
            .map(|text| csv_field(&text))
            .unwrap_or_default();
        write!(out, "{id},{token}")?;
        csv_vector(out, Some(row.view()), model.dims())?;
        writeln!(out)?;
    }
    Ok(())
}

/// A column of the table format.
struct Column {
    header: String,
    right_aligned: bool,
}

impl Column {
    fn left(header: impl Into<String>) -> Self {
        Self {
            header: header.into(),
            right_aligned: false,
        }
    }

    fn right(header: impl Into<String>) -> Self {
        Self {
            header: header.into(),
            right_aligned: true,
        }
    }
}

/// A row of the table format: its first cells, then an optional note instead of the rest.
struct Row {
    cells: Vec<String>,
    note: Option<String>,
}

/// How many terminal columns a cell takes.
fn width(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

/// Writes aligned columns two spaces apart; a row's note follows its last cell.
fn write_columns(out: &mut impl Write, columns: &[Column], rows: &[Row]) -> io::Result<()> {
    let mut widths: Vec<usize> = columns.iter().map(|column| width(&column.header)).collect();
    for row in rows {
        for (column_width, cell) in widths.iter_mut().zip(&row.cells) {
            *column_width = (*column_width).max(width(cell));
        }
    }
    let headers: Vec<&str> = columns
        .iter()
        .map(|column| column.header.as_str())
        .collect();
    write_line(out, columns, &widths, &headers, None)?;
    for row in rows {
        write_line(out, columns, &widths, &row.cells, row.note.as_deref())?;
    }
    Ok(())
}

fn write_line(
    out: &mut impl Write,
    columns: &[Column],
    widths: &[usize],
    cells: &[impl AsRef<str>],
    note: Option<&str>,
) -> io::Result<()> {
    let mut line = String::new();
    for ((column, &column_width), cell) in columns.iter().zip(widths).zip(cells) {
        let cell = cell.as_ref();
        let padding = " ".repeat(column_width.saturating_sub(width(cell)));
        if !line.is_empty() {
            line.push_str("  ");
        }
        if column.right_aligned {
            line.push_str(&padding);
            line.push_str(cell);
        } else {
            line.push_str(cell);
            line.push_str(&padding);
        }
    }
    if let Some(note) = note {
        line.push_str("  ");
        line.push_str(note);
    }
    writeln!(out, "{}", line.trim_end())
}

/// Formats a column of vectors: four decimals, right-aligned to one width across the column.
fn vector_cells<'a>(
    vectors: impl Iterator<Item = Option<ArrayView1<'a, f32>>>,
) -> Vec<Option<String>> {
    let numbers: Vec<Option<Vec<String>>> = vectors
        .map(|vector| vector.map(|v| v.iter().map(|value| format!("{value:.4}")).collect()))
        .collect();
    let number_width = numbers
        .iter()
        .flatten()
        .flatten()
        .map(|number| width(number))
        .max()
        .unwrap_or(0);
    numbers
        .into_iter()
        .map(|vector| {
            vector.map(|numbers| {
                numbers
                    .iter()
                    .map(|number| format!("{number:>number_width$}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
        })
        .collect()
}

/// Why a lookup row stops early or needs a word: no row, no position, or `<|unk|>`.
fn lookup_note(model: &EmbeddingModel, lookup: &TokenLookup) -> Option<String> {
    let vocabulary = model.tokenizer().map_or(model.label(), TextTokenizer::name);
    if lookup.token_vector.is_none() {
        return Some(format!("not in the {vocabulary} vocabulary"));
    }
    if let Some(warning) = lookup.position.warning() {
        return Some(warning);
    }
    let reads_unknown = lookup
        .token
        .id
        .and_then(|id| model.token_text(id))
        .is_some_and(|text| text == UNKNOWN && lookup.token.text != UNKNOWN);
    reads_unknown.then(|| format!("not in the {vocabulary} vocabulary; read as {UNKNOWN}"))
}

fn lookup_table(
    model: &EmbeddingModel,
    lookups: &[TokenLookup],
    scheme: PositionScheme,
    out: &mut impl Write,
) -> io::Result<()> {
    writeln!(
        out,
        "{}, positions: {}{}",
        table_name(model),
        scheme_name(model, scheme),
        seed_note(model)
    )?;
    let mut columns = vec![
        Column::right("pos"),
        Column::left("text"),
        Column::right("id"),
        Column::left("token vector"),
    ];
    let mut vector_columns =
        vec![vector_cells(lookups.iter().map(|lookup| {
            lookup.token_vector.as_ref().map(|v| v.view())
        }))];
    if scheme != PositionScheme::None {
        columns.push(Column::left("+ position vector"));
        columns.push(Column::left("= input vector"));
        vector_columns.push(vector_cells(
            lookups.iter().map(|lookup| lookup.position.vector()),
        ));
        vector_columns.push(vector_cells(
            lookups
                .iter()
                .map(|lookup| lookup.input_vector.as_ref().map(|v| v.view())),
        ));
    }
    let rows: Vec<Row> = lookups
        .iter()
        .enumerate()
        .map(|(index, lookup)| {
            let mut cells = vec![
                lookup.token.position.to_string(),
                lookup.token.text.clone(),
                lookup
                    .token
                    .id
                    .map_or_else(|| "—".to_owned(), |id| id.to_string()),
            ];
            cells.extend(
                vector_columns
                    .iter()
                    .map_while(|column| column[index].clone()),
            );
            Row {
                cells,
                note: lookup_note(model, lookup),
            }
        })
        .collect();
    write_columns(out, &columns, &rows)?;

    // One sentence per repeated id, told from its first copy.
    let readouts: Vec<String> = (0..lookups.len())
        .filter(|&index| {
            let id = lookups[index].token.id;
            lookups[..index]
                .iter()
                .all(|earlier| earlier.token.id != id)
        })
        .filter_map(|index| describe_copies(lookups, index, scheme))
        .collect();
    if !readouts.is_empty() {
        writeln!(out)?;
        for readout in readouts {
            writeln!(out, "{readout}")?;
        }
    }
    Ok(())
}

fn matrix_table(model: &EmbeddingModel, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "{}{}", table_name(model), seed_note(model))?;
    let named = model.tokenizer().is_some();
    let mut columns = vec![Column::right("id")];
    if named {
        columns.push(Column::left("token"));
    }
    // One cell a row, spaced as PyTorch prints a tensor, so rows compare digit by digit.
    columns.push(Column::left("token vector"));
    let rows: Vec<Array1<f32>> = table_rows(model).collect();
    let vectors = vector_cells(rows.iter().map(|row| Some(row.view())));
    let rows: Vec<Row> = vectors
        .into_iter()
        .enumerate()
        .map(|(id, vector)| {
            let mut cells = vec![id.to_string()];
            if named {
                cells.push(model.token_text(id).unwrap_or_default());
            }
            cells.extend(vector);
            Row { cells, note: None }
        })
        .collect();
    write_columns(out, &columns, &rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Args, Command};
    use clap::Parser;

    /// Runs a print subcommand as the binary would, returning its output or its error.
    fn run(arguments: &[&str]) -> Result<String> {
        let args =
            Args::try_parse_from(std::iter::once("embedlens").chain(arguments.iter().copied()))?;
        let mut out = Vec::new();
        match args.command.expect("a subcommand") {
            Command::Lookup(lookup_args) => lookup(&lookup_args, &mut out)?,
            Command::Matrix(matrix_args) => matrix(&matrix_args, &mut out)?,
            Command::Inspect(inspect_args) => inspect(&inspect_args, &mut out)?,
            Command::Compare(compare_args) => compare(&compare_args, &mut out)?,
        }
        Ok(String::from_utf8(out)?)
    }

    #[test]
    fn lookup_table_shows_the_articles_numbers_and_the_readout() {
        let table = run(&["lookup", "fox bites the fox"]).unwrap();
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(
            lines[0],
            "seed vocabulary, 6x3 weights, positions: none, seed 123"
        );
        assert_eq!(lines[1], "pos  text   id  token vector");
        assert_eq!(lines[2], "  0  fox     2   1.2753 -0.2010 -0.1606");
        assert_eq!(
            lines.last(),
            Some(&"fox at 0 and 3: same row 2, distance 0.0000")
        );
    }

    #[test]
    fn lookup_table_with_positions_adds_two_columns() {
        let table = run(&["lookup", "fox bites the fox", "--positions", "learned"]).unwrap();
        assert!(table.starts_with(
            "seed vocabulary, 6x3 weights, positions: learned (context length 16), seed 123\n"
        ));
        let header = table.lines().nth(1).unwrap();
        assert!(
            header.ends_with("token vector             + position vector        = input vector"),
            "{header}"
        );
        assert!(table.contains("-2.1338  1.0524 -0.3885"), "{table}");
        let readout = table.lines().last().unwrap();
        assert!(
            readout.starts_with(
                "fox at 0 and 3: same row 2, distance 0.0000; with learned positions "
            )
        );
    }

    #[test]
    fn lookup_table_notes_missing_rows_and_positions() {
        let table = run(&["lookup", "the cat"]).unwrap();
        assert!(
            table.contains("  1  cat    —  not in the seed vocabulary\n"),
            "{table}"
        );
        let far = run(&[
            "lookup",
            "--shape",
            "6x3",
            "--ids",
            "0,1,2",
            "--context-length",
            "2",
            "--positions",
            "learned",
        ])
        .unwrap();
        assert!(
            far.starts_with("unnamed table, 6x3 weights, positions: learned (context length 2)")
        );
        assert!(
            far.lines()
                .nth(4)
                .unwrap()
                .ends_with(" -0.1606  position 2 is beyond the context length 2"),
            "{far}"
        );
        let unknown = run(&["lookup", "--vocab", "words", "zzyzzx"]).unwrap();
        assert!(
            unknown.contains("not in the words vocabulary; read as <|unk|>"),
            "{unknown}"
        );
    }

    #[test]
    fn json_writes_the_shortest_float32() {
        let json = run(&["lookup", "the", "--format", "json"]).unwrap();
        assert!(json.contains("0.3373702,"), "{json}");
        assert!(!json.contains("0.3373701870441437"));
        assert!(json.ends_with("}\n"));
    }

    #[test]
    fn csv_writes_display_floats_and_empty_cells() {
        let csv = run(&["lookup", "the cat", "--format", "csv"]).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines[0],
            "position,text,id,token_0,token_1,token_2,position_0,position_1,position_2,input_0,input_1,input_2"
        );
        assert_eq!(
            lines[1],
            "0,the,0,0.3373702,-0.17777722,-0.16895628,,,,0.3373702,-0.17777722,-0.16895628"
        );
        assert_eq!(lines[2], "1,cat,,,,,,,,,,");
    }

    #[test]
    fn csv_quotes_only_what_needs_quoting() {
        assert_eq!(csv_field("fox"), "fox");
        assert_eq!(csv_field(","), "\",\"");
        assert_eq!(csv_field("\""), "\"\"\"\"");
        assert_eq!(csv_field("a\nb"), "\"a\nb\"");
        let csv = run(&["matrix", "--vocab", "words", "--format", "csv"]).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert!(
            lines[2].starts_with(r#"1,"""",0.76710707,"#),
            "{}",
            lines[2]
        );
        assert!(
            lines[12].starts_with(r#"11,",",-1.6025081,"#),
            "{}",
            lines[12]
        );
    }

    #[test]
    fn matrix_table_rounds_as_pytorch_prints() {
        let table = run(&["matrix"]).unwrap();
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines[0], "seed vocabulary, 6x3 weights, seed 123");
        assert_eq!(lines[1], "id  token  token vector");
        assert_eq!(lines[7], " 5  man    -2.8400 -0.7849 -1.4096");
        assert_eq!(lines.len(), 8);
        let unnamed = run(&["matrix", "--shape", "2x2"]).unwrap();
        assert_eq!(
            unnamed.lines().nth(1),
            Some("id  token vector"),
            "{unnamed}"
        );
    }

    #[test]
    fn errors_explain_themselves() {
        let empty = run(&["lookup", "  "]).unwrap_err().to_string();
        assert_eq!(empty, "the sentence has no tokens");
        let words = run(&["lookup", "--shape", "6x3", "fox"])
            .unwrap_err()
            .to_string();
        assert!(words.contains("--ids"), "{words}");
        let far = run(&["lookup", "--ids", "6"]).unwrap_err().to_string();
        assert!(far.contains("id 6 has no row"), "{far}");
    }

    #[test]
    fn a_closed_pipe_ends_the_output_quietly() {
        struct ClosedPipe;
        impl Write for ClosedPipe {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let args = Args::try_parse_from(["embedlens", "matrix", "--vocab", "words"]).unwrap();
        let Some(Command::Matrix(matrix_args)) = args.command else {
            unreachable!()
        };
        assert!(matrix(&matrix_args, &mut ClosedPipe).is_ok());
    }
}
