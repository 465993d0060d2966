//! The CSV format: one line per token or row, a column per number.

use std::io::{self, Write};

use ndarray::ArrayView1;

use super::table_rows;
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

pub(super) fn matrix_csv(model: &EmbeddingModel, out: &mut impl Write) -> io::Result<()> {
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
