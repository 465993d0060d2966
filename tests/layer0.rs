//! Layer 0 of small checkpoints of each family against the values `transformers` computed for
//! the same files (`scripts/layer0_reference.py` wrote both), and the article's claim on a
//! BERT-style checkpoint as a property.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use embedlens::core::analysis::layer0::source::{SafetensorsBytes, Settings};
use embedlens::core::analysis::layer0::{Layer0, Layer0Run, load};
use proptest::prelude::*;
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/layer0")
        .join(name)
}

fn open(name: &str) -> Layer0 {
    let folder = fixture(name);
    let bytes = std::fs::read(folder.join("model.safetensors")).unwrap();
    let source = SafetensorsBytes::new(name, Arc::new(bytes)).unwrap();
    let settings =
        Settings::parse(&std::fs::read_to_string(folder.join("config.json")).unwrap()).unwrap();
    load(&source, Some(&settings)).unwrap_or_else(|why| panic!("{name}: {why}"))
}

fn reference(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture(name).join("reference.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn numbers(value: &Value) -> Vec<f64> {
    match value {
        Value::Array(items) => items.iter().flat_map(numbers).collect(),
        Value::Number(number) => vec![number.as_f64().unwrap()],
        other => panic!("not a number: {other}"),
    }
}

/// The largest gaps from the reference: weights absolute, outputs relative to the largest
/// number of the token's output.
fn gaps(run: &Layer0Run, expected: &Value) -> (f64, f64) {
    let ours: Vec<f64> = run
        .heads
        .iter()
        .flat_map(|head| head.weights.iter().copied())
        .collect();
    let theirs = numbers(&expected["weights"]);
    assert_eq!(ours.len(), theirs.len(), "weights of every head");
    let weight_gap = ours
        .iter()
        .zip(&theirs)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    let theirs = numbers(&expected["outputs"]);
    let width = run.outputs.ncols();
    assert_eq!(run.outputs.len(), theirs.len(), "an output for every token");
    let mut output_gap = 0.0f64;
    for (ours, theirs) in run.outputs.rows().into_iter().zip(theirs.chunks(width)) {
        let size = theirs.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for (a, b) in ours.iter().zip(theirs) {
            output_gap = output_gap.max((f64::from(*a) - b).abs() / size);
        }
    }
    (weight_gap, output_gap)
}

fn matches_reference(name: &str) {
    let layer = open(name);
    let (weight_gap, output_gap) = largest_gaps(name, &layer);
    assert!(weight_gap <= 1e-5, "{name}: weights off by {weight_gap:e}");
    assert!(
        output_gap <= 1e-5,
        "{name}: outputs off by {output_gap:e} (relative)"
    );
}

/// The largest gaps from the reference values over both runs, with and without positions.
fn largest_gaps(name: &str, layer: &Layer0) -> (f64, f64) {
    let expected = reference(name);
    let ids: Vec<usize> = numbers(&expected["ids"])
        .into_iter()
        .map(|id| {
            #[expect(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "small ids"
            )]
            let id = id as usize;
            id
        })
        .collect();
    let mut largest = (0.0f64, 0.0f64);
    for (with_positions, key) in [(true, "with_positions"), (false, "without_positions")] {
        let run = layer.run(&ids, with_positions).unwrap();
        let (weight_gap, output_gap) = gaps(&run, &expected[key]);
        println!("{name} {key}: weights within {weight_gap:.1e}, outputs within {output_gap:.1e}");
        largest = (largest.0.max(weight_gap), largest.1.max(output_gap));
    }
    largest
}

/// Layer 0 of a fixture written into a GGUF file as llama.cpp's converter writes it.
fn open_as_gguf(name: &str, weights: common::GgufWeights) -> Layer0 {
    let folder = common::TempDir::new("gguf");
    let path = folder.join(&format!("{name}.gguf"));
    common::convert_to_gguf(&fixture(name), &path, weights);
    embedlens::core::files::open(
        &embedlens::core::files::FileSource::path(&path),
        &embedlens::core::files::OpenOptions::default(),
    )
    .map(|opened| opened.layer0)
    .unwrap()
    .unwrap_or_else(|why| panic!("{name}.gguf: {why}"))
}

