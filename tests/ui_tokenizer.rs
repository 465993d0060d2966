//! The explorer and a model's tokenizer: the first frame is drawn before the tokenizer is
//! built (on a worker started once that frame is drawn), the token strip says it is being
//! read (and the names of its ids, when they are read after the first frame too, are marked as
//! being read), and a tokenizer that cannot be rebuilt is said to be, with why, at every size.

mod common;

use std::sync::mpsc;
use std::time::Duration;

use common::{TempDir, draw, unknown_pre_tokenizer_gguf};
use embedlens::action::Action;
use embedlens::app::{App, Options};
use embedlens::core::files::{FileSource, OpenOptions, open};
use embedlens::core::tables::table::Table;
use embedlens::core::tables::weights::EmbeddingModel;
use embedlens::core::text::tokenizer::{Encoder, HuggingFaceTokenizer, Names, TextTokenizer};
use embedlens::hit_map::HitMap;
use embedlens::theme::Theme;
use insta::assert_snapshot;

/// A word-level tokenizer of four words whose reader of text is built only once `go` is sent.
fn held_tokenizer(go: mpsc::Receiver<()>) -> TextTokenizer {
    let json = r#"{"model": {"type": "WordLevel", "unk_token": "[UNK]",
                   "vocab": {"fox": 0, "bites": 1, "the": 2, "[UNK]": 3}},
                   "pre_tokenizer": {"type": "Whitespace"}}"#;
    let names = ["fox", "bites", "the", "[UNK]"].map(str::to_owned).to_vec();
    TextTokenizer::HuggingFace(HuggingFaceTokenizer::from_parts(
        "held",
        Names::from_texts(names, false),
        move || {
            go.recv().expect("the test says go");
            Encoder::from_json(json.as_bytes())
        },
    ))
}

fn model_with(tokenizer: TextTokenizer) -> EmbeddingModel {
    let rows = ndarray::Array2::from_shape_fn((4, 3), |(row, col)| {
        f32::from(u8::try_from(row * 3 + col).expect("small")) / 4.0
    });
    EmbeddingModel::new("held", Some(tokenizer), Table::from(rows), None)
}

fn explorer(model: EmbeddingModel) -> App {
    App::new(Options {
        sentence: "fox bites the fox".to_owned(),
        theme: Theme::new(false),
        model: Some(model),
        background_tokenizer_from: 0,
        ..Options::default()
    })
}

/// Lets the held worker go, waits until the reader of text is built, and ticks as the run loop
/// does while it waits (the tick reads the sentence).
fn let_the_worker_build(go: &mpsc::Sender<()>, app: &mut App) {
    go.send(()).expect("the worker waits");
    for _ in 0..1000 {
        if !app.model().text_pending() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    app.update(Action::Tick);
}

#[test]
fn the_first_frame_does_not_wait_for_the_tokenizer() {
    let (go, held) = mpsc::channel();
    let mut app = explorer(model_with(held_tokenizer(held)));
    // Drawn while the worker waits: no tokens yet, and the strip says why.
    assert!(app.reading_tokenizer() && app.waiting_for_tables());
    assert!(app.tokens().is_empty());
    assert_snapshot!(draw(&app, 80, 24).backend());
    // The run loop says each frame is drawn; the worker starts after the first.
    assert!(app.model().text_pending());
    app.drawn(HitMap::default());
    let_the_worker_build(&go, &mut app);
    assert!(!app.reading_tokenizer() && !app.waiting_for_tables());
    let ids: Vec<_> = app.tokens().iter().map(|token| token.id).collect();
    assert_eq!(ids, [Some(0), Some(1), Some(2), Some(0)]);
    let screen = draw(&app, 80, 24).backend().to_string();
    assert!(
        screen.contains("▶0 fox #0  1 bites #1  2 the #2"),
        "{screen}"
    );
    assert!(!screen.contains("reading the tokenizer"), "{screen}");
}

/// The same four words, with the names of the ids read as a large carried tokenizer.json's
/// are, only once `go` is sent (the reader of text is built after them).
fn names_held(go: mpsc::Receiver<()>) -> TextTokenizer {
    let json = r#"{"model": {"type": "WordLevel", "unk_token": "[UNK]",
                   "vocab": {"fox": 0, "bites": 1, "the": 2, "[UNK]": 3}},
                   "pre_tokenizer": {"type": "Whitespace"}}"#;
    let names = Names::later(4, move || {
        go.recv().expect("the test says go");
        Names::from_json(json.as_bytes())
    });
    TextTokenizer::HuggingFace(HuggingFaceTokenizer::from_parts("held", names, move || {
        Encoder::from_json(json.as_bytes())
    }))
}

