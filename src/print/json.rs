//! The JSON format: one report struct per subcommand, floats written shortest.

use std::io::{self, Write};

use serde::Serialize;

use super::number::push_json;
use super::rows::write_rows;
use crate::core::analysis::compare::Comparison;
use crate::core::tables::positional::PositionScheme;
use crate::core::tables::weights::{EmbeddingModel, TokenLookup};
use crate::core::text::tokenizer::TextTokenizer;

/// The vectors as `lookup --format json` writes them.
#[derive(Serialize)]
struct LookupReport<'a> {
    vocab: Option<&'a str>,
    shape: [usize; 2],
    positions: &'static str,
    tokens: Vec<TokenReport<'a>>,
    /// Present when some value is NaN or infinite, which JSON writes as null.
    #[serde(skip_serializing_if = "Option::is_none")]
    warning: Option<&'static str>,
}

/// A token's lookup, as both reports write it; `f32` fields so `serde_json` writes them
/// shortest.
#[derive(Serialize)]
struct TokenVectors<'a> {
    position: usize,
    text: &'a str,
    id: Option<usize>,
    token_vector: Option<Vec<f32>>,
    position_vector: Option<Vec<f32>>,
    input_vector: Option<Vec<f32>>,
}

impl<'a> TokenVectors<'a> {
    /// The vectors it holds.
    fn vectors(&self) -> impl Iterator<Item = &Vec<f32>> {
        [
            &self.token_vector,
            &self.position_vector,
            &self.input_vector,
        ]
        .into_iter()
        .flatten()
    }

    fn of(lookup: &'a TokenLookup) -> Self {
        Self {
            position: lookup.token.position,
            text: &lookup.token.text,
            id: lookup.token.id,
            token_vector: lookup.token_vector.as_ref().map(|v| v.to_vec()),
            position_vector: lookup.position.vector().map(|v| v.to_vec()),
            input_vector: lookup.input_vector.as_ref().map(|v| v.to_vec()),
        }
    }
}

/// One token of [`LookupReport`]: its lookup, then what the model itself would output.
#[derive(Serialize)]
struct TokenReport<'a> {
    #[serde(flatten)]
    lookup: TokenVectors<'a>,
    /// What the model's own embedding block outputs (GPT-2: wte + wpe; BERT: the sum with
    /// token type 0, then `LayerNorm`), beside the article's plain sum in `input_vector`.
    model_embedding: Option<Vec<f32>>,
    /// Whether the tokenizer added this token (such as `[CLS]`).
    special: bool,
    warning: Option<String>,
}

/// What a report says when it wrote NaN or an infinity: JSON has no such numbers.
pub(super) const NON_FINITE_AS_NULL: &str =
    "some values are NaN or infinite; JSON has no such numbers, so they are written as null";

/// Whether any of the vectors holds NaN or an infinity.
fn any_non_finite<'a>(vectors: impl IntoIterator<Item = &'a Vec<f32>>) -> bool {
    vectors
        .into_iter()
        .any(|vector| vector.iter().any(|value| !value.is_finite()))
}

/// `compare --format json`: both sentences' tokens and the verdicts.
#[derive(Serialize)]
struct CompareReport<'a> {
    positions: &'static str,
    mask: &'static str,
    sentences: Vec<SentenceReport<'a>>,
    wording: &'static str,
    same_token_vectors: bool,
    same_mean_vector: bool,
    /// Present when positions are added to the inputs (learned, sinusoidal).
    #[serde(skip_serializing_if = "Option::is_none")]
    same_input_vectors: Option<bool>,
    attention_verdict: AttentionVerdictReport<'a>,
    /// The verdicts as the explorer states them, in order.
    verdicts: Vec<String>,
    links: &'a [(usize, usize)],
    id_differences: &'a [String],
    /// How many tokens of each sentence were compared, when a sentence had more.
    #[serde(skip_serializing_if = "Option::is_none")]
    left_out: Option<String>,
    /// Present when some value is NaN or infinite, which JSON writes as null.
    #[serde(skip_serializing_if = "Option::is_none")]
    warning: Option<&'static str>,
}

/// Whether attention gives each shared word the same output in A and B, and overall.
#[derive(Serialize)]
struct AttentionVerdictReport<'a> {
    /// `identical`, `last_bit`, `differs` or `nothing_shared`.
    overall: &'static str,
    /// The largest difference of any number of any compared output (0 when identical).
    largest_difference: f64,
    words: Vec<WordVerdictReport<'a>>,
}

