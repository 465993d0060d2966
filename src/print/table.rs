//! The table format: aligned columns, numbers rounded to four decimals as PyTorch prints.

use std::io::{self, Write};

use ndarray::ArrayView1;

use super::number::{Fixed4, fixed4_row};
use super::{scheme_name, seed_note, table_name};
use crate::core::analysis::attention::Mask;
use crate::core::analysis::compare::Comparison;
use crate::core::explain::readout::{SharedUnknownRow, describe_copies};
use crate::core::tables::positional::PositionScheme;
use crate::core::tables::weights::{EmbeddingModel, TokenLookup};
use crate::core::text::tokenizer::TextTokenizer;
use crate::core::text::vocabulary::UNKNOWN;

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
    let mut fixed = Fixed4::new();
    let numbers: Vec<Option<Vec<String>>> = vectors
        .map(|vector| {
            vector.map(|v| {
                v.iter()
                    .map(|&value| fixed.format(value).to_owned())
                    .collect()
            })
        })
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
    let unknown_row = || {
        lookup
            .token
            .id
            .and_then(|id| model.token_text(id))
            .unwrap_or_else(|| UNKNOWN.to_owned())
    };
    lookup.token.unknown.then(|| {
        format!(
            "not in the {vocabulary} vocabulary; read as {}",
            unknown_row()
        )
    })
}

pub(super) fn lookup_table(
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

    // One sentence per repeated word, told from its first copy; then one for different
    // unknown words that share a row, told from the first of them.
    let first_copy = |index: usize| {
        let token = &lookups[index].token;
        lookups[..index]
            .iter()
            .all(|earlier| !earlier.token.is_copy_of(token))
    };
    let first_unknown = |index: usize| {
        let token = &lookups[index].token;
        lookups[..index]
            .iter()
            .all(|earlier| !(earlier.token.unknown && earlier.token.id == token.id))
    };
    let readouts: Vec<String> = (0..lookups.len())
        .filter(|&index| first_copy(index))
        .filter_map(|index| describe_copies(lookups, index, scheme))
        .chain(
            (0..lookups.len())
                .filter(|&index| first_unknown(index))
                .filter_map(|index| SharedUnknownRow::of(lookups, index))
                .map(|shared| format!("{shared}.")),
        )
        .collect();
    if !readouts.is_empty() {
        writeln!(out)?;
        for readout in readouts {
            writeln!(out, "{readout}")?;
        }
    }
    Ok(())
}

/// Writes the weight matrix row by row: a first pass over the rows finds the column widths,
/// a second writes them, so memory stays flat however large the table (a mapped row is read
/// twice, never held).
pub(super) fn matrix_table(model: &EmbeddingModel, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "{}{}", table_name(model), seed_note(model))?;
    let named = model.tokenizer().is_some();
    let mut columns = vec![Column::right("id")];
    if named {
        columns.push(Column::left("token"));
    }
    // One cell a row, spaced as PyTorch prints a tensor, so rows compare digit by digit.
    columns.push(Column::left("token vector"));
    let mut widths: Vec<usize> = columns.iter().map(|column| width(&column.header)).collect();
    widths[0] = widths[0].max(model.rows().saturating_sub(1).to_string().len());
    let mut extremes = NumberExtremes::default();
    for id in 0..model.rows() {
        if let Some(row) = model.lookup(id) {
            row.iter().for_each(|&value| extremes.add(value));
        }
        if named {
            let text = model.token_text(id).unwrap_or_default();
            widths[1] = widths[1].max(width(&text));
        }
    }
    let number_width = extremes.width();
    let headers: Vec<&str> = columns
        .iter()
        .map(|column| column.header.as_str())
        .collect();
    write_line(out, &columns, &widths, &headers, None)?;
    for id in 0..model.rows() {
        let Some(row) = model.lookup(id) else {
            continue;
        };
        let mut cells = vec![id.to_string()];
        if named {
            cells.push(model.token_text(id).unwrap_or_default());
        }
        cells.push(fixed4_row(row.iter().copied(), number_width));
        write_line(out, &columns, &widths, &cells, None)?;
    }
    Ok(())
}

/// What decides the widest of a column's numbers at four decimals: the largest magnitude of
/// each sign, and whether NaN or an infinity appears. (The width of `{:.4}` grows with the
/// magnitude, and a minus sign adds one.)
#[derive(Default)]
struct NumberExtremes {
    largest_positive: Option<f32>,
    largest_negative: Option<f32>,
    nan: bool,
    positive_infinity: bool,
    negative_infinity: bool,
}

impl NumberExtremes {
    fn add(&mut self, value: f32) {
        if value.is_nan() {
            self.nan = true;
        } else if value.is_infinite() {
            if value > 0.0 {
                self.positive_infinity = true;
            } else {
                self.negative_infinity = true;
            }
        } else {
            let side = if value.is_sign_negative() {
                &mut self.largest_negative
            } else {
                &mut self.largest_positive
            };
            *side = Some(side.map_or(value.abs(), |largest| largest.max(value.abs())));
        }
    }

    /// The widest of the numbers written with four decimals.
    fn width(&self) -> usize {
        let mut samples = Vec::new();
        samples.extend(self.largest_positive);
        samples.extend(self.largest_negative.map(|magnitude| -magnitude));
        if self.nan {
            samples.push(f32::NAN);
        }
        if self.positive_infinity {
            samples.push(f32::INFINITY);
        }
        if self.negative_infinity {
            samples.push(f32::NEG_INFINITY);
        }
        samples
            .into_iter()
            .map(|value| format!("{value:.4}").len())
            .max()
            .unwrap_or(0)
    }
}

pub(super) fn compare_table(comparison: &Comparison, out: &mut impl Write) -> io::Result<()> {
    let mask = match comparison.mask {
        Mask::None => "unmasked (every token sees every token)",
        Mask::Causal => "causal mask",
    };
    writeln!(out, "positions: {}, attention: {mask}", comparison.scheme)?;
    if let Some(note) = comparison.left_out_note() {
        writeln!(out, "{note}")?;
    }
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
    if let Some(same) = comparison.verdicts.same_input_vectors {
        writeln!(out, "same input vectors: {}", verdict(same))?;
    }
    for difference in &comparison.id_differences {
        writeln!(out, "{difference}")?;
    }
    writeln!(out)?;
    for sentence in comparison.verdicts.sentences(comparison.scheme) {
        writeln!(out, "{sentence}")?;
    }
    Ok(())
}
