//! embedlens's numbers against what its PyTorch snippets computed with real PyTorch and
//! transformers (`scripts/snippet_reference.py`, values in `tests/fixtures/snippet/`): bit for
//! bit for the built-in tables, within 1e-5 for a model; and each snippet's text as it was run,
//! so a changed snippet needs the script run again.

mod common;

use std::path::Path;

use clap::Parser;
use embedlens::cli::{Args, Command, SnippetArgs};
use embedlens::core::analysis::attention::{
    AttentionWeights, MAX_VIEW_TOKENS, Mask, self_attention,
};
use embedlens::core::analysis::compare::{MAX_COMPARED_TOKENS, id_links};
use embedlens::core::analysis::layer0::Layer0;
use embedlens::core::analysis::metrics::euclidean_distance;
use embedlens::core::tables::positional::PositionScheme;
use embedlens::core::tables::weights::EmbeddingModel;
use embedlens::core::text::sentence;
use embedlens::core::text::vocabulary::Token;
use ndarray::Array1;
use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Every fixture the script wrote, by name.
fn fixtures() -> Vec<(String, Value)> {
    let folder = Path::new(ROOT).join("tests/fixtures/snippet");
    let mut fixtures: Vec<(String, Value)> = std::fs::read_dir(&folder)
        .expect("tests/fixtures/snippet exists")
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "json")
        })
        .map(|path| {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).unwrap();
            (name, serde_json::from_str(&text).unwrap())
        })
        .collect();
    fixtures.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(fixtures.len() >= 10, "the script's cases are all there");
    fixtures
}