#[test]
fn gguf_files_converted_by_llama_cpp_match_transformers() {
    // Llama's rows interleaved (and Llama 3's scaling as rope_freqs.weight), Gemma's norm
    // weights with their 1 added (Gemma 3's head norms too), Qwen2's biases.
    for name in [
        "bert",
        "gpt2",
        "llama_gqa_bf16",
        "llama3_rope_scaling",
        "gemma",
        "gemma2",
        "gemma3",
        "qwen2_biases_f16",
        "qwen3",
        "stablelm_partial_rotary",
    ] {
        let layer = open_as_gguf(name, common::GgufWeights::F32);
        let (weight_gap, output_gap) = largest_gaps(name, &layer);
        assert!(
            weight_gap <= 1e-5,
            "{name}.gguf: weights off by {weight_gap:e}"
        );
        assert!(
            output_gap <= 1e-5,
            "{name}.gguf: outputs off by {output_gap:e} (relative)"
        );
    }
}

/// `Q8_0` moves each weight by up to `max|w| / 254` of its block (0.4%); over 32 inputs and a
/// softmax that stays within a few hundredths.
#[test]
fn gguf_files_with_q8_0_weights_match_transformers_within_the_quantization() {
    for name in [
        "bert",
        "gpt2",
        "llama_gqa_bf16",
        "gemma",
        "gemma2",
        "gemma3",
        "qwen2_biases_f16",
        "qwen3",
    ] {
        let layer = open_as_gguf(name, common::GgufWeights::Q8_0);
        let (weight_gap, output_gap) = largest_gaps(name, &layer);
        assert!(
            weight_gap <= 2e-2,
            "{name}.gguf: weights off by {weight_gap:e}"
        );
        assert!(
            output_gap <= 3e-2,
            "{name}.gguf: outputs off by {output_gap:e} (relative)"
        );
        assert!(weight_gap > 1e-7, "{name}.gguf: Q8_0 changed nothing?");
    }
}

#[test]
fn bert_matches_transformers() {
    matches_reference("bert");
}

#[test]
fn gpt2_matches_transformers() {
    matches_reference("gpt2");
}

#[test]
fn llama_with_grouped_query_heads_in_bf16_matches_transformers() {
    matches_reference("llama_gqa_bf16");
}

#[test]
fn qwen2_with_its_biases_in_f16_matches_transformers() {
    matches_reference("qwen2_biases_f16");
}

#[test]
fn stablelm_with_partial_rotary_matches_transformers() {
    matches_reference("stablelm_partial_rotary");
}

#[test]
fn gemma_with_its_scaling_matches_transformers() {
    matches_reference("gemma");
}

#[test]
fn gemma2_with_its_capped_scores_matches_transformers() {
    matches_reference("gemma2");
}

#[test]
fn qwen3_with_its_head_norms_matches_transformers() {
    matches_reference("qwen3");
}

#[test]
fn llama3_rope_scaling_matches_transformers() {
    matches_reference("llama3_rope_scaling");
}

#[test]
fn gemma3_with_its_head_norms_and_sliding_layer_matches_transformers() {
    matches_reference("gemma3");
    // Layer 0 slides over 32 tokens; within them the window hides nothing.
    let limit = open("gemma3").token_limit();
    assert_eq!(limit.tokens(), 32);
    assert!(
        limit.note().contains("sliding window of 32 tokens"),
        "{}",
        limit.note()
    );
}

fn bits(run: &Layer0Run, token: usize) -> Vec<u32> {
    run.outputs.row(token).iter().map(|x| x.to_bits()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The article's claim on a BERT-style layer 0: without positions, any reordering of a
    /// sentence reorders the outputs and changes no bit of them.
    #[test]
    fn without_positions_a_reordered_sentence_reorders_the_outputs_bit_for_bit(
        (ids, order) in (1usize..=12).prop_flat_map(|count| (
            proptest::collection::vec(0usize..64, count),
            Just((0..count).collect::<Vec<_>>()).prop_shuffle(),
        )),
    ) {
        let layer = open("bert");
        let shuffled: Vec<usize> = order.iter().map(|&i| ids[i]).collect();
        let before = layer.run(&ids, false).unwrap();
        let after = layer.run(&shuffled, false).unwrap();
        for (new, &old) in order.iter().enumerate() {
            prop_assert_eq!(bits(&after, new), bits(&before, old));
        }
    }
}

#[test]
fn with_positions_dog_bites_man_differs_from_man_bites_dog() {
    let layer = open("bert");
    let (dog, bites, man) = (10, 20, 30);
    let forwards = layer.run(&[dog, bites, man], true).unwrap();
    let backwards = layer.run(&[man, bites, dog], true).unwrap();
    assert_ne!(bits(&forwards, 0), bits(&backwards, 2));
    let forwards = layer.run(&[dog, bites, man], false).unwrap();
    let backwards = layer.run(&[man, bites, dog], false).unwrap();
    assert_eq!(bits(&forwards, 0), bits(&backwards, 2));
    assert_eq!(bits(&forwards, 1), bits(&backwards, 1));
}