/// The lines of the weight matrix's rows: those holding row 0's or row 1's first number.
fn matrix_rows(screen: &str) -> Vec<&str> {
    screen
        .lines()
        .filter(|line| line.contains("0.0000  0.2500") || line.contains("0.7500  1.0000"))
        .collect()
}

#[test]
fn the_first_frame_does_not_wait_for_the_names_of_the_ids() {
    let (go, held) = mpsc::channel();
    let mut app = explorer(model_with(names_held(held)));
    assert!(app.model().names_pending() && app.reading_tokenizer());
    // Drawn while the worker waits: the rows are marked as being named, none named.
    let screen = draw(&app, 80, 24).backend().to_string();
    assert!(
        screen.contains("reading the tokenizer and the names of its ids…"),
        "{screen}"
    );
    let rows = matrix_rows(&screen);
    assert_eq!(rows.len(), 2, "{screen}");
    for row in rows {
        assert!(row.contains("reading…") && !row.contains("fox") && !row.contains("bites"));
    }
    app.drawn(HitMap::default());
    let_the_worker_build(&go, &mut app);
    assert!(!app.model().names_pending() && !app.reading_tokenizer());
    let screen = draw(&app, 80, 24).backend().to_string();
    assert!(
        screen.contains("▶0 fox #0  1 bites #1  2 the #2"),
        "{screen}"
    );
    let rows = matrix_rows(&screen);
    assert!(
        rows[0].contains(" 0 fox ") && rows[1].contains(" 1 bites "),
        "{screen}"
    );
    assert!(!screen.contains("reading…"), "{screen}");
}

/// A GGUF file whose tokenizer names a pre-tokenizer embedlens does not know.
fn unknown_pre_tokenizer(folder: &TempDir, ids: bool) -> App {
    let path = folder.join("martian.gguf");
    unknown_pre_tokenizer_gguf()
        .f32_table("token_embd.weight", 3, 4, &[0.5; 12])
        .write(&path)
        .expect("a written GGUF file");
    let opened = open(&FileSource::path(&path), &OpenOptions::default()).expect("it opens");
    App::new(Options {
        sentence: "0 1 2".to_owned(),
        theme: Theme::new(false),
        model: Some(opened.model),
        layer0: Some(opened.layer0),
        ids,
        ..Options::default()
    })
}

#[test]
fn a_tokenizer_that_cannot_be_rebuilt_is_said_to_be_at_every_size() {
    let folder = TempDir::new("martian");
    let app = unknown_pre_tokenizer(&folder, false);
    let note = app.ids_only_note().expect("a note");
    assert!(
        note.starts_with(
            "Read as token ids: the file's tokenizer could not be rebuilt: its \
             pre-tokenizer \"martian-bpe\" (tokenizer.ggml.pre) is not one embedlens knows"
        ),
        "{note}"
    );
    assert_snapshot!("cannot_be_rebuilt_80x24", draw(&app, 80, 24).backend());
    assert_snapshot!("cannot_be_rebuilt_120x40", draw(&app, 120, 40).backend());
    assert_snapshot!("cannot_be_rebuilt_200x60", draw(&app, 200, 60).backend());
}

#[test]
fn reading_ids_on_purpose_leaves_the_note_out() {
    let folder = TempDir::new("martian-ids");
    let app = unknown_pre_tokenizer(&folder, true);
    assert_eq!(app.ids_only_note(), None);
    let screen = draw(&app, 80, 24).backend().to_string();
    assert!(!screen.contains("Read as token ids"), "{screen}");
}