/// One word in both sentences: where it stands, and how its vectors compare.
#[derive(Serialize)]
struct WordVerdictReport<'a> {
    text: &'a str,
    a: usize,
    b: usize,
    /// `identical`, `last_bit` or `differs`.
    output: &'static str,
    output_difference: f64,
    /// Present when positions are added to the inputs.
    #[serde(skip_serializing_if = "Option::is_none")]
    input_vector: Option<&'static str>,
}

#[derive(Serialize)]
struct SentenceReport<'a> {
    text: &'a str,
    tokens: Vec<ComparedToken<'a>>,
}

/// One token of a sentence in [`CompareReport`]: its lookup, then the head's output.
#[derive(Serialize)]
struct ComparedToken<'a> {
    #[serde(flatten)]
    lookup: TokenVectors<'a>,
    attention_output: Option<Vec<f32>>,
}

pub(super) fn lookup_json(
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
                lookup: TokenVectors::of(lookup),
                model_embedding: lookup.model_embedding.as_ref().map(|v| v.to_vec()),
                special: lookup.token.special,
                warning: lookup
                    .position
                    .warning()
                    .or_else(|| lookup.token.id.and_then(|id| model.non_finite_warning(id))),
            })
            .collect(),
        warning: None,
    };
    let non_finite = report.tokens.iter().any(|token| {
        let vectors = token.lookup.vectors().chain(token.model_embedding.as_ref());
        any_non_finite(vectors)
    });
    let report = LookupReport {
        warning: non_finite.then_some(NON_FINITE_AS_NULL),
        ..report
    };
    serde_json::to_writer_pretty(&mut *out, &report)?;
    writeln!(out)
}

/// `matrix --format json`: `{shape, tokens, rows, warning?}` in the very text `serde_json`'s
/// pretty printer writes (a test compares), streamed a row at a time through one line buffer:
/// the numbers are nearly all of the output, and a serializer call per number most of its time.
/// A `warning` follows the rows when any value was NaN or infinite.
pub(super) fn matrix_json(model: &EmbeddingModel, out: &mut impl Write) -> io::Result<()> {
    let mut line = Vec::new();
    write!(
        line,
        "{{\n  \"shape\": [\n    {},\n    {}\n  ],\n  \"tokens\": ",
        model.rows(),
        model.dims()
    )?;
    if model.tokenizer().is_some() {
        let names = (0..model.rows()).map(|id| model.token_text(id).unwrap_or_default());
        json_items(&mut line, "  ", names, |line, name| {
            serde_json::to_writer(line, &name).map_err(io::Error::from)
        })?;
    } else {
        line.extend_from_slice(b"null");
    }
    line.extend_from_slice(b",\n  \"rows\": ");
    out.write_all(&line)?;
    let non_finite = write_rows(model, out, |line, id, row| {
        line.extend_from_slice(if id == 0 { b"[\n    " } else { b",\n    " });
        let _ = json_items(line, "    ", row.iter(), |line, &value| {
            push_json(line, value);
            Ok(())
        });
        row.iter().any(|value| !value.is_finite())
    })?;
    line.clear();
    line.extend_from_slice(if model.rows() == 0 { b"[]" } else { b"\n  ]" });
    if non_finite {
        line.extend_from_slice(b",\n  \"warning\": ");
        serde_json::to_writer(&mut line, NON_FINITE_AS_NULL)?;
    }
    line.extend_from_slice(b"\n}\n");
    out.write_all(&line)
}

/// A JSON array of `items` as `serde_json`'s pretty printer lays it out inside a value indented
/// by `indent`: `[]` when empty, else one item a line, two spaces further in.
fn json_items<T>(
    line: &mut Vec<u8>,
    indent: &str,
    items: impl Iterator<Item = T>,
    mut write_item: impl FnMut(&mut Vec<u8>, T) -> io::Result<()>,
) -> io::Result<()> {
    let mut first = true;
    for item in items {
        line.extend_from_slice(if first { b"[\n" } else { b",\n" });
        first = false;
        line.extend_from_slice(indent.as_bytes());
        line.extend_from_slice(b"  ");
        write_item(line, item)?;
    }
    if first {
        line.extend_from_slice(b"[]");
    } else {
        line.push(b'\n');
        line.extend_from_slice(indent.as_bytes());
        line.push(b']');
    }
    Ok(())
}