fn arguments(fixture: &Value) -> Vec<String> {
    fixture["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|arg| arg.as_str().unwrap().to_owned())
        .collect()
}

fn snippet_args(fixture: &Value) -> SnippetArgs {
    let mut words = vec!["embedlens".to_owned(), "snippet".to_owned()];
    words.extend(arguments(fixture));
    match Args::try_parse_from(words).unwrap().command {
        Some(Command::Snippet(args)) => args,
        other => panic!("not a snippet: {other:?}"),
    }
}

#[test]
fn each_snippet_is_the_script_that_was_run() {
    for (name, fixture) in fixtures() {
        let mut args = vec!["snippet".to_owned()];
        args.extend(arguments(&fixture));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = common::run(&args);
        assert!(output.status.success(), "{name}");
        let script = String::from_utf8(output.stdout)
            .unwrap()
            .replace(ROOT, "{ROOT}");
        assert_eq!(
            script,
            fixture["script"].as_str().unwrap(),
            "{name}: the snippet changed since scripts/snippet_reference.py ran it; run it again"
        );
    }
}

/// How close embedlens's float32 numbers must be to PyTorch's.
#[derive(Clone, Copy, Debug)]
enum Within {
    /// The same float32, bit for bit.
    Bits,
    /// Within this much.
    Tolerance(f64),
}

fn check_vectors(name: &str, what: &str, ours: &[Array1<f32>], theirs: &Value, within: Within) {
    let rows: Vec<Vec<f32>> = ours.iter().map(|row| row.to_vec()).collect();
    check_rows(
        name,
        what,
        &rows,
        theirs,
        |ours: f32, theirs: f64| match within {
            #[expect(clippy::cast_possible_truncation, reason = "PyTorch's float32")]
            Within::Bits => ours.to_bits() == (theirs as f32).to_bits(),
            Within::Tolerance(limit) => (f64::from(ours) - theirs).abs() <= limit,
        },
    );
}

fn check_f64(name: &str, what: &str, ours: &[Vec<f64>], theirs: &Value, limit: f64) {
    check_rows(name, what, ours, theirs, |ours: f64, theirs: f64| {
        (ours - theirs).abs() <= limit
    });
}

/// Every number of `ours` against PyTorch's, row by row, as `close` judges them.
fn check_rows<T: Copy + std::fmt::Display>(
    name: &str,
    what: &str,
    ours: &[Vec<T>],
    theirs: &Value,
    close: impl Fn(T, f64) -> bool,
) {
    let theirs = theirs
        .as_array()
        .unwrap_or_else(|| panic!("{name}: no {what}"));
    assert_eq!(ours.len(), theirs.len(), "{name}: {what} rows");
    for (row, (ours, theirs)) in ours.iter().zip(theirs).enumerate() {
        let theirs = theirs.as_array().unwrap();
        assert_eq!(ours.len(), theirs.len(), "{name}: {what} row {row}");
        for (column, (&ours, theirs)) in ours.iter().zip(theirs).enumerate() {
            let theirs = theirs.as_f64().unwrap();
            assert!(
                close(ours, theirs),
                "{name}: {what}[{row}][{column}] {ours} against PyTorch's {theirs}"
            );
        }
    }
}

/// One sentence as embedlens looks it up: the tokens with an input vector.
struct Looked {
    ids: Vec<usize>,
    positions: Vec<usize>,
    token_vectors: Vec<Array1<f32>>,
    position_vectors: Vec<Array1<f32>>,
    input_vectors: Vec<Array1<f32>>,
}

fn look_up(model: &EmbeddingModel, tokens: &[Token], scheme: PositionScheme) -> Looked {
    let lookups = model.embed(tokens, scheme);
    let mut looked = Looked {
        ids: Vec::new(),
        positions: Vec::new(),
        token_vectors: Vec::new(),
        position_vectors: Vec::new(),
        input_vectors: Vec::new(),
    };
    for lookup in lookups {
        let (Some(token_vector), Some(input_vector)) = (lookup.token_vector, lookup.input_vector)
        else {
            continue;
        };
        let position_vector = lookup.position.vector().map_or_else(
            || Array1::zeros(token_vector.len()),
            |vector| vector.to_owned(),
        );
        looked.ids.push(lookup.token.id.unwrap());
        looked.positions.push(lookup.token.position);
        looked.token_vectors.push(token_vector);
        looked.position_vectors.push(position_vector);
        looked.input_vectors.push(input_vector);
    }
    looked
}

fn ids_of(value: &Value) -> Vec<usize> {
    serde_json::from_value(value.clone()).unwrap()
}

/// The seeded head over a sentence's first `limit` input vectors: weights and outputs.
fn seeded(
    looked: &Looked,
    head: &AttentionWeights,
    mask: Mask,
    scheme: PositionScheme,
    limit: usize,
) -> (Vec<Vec<f64>>, Vec<Array1<f32>>) {
    let count = looked.input_vectors.len().min(limit);
    let attention = self_attention(
        &looked.input_vectors[..count],
        &looked.positions[..count],
        head,
        mask,
        scheme,
    );
    let weights = attention
        .weights
        .rows()
        .into_iter()
        .map(|row| row.to_vec())
        .collect();
    (weights, attention.outputs)
}

/// A model's own layer 0 over ids: every head's weights, then every token's output.
fn layer0(
    layer: &Layer0,
    ids: &[usize],
    with_positions: bool,
) -> (Vec<Vec<Vec<f64>>>, Vec<Array1<f32>>) {
    let run = layer.run(ids, with_positions).unwrap();
    let weights = run
        .heads
        .iter()
        .map(|head| {
            head.weights
                .rows()
                .into_iter()
                .map(|row| row.to_vec())
                .collect()
        })
        .collect();
    let outputs = run
        .outputs
        .rows()
        .into_iter()
        .map(|row| row.to_owned())
        .collect();
    (weights, outputs)
}

/// One fixture's sentences as embedlens reads and looks them up: A, and compare mode's B.
struct Case {
    name: String,
    args: SnippetArgs,
    model: EmbeddingModel,
    layer: Option<Layer0>,
    a: Looked,
    b: Option<Looked>,
}

impl Case {
    fn open(name: String, fixture: &Value) -> Self {
        let args = snippet_args(fixture);
        let input = &args.input;
        let (model, layer) = input.table.open(input.context_length).unwrap();
        let layer = layer.and_then(Result::ok);
        let read = |text: &str, special: bool| {
            sentence::read(&model, text, special, false).unwrap().tokens
        };
        let tokens = match (&input.ids, &input.sentence) {
            (Some(ids), _) => model.tokens_from_ids(ids).unwrap(),
            (None, Some(text)) => read(text, !input.table.model.no_special_tokens),
            (None, None) => unreachable!("clap asks for one"),
        };
        let a = look_up(&model, &tokens, input.positions);
        let b = args.compare.as_deref().map(|text| {
            let mut tokens = read(text, true);
            tokens.truncate(MAX_COMPARED_TOKENS);
            look_up(&model, &tokens, input.positions)
        });
        Self {
            name,
            args,
            model,
            layer,
            a,
            b,
        }
    }

    /// Built-in tables bit for bit; a model within 1e-5.
    fn within(&self) -> Within {
        if self.args.input.table.model.model.is_some() {
            Within::Tolerance(1e-5)
        } else {
            Within::Bits
        }
    }

    /// A and B with the suffix their variables have in the snippet.
    fn sentences(&self) -> Vec<(&Looked, &'static str)> {
        std::iter::once(&self.a)
            .chain(self.b.as_ref())
            .zip(["", "_b"])
            .collect()
    }

    fn check_lookups(&self, values: &Value) {
        let name = &self.name;
        let within = self.within();
        for (looked, suffix) in self.sentences() {
            let value = |what: &str| &values[format!("{what}{suffix}")];
            assert_eq!(looked.ids, ids_of(value("ids")), "{name}: ids{suffix}");
            for (what, ours) in [
                ("token_vectors", &looked.token_vectors),
                ("position_vectors", &looked.position_vectors),
                ("input_vectors", &looked.input_vectors),
            ] {
                check_vectors(name, &format!("{what}{suffix}"), ours, value(what), within);
            }
        }
        if let Some(distance) = values["distance"].as_f64() {
            let ids = &self.a.ids;
            let (first, second) = ids
                .iter()
                .enumerate()
                .find_map(|(second, id)| {
                    Some((ids[..second].iter().position(|o| o == id)?, second))
                })
                .expect("a repeated word");
            let vectors = &self.a.input_vectors;
            let ours = euclidean_distance(vectors[first].view(), vectors[second].view());
            assert!(
                (ours - distance).abs() <= 1e-5,
                "{name}: distance {ours} against {distance}"
            );
        }
    }

    /// Each sentence's attention outputs, after checking them and the weights.
    fn check_attention(&self, values: &Value) -> Vec<Vec<Array1<f32>>> {
        let name = &self.name;
        let scheme = self.args.input.positions;
        let mut outputs = Vec::new();
        for (looked, suffix) in self.sentences() {
            let theirs_weights = &values[format!("attention_weights{suffix}")];
            let theirs_outputs = &values[format!("attention_outputs{suffix}")];
            let what = format!("attention_outputs{suffix}");
            if let Some(layer) = &self.layer {
                let (weights, out) = layer0(layer, &looked.ids, scheme != PositionScheme::None);
                let theirs = theirs_weights.as_array().unwrap();
                assert_eq!(weights.len(), theirs.len(), "{name}: heads");
                for (head, (ours, theirs)) in weights.iter().zip(theirs).enumerate() {
                    let what = format!("attention_weights{suffix}[{head}]");
                    check_f64(name, &what, ours, theirs, 1e-5);
                }
                check_vectors(name, &what, &out, theirs_outputs, Within::Tolerance(1e-5));
                outputs.push(out);
            } else {
                let mask = if self.args.causal {
                    Mask::Causal
                } else {
                    Mask::None
                };
                let head = AttentionWeights::seeded(self.model.dims(), self.args.input.table.seed);
                let limit = if self.b.is_some() {
                    MAX_COMPARED_TOKENS
                } else {
                    MAX_VIEW_TOKENS
                };
                let (weights, out) = seeded(looked, &head, mask, scheme, limit);
                check_f64(name, "attention_weights", &weights, theirs_weights, 1e-12);
                check_vectors(name, &what, &out, theirs_outputs, self.within());
                outputs.push(out);
            }
        }
        outputs
    }

    /// Compare mode: where embedlens finds a word's output the same in A and in B, bit for
    /// bit, the snippet's `torch.equal` said `True`, and `False` where it does not.
    fn check_twins(&self, outputs: &[Vec<Array1<f32>>], printed: &str) {
        let (Some(b), [in_a, in_b]) = (&self.b, outputs) else {
            return;
        };
        let some =
            |ids: &[usize]| -> Vec<Option<usize>> { ids.iter().copied().map(Some).collect() };
        for (i, j) in id_links(&some(&self.a.ids), &some(&b.ids)) {
            let bits =
                |vector: &Array1<f32>| -> Vec<u32> { vector.iter().map(|x| x.to_bits()).collect() };
            let equal = if bits(&in_a[i]) == bits(&in_b[j]) {
                "True"
            } else {
                "False"
            };
            let line = format!("A {i}  B {j}  torch.equal {equal}");
            assert!(
                printed.contains(&line),
                "{}: no '{line}' in\n{printed}",
                self.name
            );
        }
    }
}

#[test]
fn embedlens_gives_the_numbers_pytorch_gives() {
    for (name, fixture) in fixtures() {
        let case = Case::open(name, &fixture);
        let values = &fixture["values"];
        case.check_lookups(values);
        if !case.args.attention && case.b.is_none() {
            assert!(values.get("attention_outputs").is_none(), "{}", case.name);
            continue;
        }
        let outputs = case.check_attention(values);
        case.check_twins(&outputs, fixture["printed"].as_str().unwrap());
    }
}
