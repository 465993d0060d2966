//! `embedlens snippet` through the real binary: the script's text (snapshots) and its errors.

mod common;

use common::run;

/// The repository's folder as scripts name it, so snapshots do not depend on the checkout.
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The script a run prints, with the checkout's folder written `{ROOT}`.
fn script(args: &[&str]) -> String {
    let mut full = vec!["snippet"];
    full.extend_from_slice(args);
    let output = run(&full);
    assert!(
        output.status.success(),
        "embedlens {full:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("UTF-8 output")
        .replace(ROOT, "{ROOT}")
}

/// The message of a run that must fail.
fn failure(args: &[&str]) -> String {
    let mut full = vec!["snippet"];
    full.extend_from_slice(args);
    let output = run(&full);
    assert!(!output.status.success(), "embedlens {full:?} should fail");
    assert!(output.stdout.is_empty());
    String::from_utf8(output.stderr).expect("UTF-8 errors")
}

#[test]
fn the_seed_vocabulary_with_learned_positions_and_the_seeded_head() {
    insta::assert_snapshot!(script(&[
        "fox bites the fox",
        "--positions",
        "learned",
        "--attention"
    ]));
}

#[test]
fn compare_mode_on_the_words_vocabulary_with_the_causal_mask() {
    insta::assert_snapshot!(script(&[
        "--vocab",
        "words",
        "the dog bites the man",
        "--compare",
        "the man bites the dog",
        "--positions",
        "sinusoidal",
        "--causal"
    ]));
}

#[test]
fn gpt2_ids_name_tiktoken_and_rope_turns_queries_and_keys() {
    let text = script(&[
        "--vocab",
        "gpt2",
        "--dim",
        "16",
        "--seed",
        "7",
        "dog bites man",
        "--positions",
        "rope",
        "--attention",
    ]);
    assert!(
        text.contains("tiktoken.get_encoding(\"r50k_base\").encode(\"dog"),
        "{text}"
    );
    assert!(
        text.contains("ids = torch.tensor([9703, 26081, 582])"),
        "{text}"
    );
    assert!(text.contains("torch.manual_seed(7)\ntoken_table = torch.nn.Embedding(50257, 16)"));
    assert!(text.contains("position_table = torch.nn.Embedding(1024, 16)"));
    assert!(text.contains("def rope(vectors, positions):"));
}

#[test]
fn a_bert_model_is_loaded_offline_and_runs_its_own_layer_0() {
    insta::assert_snapshot!(script(&[
        "--model",
        "tests/fixtures/layer0/bert",
        "the dog bites the man",
        "--positions",
        "learned",
        "--attention",
        "--head",
        "1"
    ]));
}

#[test]
fn a_llama_style_model_without_positions_sets_every_position_to_0() {
    let text = script(&[
        "--model",
        "tests/fixtures/layer0/llama_gqa_bf16",
        "--ids",
        "3,10,7,10",
        "--attention",
    ]);
    assert!(
        text.contains("self_attn.o_proj.register_forward_pre_hook"),
        "{text}"
    );
    assert!(
        text.contains("position_ids=torch.zeros_like(ids)[None]"),
        "{text}"
    );
    assert!(text.contains("# The ids as typed."), "{text}");
    assert!(
        !text.contains("AutoTokenizer.from_pretrained"),
        "no tokenizer: {text}"
    );
}

#[test]
fn options_that_do_not_apply_are_refused() {
    let bert = "tests/fixtures/layer0/bert";
    let causal = failure(&["--model", bert, "the dog", "--attention", "--causal"]);
    assert!(causal.contains("keeps its own mask"), "{causal}");
    let head = failure(&["--model", bert, "the dog", "--attention", "--head", "9"]);
    assert!(head.contains("has 4 heads (0 to 3)"), "{head}");
    let seeded = failure(&["fox", "--head", "1"]);
    assert!(seeded.contains("--head chooses a head"), "{seeded}");
    let unmasked = failure(&["fox", "--causal"]);
    assert!(unmasked.contains("goes with --attention"), "{unmasked}");
    let nothing = failure(&["zorp"]);
    assert!(nothing.contains("no token of the sentence"), "{nothing}");
}