pub(super) fn compare_json(comparison: &Comparison, out: &mut impl Write) -> io::Result<()> {
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
                    lookup: TokenVectors::of(lookup),
                    attention_output: sentence.attention.outputs.get(index).map(|v| v.to_vec()),
                })
                .collect(),
        })
        .collect();
    let verdicts = &comparison.verdicts;
    let additive = verdicts.same_input_vectors.is_some();
    let attention_verdict = AttentionVerdictReport {
        overall: verdicts.attention.name(),
        largest_difference: verdicts
            .words
            .iter()
            .map(|word| word.output.largest_difference())
            .fold(0.0, f64::max),
        words: verdicts
            .words
            .iter()
            .map(|word| WordVerdictReport {
                text: &word.text,
                a: word.a,
                b: word.b,
                output: word.output.name(),
                output_difference: word.output.largest_difference(),
                input_vector: additive.then(|| word.input_vector.name()),
            })
            .collect(),
    };
    let report = CompareReport {
        positions: comparison.scheme.name(),
        mask: comparison.mask.name(),
        sentences,
        wording: verdicts.wording.name(),
        same_token_vectors: comparison.same_token_vectors,
        same_mean_vector: comparison.same_mean_vector,
        same_input_vectors: verdicts.same_input_vectors,
        attention_verdict,
        verdicts: verdicts.sentences(comparison.scheme),
        links: &comparison.links,
        id_differences: &comparison.id_differences,
        left_out: comparison.left_out_note(),
        warning: None,
    };
    let non_finite = report.sentences.iter().any(|sentence| {
        sentence.tokens.iter().any(|token| {
            any_non_finite(
                token
                    .lookup
                    .vectors()
                    .chain(token.attention_output.as_ref()),
            )
        })
    });
    let report = CompareReport {
        warning: non_finite.then_some(NON_FINITE_AS_NULL),
        ..report
    };
    serde_json::to_writer_pretty(&mut *out, &report)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use ndarray::Array2;

    use super::*;
    use crate::core::tables::table::Table;
    use crate::core::text::vocabulary::VocabKind;

    /// `matrix --format json` as `serde_json` wrote it before the rows were written by hand.
    #[derive(Serialize)]
    struct Reference {
        shape: [usize; 2],
        tokens: Option<Vec<String>>,
        rows: Vec<Vec<f32>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        warning: Option<&'static str>,
    }

    fn reference(model: &EmbeddingModel) -> String {
        let rows: Vec<Vec<f32>> = (0..model.rows())
            .map(|id| model.lookup(id).unwrap().to_vec())
            .collect();
        let report = Reference {
            shape: [model.rows(), model.dims()],
            tokens: model.tokenizer().map(|_| {
                (0..model.rows())
                    .map(|id| model.token_text(id).unwrap_or_default())
                    .collect()
            }),
            warning: any_non_finite(&rows).then_some(NON_FINITE_AS_NULL),
            rows,
        };
        serde_json::to_string_pretty(&report).unwrap() + "\n"
    }

    fn written(model: &EmbeddingModel) -> String {
        let mut out = Vec::new();
        matrix_json(model, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn matrix_json_is_serde_jsons_text() {
        for model in [
            EmbeddingModel::builtin(VocabKind::Seed, 123),
            EmbeddingModel::builtin(VocabKind::Words, 7),
            EmbeddingModel::shaped(5, 1, 8, 3).unwrap(),
            // Many batches of rows, formatted on several threads, written in order.
            EmbeddingModel::shaped(30_000, 3, 8, 5).unwrap(),
        ] {
            assert_eq!(written(&model), reference(&model), "{}", model.label());
        }
        let special = [
            0.0,
            -0.0,
            1.0,
            -3.0,
            1e20,
            1e-7,
            f32::from_bits(1),
            -f32::MIN_POSITIVE,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.337_370_2,
        ];
        let table = Array2::from_shape_vec((3, 4), special.to_vec()).unwrap();
        let model = EmbeddingModel::new("special", None, Table::from(table), None);
        let text = written(&model);
        assert_eq!(text, reference(&model));
        assert!(
            text.contains("null,\n") && text.contains("\"warning\""),
            "{text}"
        );
    }
}
