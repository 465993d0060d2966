//! The attention pane on the model's own layer 0: a small BERT-style checkpoint this file
//! writes, explored through the real update path and drawn on a `TestBackend`.

use std::path::Path;

use embedlens::app::{App, Options};
use embedlens::core::files::{FileSource, OpenOptions, Opened, open};
use embedlens::theme::Theme;
use insta::assert_snapshot;
use ratatui::crossterm::event::KeyCode;
use serde_json::json;

mod common;

use common::screen::{pane, pane_prose, press, type_text};
use common::{TempDir, added_token, bert_post_processor, draw, f32_tensor, write_safetensors};

/// Hidden width of the test checkpoint.
const HIDDEN: usize = 16;
/// Its heads (of 4 numbers each).
const HEADS: usize = 4;
/// Its vocabulary: the special tokens, then a few words.
const WORDS: [&str; 10] = [
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "dog", "bites", "man", "fox", "a",
];
/// Rows of its position table.
const POSITIONS: usize = 32;

/// A deterministic, well-spread number for element `index` of tensor `tensor`.
fn value(tensor: usize, index: usize) -> f32 {
    let mixed = ((index as u64) ^ ((tensor as u64) << 32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    #[expect(clippy::cast_precision_loss, reason = "a 24-bit fraction")]
    let unit = (mixed >> 40) as f32 / (1u64 << 24) as f32;
    (unit - 0.5) * 2.0
}

/// Writes a safetensors file of float32 tensors, each `(name, shape)` filled by [`value`].
fn write_values(path: &Path, tensors: &[(&str, Vec<usize>)]) {
    let values: Vec<Vec<f32>> = tensors
        .iter()
        .enumerate()
        .map(|(tensor, (name, shape))| {
            (0..shape.iter().product::<usize>())
                .map(|index| {
                    if name.ends_with("LayerNorm.weight") {
                        1.0 + value(tensor, index) / 4.0
                    } else {
                        value(tensor, index)
                    }
                })
                .collect()
        })
        .collect();
    let tensors: Vec<_> = tensors
        .iter()
        .zip(&values)
        .map(|((name, shape), values)| f32_tensor(name, shape, values))
        .collect();
    write_safetensors(path, &tensors);
}

/// A word-level tokenizer that adds `[CLS]` and `[SEP]`, as BERT's does.
fn tokenizer() -> serde_json::Value {
    let special: Vec<_> = WORDS[..4]
        .iter()
        .enumerate()
        .map(|(id, word)| added_token(id, word))
        .collect();
    let vocab: serde_json::Map<String, serde_json::Value> = WORDS
        .iter()
        .enumerate()
        .map(|(id, word)| ((*word).to_owned(), json!(id)))
        .collect();
    json!({
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": special,
        "normalizer": null, "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": bert_post_processor(),
        "decoder": null,
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"}
    })
}

/// A BERT-style checkpoint folder: embeddings, their `LayerNorm`, and layer 0's query, key
/// and value layers, with `config.json` and `tokenizer.json`.
fn write_bert(name: &str) -> TempDir {
    let parent = TempDir::new(name);
    // The model is named after its folder on screen: the same name in every run.
    let folder = parent.path().join("tiny-bert");
    std::fs::create_dir_all(&folder).expect("a temp folder");
    let attention = "bert.encoder.layer.0.attention.self.";
    let mut tensors = vec![
        (
            "bert.embeddings.word_embeddings.weight",
            vec![WORDS.len(), HIDDEN],
        ),
        (
            "bert.embeddings.position_embeddings.weight",
            vec![POSITIONS, HIDDEN],
        ),
        (
            "bert.embeddings.token_type_embeddings.weight",
            vec![2, HIDDEN],
        ),
        ("bert.embeddings.LayerNorm.weight", vec![HIDDEN]),
        ("bert.embeddings.LayerNorm.bias", vec![HIDDEN]),
    ];
    let names: Vec<(String, Vec<usize>)> = ["query", "key", "value"]
        .iter()
        .flat_map(|layer| {
            [
                (format!("{attention}{layer}.weight"), vec![HIDDEN, HIDDEN]),
                (format!("{attention}{layer}.bias"), vec![HIDDEN]),
            ]
        })
        .collect();
    tensors.extend(
        names
            .iter()
            .map(|(name, shape)| (name.as_str(), shape.clone())),
    );
    write_values(&folder.join("model.safetensors"), &tensors);
    let config = json!({
        "model_type": "bert", "hidden_size": HIDDEN, "num_attention_heads": HEADS,
        "layer_norm_eps": 1e-12, "max_position_embeddings": POSITIONS,
        "vocab_size": WORDS.len(), "type_vocab_size": 2, "pad_token_id": 0
    });
    std::fs::write(folder.join("config.json"), config.to_string()).expect("config.json");
    std::fs::write(folder.join("tokenizer.json"), tokenizer().to_string()).expect("tokenizer");
    parent
}

/// The explorer on the checkpoint in `folder`, its own layer 0 read as `main` reads it.
fn explorer(folder: &Path, sentence: &str, background_from: usize) -> App {
    let Opened { model, layer0, .. } =
        open(&FileSource::path(folder), &OpenOptions::default()).expect("the model opens");
    assert!(layer0.is_ok(), "the checkpoint has a layer 0");
    App::new(Options {
        sentence: sentence.to_owned(),
        theme: Theme::new(false),
        model: Some(model),
        layer0: Some(layer0),
        background_layer0_from: background_from,
        ..Options::default()
    })
}

/// Ticks until the model's own layer 0 is no longer computed on the worker (at most 30 s).
fn wait_for_layer0(app: &mut App) {
    let started = std::time::Instant::now();
    while app.computing_layer0() {
        assert!(started.elapsed().as_secs() < 30, "the worker finishes");
        std::thread::sleep(std::time::Duration::from_millis(5));
        app.update(embedlens::action::Action::Tick);
    }
}

/// The screen's words in reading order, each pane's wrapped lines joined: the right-hand
/// pane of a row (after the seam `││`) is read on its own, then the spaces collapsed.
fn screen(app: &App, width: u16, height: u16) -> String {
    let terminal = draw(app, width, height);
    let buffer = terminal.backend().buffer();
    let mut left = Vec::new();
    let mut right = Vec::new();
    for y in 0..buffer.area.height {
        let row: String = (0..buffer.area.width)
            .map(|x| buffer[(x, y)].symbol().to_owned())
            .collect();
        match row.split_once("││") {
            Some((first, second)) => {
                left.push(first.to_owned());
                right.push(second.to_owned());
            }
            None => left.push(row),
        }
    }
    left.extend(right);
    let text = left.join(" ").replace(['│', '╭', '╮', '╰', '╯', '─'], " ");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The explorer at the attention pane of "the dog bites the man".
fn at_attention(name: &str) -> (TempDir, App) {
    let folder = write_bert(name);
    let mut app = explorer(
        &folder.path().join("tiny-bert"),
        "the dog bites the man",
        usize::MAX,
    );
    press(&mut app, &[KeyCode::Enter]);
    type_text(&mut app, "a");
    (folder, app)
}

#[test]
fn the_attention_pane_shows_the_models_own_layer_0() {
    let (_folder, mut app) = at_attention("pane");
    for (width, height) in [(80, 24), (120, 40)] {
        let text = screen(&app, width, height);
        assert!(text.contains("head 0"), "{text}");
        assert_snapshot!(
            format!("own_layer0_no_positions_{width}x{height}_pane"),
            pane(&draw(&app, width, height), "Attention")
        );
    }
    type_text(&mut app, "p}");
    for (width, height) in [(80, 24), (120, 40)] {
        assert_snapshot!(
            format!("own_layer0_positions_head1_{width}x{height}"),
            draw(&app, width, height).backend()
        );
    }
}

#[test]
fn without_positions_the_reversal_is_identical_and_with_them_it_differs() {
    let (_folder, mut app) = at_attention("claim");
    let text = screen(&app, 200, 60);
    assert!(
        text.contains("Reversed: every word's layer-0 output the same, bit for bit"),
        "{text}"
    );
    // The reversal's outputs are not in this pane: the verdict names the keys that show them.
    assert!(
        text.contains("bit for bit; c, then a, shows both orders' outputs."),
        "{text}"
    );
    assert!(
        text.contains("same output in both orders, bit for bit"),
        "{text}"
    );
    assert!(
        text.contains("'the' at 1 and 4: the same layer-0 output"),
        "{text}"
    );
    type_text(&mut app, "p");
    let text = screen(&app, 200, 60);
    // The verdict from before the toggle is gone; the one after it says by how much.
    assert!(!text.contains("bit for bit"), "{text}");
    assert!(text.contains("the outputs differ, by up to"), "{text}");
    assert!(
        text.contains("the positions tell the copies apart"),
        "{text}"
    );
    // Another scheme in the lookups: layer 0 keeps the model's own, and says so.
    type_text(&mut app, "m");
    let text = screen(&app, 200, 60);
    assert!(
        text.contains("Layer 0 takes the model's own positions (learned), not the"),
        "{text}"
    );
}

#[test]
fn braces_choose_the_head_and_the_overview_shows_every_head() {
    let (_folder, mut app) = at_attention("heads");
    type_text(&mut app, "{");
    assert_eq!(app.head(), 0);
    assert_eq!(app.status(), Some("head 0 is the first head"));
    type_text(&mut app, "}}}}}");
    assert_eq!(app.head(), HEADS - 1);
    assert!(screen(&app, 120, 40).contains("head 3 of 4"));
    type_text(&mut app, "H");
    assert!(app.head_overview());
    for (width, height) in [(80, 24), (120, 40)] {
        let text = screen(&app, width, height);
        assert!(text.contains("▶h3"), "{text}");
        assert_snapshot!(
            format!("own_layer0_overview_{width}x{height}_pane"),
            pane(&draw(&app, width, height), "Attention")
        );
    }
    // Esc goes back one level at a time and never quits.
    press(&mut app, &[KeyCode::Esc]);
    assert!(!app.head_overview());
    assert!(screen(&app, 120, 40).contains("head 3 of 4"));
    press(&mut app, &[KeyCode::Esc]);
    assert!(!screen(&app, 120, 40).contains("head 3 of 4"));
    press(&mut app, &[KeyCode::Esc, KeyCode::Esc]);
    assert!(app.is_running());
}

#[test]
fn the_compare_mode_judges_on_the_models_own_layer() {
    let folder = write_bert("compare");
    let mut app = explorer(
        &folder.path().join("tiny-bert"),
        "the dog bites the man",
        usize::MAX,
    );
    press(&mut app, &[KeyCode::Enter]);
    type_text(&mut app, "ca");
    let text = screen(&app, 200, 60);
    assert!(text.contains("the model's own layer 0"), "{text}");
    assert!(
        text.contains("Without its position table, the model's own layer 0 gives every word"),
        "{text}"
    );
    type_text(&mut app, "p");
    let text = screen(&app, 200, 60);
    assert!(
        text.contains("With its position information, the outputs differ, by up to"),
        "{text}"
    );
}

#[test]
fn a_large_layer_runs_on_a_worker_and_keys_never_wait_for_it() {
    let folder = write_bert("worker");
    // Everything counts as large: the layer runs on the worker thread.
    let mut app = explorer(&folder.path().join("tiny-bert"), "the dog bites the man", 0);
    press(&mut app, &[KeyCode::Enter]);
    type_text(&mut app, "a");
    wait_for_layer0(&mut app);
    let text = screen(&app, 200, 60);
    assert!(text.contains("bit for bit"), "{text}");
    // A toggle takes the old verdict off the screen at once, before the new one is ready.
    type_text(&mut app, "p");
    let text = screen(&app, 200, 60);
    assert!(!text.contains("bit for bit"), "{text}");
    assert!(
        text.contains("Computing the model's own layer 0") || text.contains("differ"),
        "{text}"
    );
}

#[test]
fn closing_the_attention_pane_leaves_no_layer_0_computing() {
    let folder = write_bert("closed");
    let mut app = explorer(&folder.path().join("tiny-bert"), "the dog bites the man", 0);
    press(&mut app, &[KeyCode::Enter]);
    type_text(&mut app, "a");
    // Esc closes the pane while its run may still be on the worker: nothing waits for it, so a
    // headless screen (`embedlens screen`) that settles until nothing computes ends.
    press(&mut app, &[KeyCode::Esc]);
    assert!(!app.computing_layer0());
    assert!(app.layer0_view().is_none());
    // Opened again, the run starts anew and its answer arrives.
    type_text(&mut app, "a");
    wait_for_layer0(&mut app);
    assert!(matches!(app.layer0_view(), Some(Ok(_))));
}

#[test]
fn the_built_in_tables_keep_the_seeded_head_and_say_so_for_braces() {
    let mut app = App::new(Options {
        theme: Theme::new(false),
        ..Options::default()
    });
    press(&mut app, &[KeyCode::Enter]);
    type_text(&mut app, "}");
    assert!(
        app.status()
            .is_some_and(|status| status.contains("one seeded head")),
        "{:?}",
        app.status()
    );
    assert_eq!(app.head(), 0);
}

/// The explorer on a committed layer-0 fixture (no tokenizer: the sentence is ids).
fn fixture_explorer(name: &str, ids: &str) -> App {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/layer0")
        .join(name);
    let mut app = explorer(&folder, ids, usize::MAX);
    press(&mut app, &[KeyCode::Enter]);
    type_text(&mut app, "a");
    app
}

#[test]
fn a_rope_model_shows_the_score_between_two_copies_by_distance() {
    let mut app = fixture_explorer("llama_gqa_bf16", "5 1 2 5");
    let text = screen(&app, 200, 60);
    // Without the rotation nothing changes with distance.
    assert!(text.contains("RoPE off"), "{text}");
    assert!(text.contains("at every distance"), "{text}");
    assert!(text.contains("the causal mask"), "{text}");
    type_text(&mut app, "p");
    let text = screen(&app, 200, 60);
    assert!(text.contains("RoPE on"), "{text}");
    assert!(text.contains("changes with their distance — 0:"), "{text}");
    assert!(text.contains("the copies here stand 3 apart:"), "{text}");
    assert!(!text.contains("at every distance"), "{text}");
}

#[test]
fn a_causal_model_says_the_mask_alone_tells_the_orders_apart() {
    let app = fixture_explorer("gpt2", "the dog bites man");
    let text = screen(&app, 200, 60);
    assert!(
        text.contains("the causal mask alone already tells the orders apart"),
        "{text}"
    );
}

#[test]
fn an_empty_sentence_asks_for_one_rather_than_blaming_the_layer() {
    let folder = write_bert("empty");
    let mut app = explorer(&folder.path().join("tiny-bert"), "", usize::MAX);
    press(&mut app, &[KeyCode::Enter]);
    // Special tokens off: no tokens at all.
    type_text(&mut app, "Sa");
    let text = screen(&app, 120, 40);
    assert!(text.contains("No tokens yet"), "{text}");
    assert!(!text.contains("cannot run"), "{text}");
}

#[test]
fn compare_mode_shows_each_words_layer_0_output_in_a_and_b() {
    let folder = write_bert("compare_outputs");
    let mut app = explorer(
        &folder.path().join("tiny-bert"),
        "the dog bites the man",
        usize::MAX,
    );
    press(&mut app, &[KeyCode::Enter]);
    type_text(&mut app, "ca");
    // All heads side by side, as the verdict compares them: every word the same, bit for bit.
    let terminal = draw(&app, 80, 24);
    let text = terminal.backend().to_string();
    assert!(text.contains("outputs, layer 0, all 4 heads"), "{text}");
    assert_eq!(text.matches("0 bit for bit").count(), 7, "{text}");
    assert!(text.contains("gives every word the same"), "{text}");
    assert_snapshot!(
        "compare_outputs_all_heads_80x24_pane",
        pane(&terminal, "Compare")
    );
    // One head, its four numbers with two decimals; then the model's positions.
    type_text(&mut app, "}");
    let text = screen(&app, 80, 24);
    assert!(text.contains("outputs, layer 0, head 0 of 4"), "{text}");
    assert!(text.contains("(2 decimals)"), "{text}");
    assert!(
        text.contains("= dog 2 -0.81 -3.97 -4.57 1.44 4 -0.81 -3.97 -4.57 1.44 0"),
        "{text}"
    );
    type_text(&mut app, "p");
    let text = screen(&app, 80, 24);
    assert!(text.contains("≠ dog 2"), "{text}");
    assert!(text.contains("outputs differ"), "{text}");
    // `{` goes back to all heads, and no further.
    type_text(&mut app, "{{");
    assert_eq!(
        app.compare_head(),
        embedlens::view_state::HeadChoice::AllHeads
    );
    assert!(app.status().unwrap_or_default().contains("first choice"));
}

#[test]
fn compare_mode_follows_s_as_the_explorer_does() {
    // The committed BERT fixture: its tokenizer adds [CLS] and [SEP]. With S they are left
    // out of the explorer, and now of both compared sentences' vectors too, not only of the
    // layer's outputs below them.
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/layer0/bert");
    let mut app = explorer(&folder, "fox bites the fox", usize::MAX);
    press(&mut app, &[KeyCode::Enter]);
    type_text(&mut app, "ca");
    let compare = pane(&draw(&app, 120, 40), "Compare");
    assert!(compare.contains("[CLS]"), "{compare}");
    type_text(&mut app, "S");
    let compare = pane(&draw(&app, 120, 40), "Compare");
    assert!(compare.contains("A: fox bites the fox"), "{compare}");
    assert!(!compare.contains("[CLS]"), "{compare}");
    assert!(!compare.contains("[SEP]"), "{compare}");
    assert!(compare.contains("SAME SET OF TOKEN VECTORS"), "{compare}");
    // S again: the special tokens are back in both.
    type_text(&mut app, "S");
    let compare = pane(&draw(&app, 120, 40), "Compare");
    assert!(compare.contains("[CLS]"), "{compare}");
}

#[test]
fn the_gpt2_lesson_shows_what_it_says_at_80x24_and_120x40() {
    // Word order: GPT-2's own layer 0 is causal: the compare pane shows the two orders' outputs differ,
    // so the lesson must not say that attention gives each word the same output in both.
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/layer0/gpt2");
    let mut app = explorer(&folder, "fox bites the fox", usize::MAX);
    press(&mut app, &[KeyCode::Enter]);
    type_text(&mut app, "L");
    // Step 1 first, at 80×24: the one-hot pane stacked under the matrix keeps the looked-up
    // row, the product and the check that says they are equal.
    type_text(&mut app, "2");
    let text = screen(&app, 80, 24);
    assert!(
        text.contains("✔ Right, and the panes above show it."),
        "{text}"
    );
    assert!(text.contains("× 1"), "{text}");
    assert!(text.contains("= one-hot × W"), "{text}");
    assert!(
        text.contains("one-hot(8) × W = row 8, bit for bit"),
        "{text}"
    );
    press(&mut app, &[KeyCode::Enter]);
    while app.lesson().is_some_and(|progress| progress.step < 3) {
        let answer = app.lesson().map_or(1, |progress| progress.content().answer);
        type_text(&mut app, &answer.to_string());
        press(&mut app, &[KeyCode::Enter]);
    }
    type_text(&mut app, "2");
    let text = screen(&app, 120, 40);
    assert!(text.contains("Word order"), "{text}");
    assert!(
        text.contains("✔ Right, and the panes above show it."),
        "{text}"
    );
    assert!(
        text.contains("the causal mask alone already tells the orders apart"),
        "{text}"
    );
    let lesson = pane_prose(&draw(&app, 120, 40), "Lesson");
    assert!(lesson.contains("This GPT-2 layer 0 is causal"), "{lesson}");
    assert!(
        lesson.contains("the mask alone makes the outputs differ"),
        "{lesson}"
    );
    assert!(!lesson.contains("same output in both"), "{lesson}");
}

/// The lesson on a committed layer-0 fixture, answered right up to step `step` (counting
/// from 0), whose question is answered right too.
fn lesson_at(name: &str, step: usize) -> App {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/layer0")
        .join(name);
    let mut app = explorer(&folder, "fox bites the fox", usize::MAX);
    press(&mut app, &[KeyCode::Enter]);
    type_text(&mut app, "L");
    loop {
        let progress = app.lesson().expect("the lesson runs");
        type_text(&mut app, &progress.content().answer.to_string());
        if progress.step == step {
            return app;
        }
        press(&mut app, &[KeyCode::Enter]);
    }
}

#[test]
fn the_word_order_steps_on_a_model_speak_only_of_the_tables_on_screen() {
    // GPT-2's pair is 5 tokens, BERT's 7 with [CLS] and [SEP]: at 80×24 the vectors and the
    // outputs cannot both fit. The vectors, which the answers rest on, stay whole; the lesson
    // says where the outputs are rather than what they show.
    for (name, tokens) in [("gpt2", 5), ("bert", 7)] {
        for step in [3, 4] {
            let app = lesson_at(name, step);
            let terminal = draw(&app, 80, 24);
            let compare = pane(&terminal, "Compare");
            let lesson = pane_prose(&terminal, "Lesson");
            let rows = compare.lines().filter(|line| line.contains(" B")).count();
            assert!(
                rows >= tokens,
                "{name} step {step}: every word's row:\n{compare}"
            );
            assert!(!compare.contains("▼ 2 more:"), "{compare}");
            assert!(!compare.contains("output in A"), "{compare}");
            // The title names what is shown: the vectors before the model's own layer 0.
            let title = compare.lines().next().unwrap_or_default();
            assert!(title.contains("the model's own layer 0"), "{title}");
            assert!(!title.contains("outputs"), "{title}");
            assert!(lesson.contains("panes above show it"), "{lesson}");
            assert!(
                lesson.contains("A taller terminal shows each word's attention output"),
                "{name} step {step}: {lesson}"
            );
            assert!(!lesson.contains("same output in both"), "{lesson}");
            assert!(!lesson.contains("outputs differ"), "{lesson}");
            assert!(!lesson.contains("so do attention's outputs"), "{lesson}");
            if step == 3 {
                assert!(lesson.contains("one set, arranged differently"), "{lesson}");
            } else {
                assert!(lesson.contains("the sets differ."), "{lesson}");
            }
            // At 120×40 both tables fit, and the lesson says what the outputs show.
            let terminal = draw(&app, 120, 40);
            let compare = pane(&terminal, "Compare");
            let lesson = pane_prose(&terminal, "Lesson");
            assert!(compare.contains("output in A"), "{compare}");
            assert!(compare.contains("outputs, layer 0"), "{compare}");
            assert!(!lesson.contains("A taller terminal"), "{lesson}");
        }
    }
}

#[test]
fn the_rope_step_on_a_learned_position_model_says_what_its_panes_show() {
    let folder = write_bert("lesson");
    let mut app = explorer(
        &folder.path().join("tiny-bert"),
        "the dog bites the man",
        usize::MAX,
    );
    press(&mut app, &[KeyCode::Enter]);
    type_text(&mut app, "L");
    while app.lesson().is_some_and(|progress| progress.step < 5) {
        let answer = app.lesson().map_or(1, |progress| progress.content().answer);
        type_text(&mut app, &answer.to_string());
        press(&mut app, &[KeyCode::Enter]);
    }
    type_text(&mut app, "2");
    let text = screen(&app, 80, 24);
    assert!(text.contains("Position inside attention"), "{text}");
    assert!(text.contains("✔ Right."), "{text}");
    assert!(!text.contains("panes above show it"), "{text}");
    assert!(text.contains("is not one of them"), "{text}");
    assert!(!text.contains("copies stay identical"), "{text}");
    assert!(
        text.contains("own positions on"),
        "its own learned positions: {text}"
    );
}

/// The explorer on a fixture without a vocabulary, its sentence given as ids (`--ids`).
fn ids_explorer(name: &str, ids: &str) -> App {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/layer0")
        .join(name);
    let Opened { model, layer0, .. } =
        open(&FileSource::path(&folder), &OpenOptions::default()).expect("the model opens");
    let mut app = App::new(Options {
        sentence: ids.to_owned(),
        theme: Theme::new(false),
        model: Some(model),
        layer0: Some(layer0),
        background_layer0_from: usize::MAX,
        ids: true,
        ..Options::default()
    });
    press(&mut app, &[KeyCode::Enter]);
    app
}

/// The llama fixture's explorer given the ids `5 1 2 5 3 4`, after `keys`, and its compare pane
/// at 120×40.
fn llama_compare(keys: &str) -> (App, String) {
    let mut app = ids_explorer("llama_gqa_bf16", "5 1 2 5 3 4");
    type_text(&mut app, keys);
    let compare = pane(&draw(&app, 120, 40), "Compare");
    (app, compare)
}

#[test]
fn compare_mode_on_an_ids_only_model_compares_the_ids() {
    let (mut app, compare) = llama_compare("ca");
    assert!(compare.contains("A: 5 1 2 5 3 4"), "{compare}");
    assert!(compare.contains("B: 4 3 5 2 1 5"), "{compare}");
    assert!(compare.contains("SAME SET OF TOKEN VECTORS"), "{compare}");
    let text = screen(&app, 120, 40);
    assert!(text.contains("(the Llama-style layer's 4 heads)"), "{text}");
    assert!(!text.contains("give token ids"), "{text}");
    // B edited to a word: the pane says why it cannot be compared, without asking for the ids
    // already given.
    type_text(&mut app, "I");
    type_text(&mut app, " dog");
    press(&mut app, &[KeyCode::Enter]);
    let text = screen(&app, 120, 40);
    assert!(
        text.contains(
            "'dog' in sentence B is not a token id: the llama_gqa_bf16 table's ids run from 0 \
             to 63"
        ),
        "{text}"
    );
    assert!(!text.contains("give token ids"), "{text}");
}

#[test]
fn positions_on_a_rope_model_are_its_rotation_in_every_pane() {
    let (mut app, compare) = llama_compare("cpa");
    assert!(compare.contains("Compare · RoPE positions"), "{compare}");
    assert!(
        compare.contains("With its position information"),
        "{compare}"
    );
    let text = screen(&app, 120, 40);
    assert!(!text.contains("learned"), "{text}");
    // The explorer's lookups, readout and attention name the rotation too (`a` back to the
    // vectors first, then `c` leaves compare mode).
    type_text(&mut app, "ac");
    let text = screen(&app, 120, 40);
    assert!(
        text.contains("RoPE adds nothing to the embeddings"),
        "{text}"
    );
    assert!(!text.contains("learned"), "{text}");
    type_text(&mut app, "a");
    let text = screen(&app, 120, 40);
    assert!(text.contains("RoPE on"), "{text}");
    assert!(!text.contains("learned"), "{text}");
    // `m` cycles past learned positions, which this model does not have.
    let mut schemes = Vec::new();
    for _ in 0..4 {
        type_text(&mut app, "m");
        schemes.push(app.scheme().name());
    }
    assert_eq!(schemes, ["alibi", "sinusoidal", "rope", "alibi"]);
}

#[test]
fn a_rope_models_scheme_is_shown_and_kept_when_the_vocabulary_changes() {
    let mut app = ids_explorer("llama_gqa_bf16", "5 1 2 5 3 4");
    type_text(&mut app, "p");
    assert_eq!(app.scheme().name(), "rope");
    let text = screen(&app, 120, 40);
    assert!(!text.contains("learned"), "{text}");
    type_text(&mut app, "v");
    assert_ne!(app.model().label(), "llama_gqa_bf16");
    assert_eq!(
        app.scheme().name(),
        "rope",
        "the next vocabulary keeps the scheme shown"
    );
}
