//! The print subcommands (`lookup`, `matrix`, `compare`, `inspect`, `attention`, `nearest`),
//! one file per format.
//!
//! JSON and CSV write every float32 in its shortest form that parses back to the same float32
//! (JSON as `serde_json` writes `f32`, CSV as `f32`'s `Display`; both made by `zmij` in
//! `number.rs`), so a script can compare values bit for bit with PyTorch. The table rounds to four decimals, as PyTorch prints.

mod csv;
mod json;
mod layer0;
mod nearest;
mod number;
mod rows;
mod screen;
mod snippet;
mod table;
mod timings;

use std::io::{self, BufWriter, Write};

use anyhow::{Result, bail};

use crate::cli::{CompareArgs, CompletionsArgs, Format, InspectArgs, LookupArgs, MatrixArgs};
use crate::core::analysis::attention::Mask;
use crate::core::tables::positional::PositionScheme;
use crate::core::tables::trained;
use crate::core::tables::weights::{DEFAULT_CONTEXT_LENGTH, EmbeddingModel, TableKind};
use csv::{lookup_csv, matrix_csv};
use json::{compare_json, lookup_json, matrix_json};
pub use layer0::attention;
pub use nearest::nearest;
pub use screen::{draw_after_keys, export, parse_keys};
pub use snippet::snippet;
use table::{compare_table, lookup_table, matrix_table};

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
    let format = args.format;
    let args = &args.input;
    let (model, _) = args.table.open(args.context_length)?;
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
    write_or_stop(out, |out| match format {
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
    let (model, _) = args.table.open(DEFAULT_CONTEXT_LENGTH)?;
    write_matrix(&model, args.format, out)
}

/// Writes an opened model's weight matrix in `format`, buffered, as `matrix` does: what the
/// printer benchmark times.
///
/// # Errors
/// When writing fails (a closed pipe ends the output quietly).
pub fn write_matrix(model: &EmbeddingModel, format: Format, out: &mut impl Write) -> Result<()> {
    write_or_stop(out, |out| match format {
        Format::Table => matrix_table(model, out),
        Format::Json => matrix_json(model, out),
        Format::Csv => matrix_csv(model, out),
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

/// Prints `embedlens completions SHELL`: the shell's completion script.
///
/// The script is made whole first (`clap_complete` panics when its writer fails), so a
/// closed pipe ends the output quietly, as for the other subcommands.
///
/// # Errors
/// When writing fails.
pub fn completions(args: &CompletionsArgs, out: &mut impl Write) -> Result<()> {
    let script = args.script();
    write_or_stop(out, |out| out.write_all(&script))
}

/// Prints `embedlens compare`: what two sentences hand the model, and one head's outputs.
///
/// # Errors
/// When the table cannot be built, a sentence cannot be compared (a word without a row), or
/// writing fails.
pub fn compare(args: &CompareArgs, out: &mut impl Write) -> Result<()> {
    let (model, layer0) = args.table.open(DEFAULT_CONTEXT_LENGTH)?;
    let mut seeded_note = None;
    if let Some(layer0) = layer0 {
        match layer0 {
            Ok(layer) => {
                return layer0::compare_real(
                    &model,
                    &layer,
                    [&args.first, &args.second],
                    !args.table.model.no_special_tokens,
                    args.format == Format::Json,
                    out,
                );
            }
            Err(why) => seeded_note = Some(format!("a seeded head stands in: {why}")),
        }
    }
    let mask = if args.causal {
        Mask::Causal
    } else {
        Mask::None
    };
    let comparison = crate::core::analysis::compare::compare(
        &model,
        &args.first,
        &args.second,
        args.positions,
        mask,
        args.table.seed,
    )?;
    write_or_stop(out, |out| {
        if let Some(note) = &seeded_note
            && args.format != Format::Json
        {
            writeln!(out, "{note}")?;
        }
        match args.format {
            Format::Json => compare_json(&comparison, out),
            Format::Table | Format::Csv => compare_table(&comparison, out),
        }
    })
}

/// Prints `embedlens inspect`: every tensor of a model file and what was detected.
///
/// # Errors
/// When the files cannot be read, or the output cannot be written.
pub fn inspect(args: &InspectArgs, out: &mut impl Write) -> Result<()> {
    let inspection = crate::core::files::inspect(&args.source())?;
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

/// `, seed N` for generated tables, `, trained rows of …` for the built-in trained vocabulary;
/// nothing for tables read from a file.
fn seed_note(model: &EmbeddingModel) -> String {
    match model.table_kind() {
        TableKind::Random { seed } => format!(", seed {seed}"),
        TableKind::Trained if model.source().is_none() => {
            format!(", trained rows of {}", trained::MODEL_NAME)
        }
        TableKind::Trained => String::new(),
    }
}

/// The position scheme as the heading says it, with the learned table's reach.
fn scheme_name(model: &EmbeddingModel, scheme: PositionScheme) -> String {
    match scheme {
        // The scheme's name is "learned"; a seeded table was never trained, so says so.
        PositionScheme::Learned if model.is_trained() => {
            format!("learned (context length {})", model.context_length())
        }
        PositionScheme::Learned => format!(
            "learned (the table randomly initialised, not trained; context length {})",
            model.context_length()
        ),
        PositionScheme::Rope | PositionScheme::Alibi => {
            format!("{scheme} (inside attention: nothing is added to the token vectors)")
        }
        PositionScheme::None | PositionScheme::Sinusoidal => scheme.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::csv::csv_field;
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
            Command::Attention(attention_args) => {
                attention(&attention_args, &mut out, &mut io::sink())?;
            }
            Command::Nearest(nearest_args) => nearest(&nearest_args, &mut out, &mut io::sink())?,
            Command::Export(export_args) => export(&export_args)?,
            Command::Completions(completions_args) => completions(&completions_args, &mut out)?,
            Command::Snippet(snippet_args) => snippet(&snippet_args, &mut out)?,
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
            Some(&"fox at 0 and 3: same row 2, Euclidean distance 0.0000")
        );
    }

    #[test]
    fn lookup_table_with_positions_adds_two_columns() {
        let table = run(&["lookup", "fox bites the fox", "--positions", "learned"]).unwrap();
        assert!(table.starts_with(
            "seed vocabulary, 6x3 weights, positions: learned (the table randomly initialised, not trained; context length 16), seed 123\n"
        ));
        let header = table.lines().nth(1).unwrap();
        assert!(
            header.ends_with("token vector             + position vector        = input vector"),
            "{header}"
        );
        assert!(table.contains("-2.1338  1.0524 -0.3885"), "{table}");
        let readout = table.lines().last().unwrap();
        assert!(readout.starts_with(
            "fox at 0 and 3: same row 2, Euclidean distance 0.0000; with learned positions "
        ));
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
            far.starts_with("unnamed table, 6x3 weights, positions: learned (the table randomly initialised, not trained; context length 2)")
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
