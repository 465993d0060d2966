//! The JSON format: one report struct per subcommand, floats written shortest.

use std::cell::Cell;
use std::io::{self, Write};

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

use super::table_rows;
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

/// The weights as `matrix --format json` writes them, streamed: the token names and rows are
/// read as they are written, never gathered, and a `warning` follows the rows when any value
/// was NaN or infinite.
struct MatrixReport<'a> {
    model: &'a EmbeddingModel,
    non_finite: Cell<bool>,
}

impl Serialize for MatrixReport<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let model = self.model;
        let mut report = serializer.serialize_struct("MatrixReport", 4)?;
        report.serialize_field("shape", &[model.rows(), model.dims()])?;
        report.serialize_field("tokens", &model.tokenizer().map(|_| TokenNames(model)))?;
        report.serialize_field("rows", &Rows(self))?;
        if self.non_finite.get() {
            report.serialize_field("warning", NON_FINITE_AS_NULL)?;
        } else {
            report.skip_field("warning")?;
        }
        report.end()
    }
}

/// Every row's token text, in id order, as a JSON array written as it is read.
struct TokenNames<'a>(&'a EmbeddingModel);

impl Serialize for TokenNames<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let model = self.0;
        serializer.collect_seq((0..model.rows()).map(|id| model.token_text(id).unwrap_or_default()))
    }
}

/// Every row of the matrix, in id order, written as it is read; notes any non-finite value.
struct Rows<'a, 'b>(&'a MatrixReport<'b>);

impl Serialize for Rows<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let report = self.0;
        serializer.collect_seq(table_rows(report.model).map(|row| {
            if row.iter().any(|value| !value.is_finite()) {
                report.non_finite.set(true);
            }
            row.to_vec()
        }))
    }
}

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

pub(super) fn matrix_json(model: &EmbeddingModel, out: &mut impl Write) -> io::Result<()> {
    let report = MatrixReport {
        model,
        non_finite: Cell::new(false),
    };
    serde_json::to_writer_pretty(&mut *out, &report)?;
    writeln!(out)
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
