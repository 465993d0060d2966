//! The CSV format: one line per token or row, a column per number.

use std::io::{self, Write};

use ndarray::ArrayView1;

use super::number::push_display;
use super::rows::write_rows;
use crate::core::tables::weights::{EmbeddingModel, TokenLookup};

/// A CSV field, quoted as RFC 4180 asks when it holds a comma, a quote or a line break.
pub(super) fn csv_field(text: &str) -> String {
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
fn csv_vector(line: &mut Vec<u8>, vector: Option<ArrayView1<f32>>, dims: usize) {
    match vector {
        Some(vector) => csv_numbers(line, vector.iter().copied()),
        None => line.resize(line.len() + dims, b','),
    }
}

/// Numbers, each after a comma, as `Display` writes them (shortest round-tripping digits).
fn csv_numbers(line: &mut Vec<u8>, values: impl Iterator<Item = f32>) {
    for value in values {
        line.push(b',');
        push_display(line, value);
    }
}

pub(super) fn lookup_csv(
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
    let mut line = Vec::new();
    for lookup in lookups {
        let id = lookup.token.id.map(|id| id.to_string()).unwrap_or_default();
        line.clear();
        write!(
            line,
            "{},{},{id}",
            lookup.token.position,
            csv_field(&lookup.token.text)
        )?;
        csv_vector(
            &mut line,
            lookup.token_vector.as_ref().map(|v| v.view()),
            dims,
        );
        csv_vector(&mut line, lookup.position.vector(), dims);
        csv_vector(
            &mut line,
            lookup.input_vector.as_ref().map(|v| v.view()),
            dims,
        );
        line.push(b'\n');
        out.write_all(&line)?;
    }
    Ok(())
}

pub(super) fn matrix_csv(model: &EmbeddingModel, out: &mut impl Write) -> io::Result<()> {
    write!(out, "id,token")?;
    csv_vector_header(out, "d", model.dims())?;
    writeln!(out)?;
    write_rows(model, out, |line, id, row| {
        let token = model
            .token_text(id)
            .map(|text| csv_field(&text))
            .unwrap_or_default();
        let _ = write!(line, "{id},{token}");
        csv_numbers(line, row.iter().copied());
        line.push(b'\n');
        false
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::*;
    use crate::core::text::vocabulary::VocabKind;

    /// The matrix as `write!` with `Display` writes it, one row after another.
    fn reference(model: &EmbeddingModel) -> String {
        let mut text = String::from("id,token");
        for dim in 0..model.dims() {
            let _ = write!(text, ",d{dim}");
        }
        text.push('\n');
        for id in 0..model.rows() {
            let token = model
                .token_text(id)
                .map(|t| csv_field(&t))
                .unwrap_or_default();
            let _ = write!(text, "{id},{token}");
            for value in model.lookup(id).unwrap() {
                let _ = write!(text, ",{value}");
            }
            text.push('\n');
        }
        text
    }

    #[test]
    fn matrix_csv_is_displays_text_row_after_row() {
        for model in [
            EmbeddingModel::builtin(VocabKind::Words, 7),
            // Many batches of rows, formatted on several threads, written in order.
            EmbeddingModel::shaped(30_000, 3, 8, 5).unwrap(),
        ] {
            let mut out = Vec::new();
            matrix_csv(&model, &mut out).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), reference(&model));
        }
    }
}
