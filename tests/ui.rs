//! Screens of the explorer, driven through the real update path and drawn on a `TestBackend`.

mod common;

use common::draw;

use embedlens::app::{App, Options};
use embedlens::core::tables::positional::PositionScheme;
use embedlens::core::text::vocabulary::VocabKind;
use embedlens::theme::Theme;
use insta::assert_snapshot;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Modifier;
use unicode_width::UnicodeWidthStr;

fn app_with(sentence: &str) -> App {
    App::new(Options {
        sentence: sentence.to_owned(),
        theme: Theme::new(false),
        ..Options::default()
    })
}

fn press(app: &mut App, codes: &[KeyCode]) {
    for &code in codes {
        app.handle_event(&Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }
}

fn press_ctrl(app: &mut App, c: char) {
    app.handle_event(&Event::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::CONTROL,
    )));
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, &[KeyCode::Char(c)]);
    }
}

fn screen_text(terminal: &Terminal<TestBackend>) -> String {
    terminal.backend().to_string()
}

/// The explorer on the default sentence, stepped to the second `fox`.
fn at_second_fox() -> App {
    let mut app = app_with("fox bites the fox");
    press(
        &mut app,
        &[
            KeyCode::Enter,
            KeyCode::Right,
            KeyCode::Right,
            KeyCode::Right,
        ],
    );
    app
}

#[test]
fn launch() {
    let app = App::new(Options {
        theme: Theme::new(false),
        ..Options::default()
    });
    assert_snapshot!(draw(&app, 120, 40).backend());
}

#[test]
fn stepped_to_the_second_fox() {
    let app = at_second_fox();
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(
        text.contains("▶  2 fox     1.2753 -0.2010 -0.1606"),
        "{text}"
    );
    assert!(
        text.contains("fox at 0 and 3: same row 2, Euclidean distance 0.0000"),
        "{text}"
    );
    assert_snapshot!(terminal.backend());
}

#[test]
fn overlay_on() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('p')]);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(text.contains("with learned positions 2.1982"), "{text}");
    assert_snapshot!(terminal.backend());
}

#[test]
fn sinusoidal_positions() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('p'), KeyCode::Char('m')]);
    assert_eq!(app.active_scheme(), PositionScheme::Sinusoidal);
    assert_snapshot!(draw(&app, 120, 40).backend());
}

#[test]
fn words_vocabulary_with_positions() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('v'), KeyCode::Char('p')]);
    assert_eq!(app.vocab(), Some(VocabKind::Words));
    assert_snapshot!(draw(&app, 120, 40).backend());
}

#[test]
fn words_vocabulary_on_an_80_by_24_terminal() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('v'), KeyCode::Char('p')]);
    let terminal = draw(&app, 80, 24);
    let text = screen_text(&terminal);
    // Both copies of fox stay in view, as strips: the same token strip, different inputs.
    assert!(
        text.contains("◇   0 fox    706 =▒·≡■==· + ▒··▒-▒·≡ = ·░·-■░=≡"),
        "{text}"
    );
    assert!(
        text.contains("▶   3 fox    706 =▒·≡■==· + =-▓=≡-·· = ≡░▓≡■==·"),
        "{text}"
    );
    // A taller terminal has room for the numbers.
    let text = screen_text(&draw(&app, 80, 40));
    assert!(
        text.contains("  =  -1.8698  0.3883"),
        "the input vector fits whole:\n{text}"
    );
    assert_snapshot!(terminal.backend());
}

#[test]
fn help_overlay() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('?')]);
    assert_snapshot!(draw(&app, 120, 40).backend());
}

#[test]
fn a_30_by_8_terminal_shows_a_message() {
    let app = at_second_fox();
    let terminal = draw(&app, 30, 8);
    assert!(screen_text(&terminal).contains("too small"));
    assert_snapshot!(terminal.backend());
}

#[test]
fn resize_keeps_what_was_typed() {
    let mut app = app_with("");
    type_text(&mut app, "dog bites man");
    let mut terminal = draw(&app, 120, 40);
    for (width, height) in [(30, 8), (1, 1), (64, 20), (120, 40)] {
        terminal.backend_mut().resize(width, height);
        terminal
            .draw(|frame| frame.render_widget(&app, frame.area()))
            .expect("draw");
    }
    assert_eq!(app.text(), "dog bites man");
    terminal.backend_mut().resize(64, 20);
    terminal
        .draw(|frame| frame.render_widget(&app, frame.area()))
        .expect("draw");
    assert!(screen_text(&terminal).contains("dog bites man"));
    assert_snapshot!(terminal.backend());
}

#[test]
fn a_word_without_a_row() {
    let mut app = app_with("the cat bites");
    press(&mut app, &[KeyCode::Enter, KeyCode::Right]);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(
        text.contains("'cat' is not in the seed vocabulary"),
        "{text}"
    );
    assert!(text.contains("1 cat #?"), "{text}");
    assert_snapshot!(terminal.backend());
}

#[test]
fn positions_beyond_the_context_length_are_flagged() {
    let mut app = app_with(&["the"; 17].join(" "));
    press(
        &mut app,
        &[KeyCode::Enter, KeyCode::End, KeyCode::Char('p')],
    );
    let text = screen_text(&draw(&app, 120, 40));
    assert!(
        text.contains("position 16 is beyond the context length 16"),
        "{text}"
    );
}

#[test]
fn every_size_down_to_one_by_one_draws() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('p'), KeyCode::Char('?')]);
    for width in [1, 2, 10, 29, 49, 50, 51, 80, 200] {
        for height in [1, 2, 7, 15, 16, 17, 24, 60] {
            draw(&app, width, height);
        }
    }
}

#[test]
fn highlights_survive_without_colour() {
    let app = at_second_fox();
    let terminal = draw(&app, 120, 40);
    let buffer = terminal.backend().buffer();
    let marker = buffer
        .content()
        .iter()
        .find(|cell| cell.symbol() == "▶")
        .expect("a current-row marker");
    assert!(marker.modifier.contains(Modifier::REVERSED));
    assert!(marker.fg == ratatui::style::Color::Reset);
}

/// A 2,000 × 384 table without a vocabulary, explored by ids.
fn wide_app(sentence: &str) -> App {
    let mut app = App::new(Options {
        sentence: sentence.to_owned(),
        theme: Theme::new(false),
        model: Some(
            embedlens::core::tables::weights::EmbeddingModel::shaped(2000, 384, 16, 123)
                .expect("shape"),
        ),
        ..Options::default()
    });
    press(&mut app, &[KeyCode::Enter]);
    app
}

#[test]
fn wide_vectors_as_strips() {
    let mut app = wide_app("1500 7 1500");
    press(&mut app, &[KeyCode::End, KeyCode::Char('p')]);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(text.contains("1 cell = mean of 4 dims"), "{text}");
    assert!(
        text.contains("1500 at 0 and 2: same row 1500, Euclidean distance 0.0000"),
        "{text}"
    );
    assert_snapshot!(terminal.backend());
}

#[test]
fn wide_vectors_as_exact_values_scrolled_sideways() {
    let mut app = wide_app("1500 7 1500");
    press(&mut app, &[KeyCode::Char(']'), KeyCode::Char(']')]);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(text.contains("d16–d"), "{text}");
    assert_snapshot!(terminal.backend());
}

#[test]
fn go_to_an_id_in_a_large_matrix() {
    let mut app = wide_app("1500 7");
    press(&mut app, &[KeyCode::Char('#')]);
    type_text(&mut app, "1234");
    let prompt = screen_text(&draw(&app, 120, 40));
    assert!(prompt.contains("go to id: 1234"), "{prompt}");
    press(&mut app, &[KeyCode::Enter]);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(text.contains("› 1234 "), "{text}");
    assert!(text.contains("rows "), "{text}");
}

/// The built-in gpt2 vocabulary with narrow tables, waited for until they are generated.
fn gpt2_app(sentence: &str) -> App {
    let mut app = App::new(Options {
        sentence: sentence.to_owned(),
        theme: Theme::new(false),
        vocab: VocabKind::Gpt2,
        gpt2_dims: 8,
        ..Options::default()
    });
    while app.waiting_for_tables() {
        std::thread::sleep(std::time::Duration::from_millis(20));
        app.update(embedlens::action::Action::Tick);
    }
    press(&mut app, &[KeyCode::Enter]);
    app
}

#[test]
fn gpt2_byte_pair_pieces_in_a_large_vocabulary() {
    let app = gpt2_app("fox bites the fox");
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(text.contains("0 fox #12792"), "{text}");
    assert!(text.contains("3 ␣fox #21831"), "{text}");
    assert!(
        text.contains("'fox' (id 12792) at 0 and '␣fox' (id 21831) at 3"),
        "{text}"
    );
    assert!(text.contains("of 50257"), "{text}");
    assert_snapshot!(terminal.backend());
}

#[test]
fn find_a_token_in_gpt2() {
    let mut app = gpt2_app("dog bites man");
    press(&mut app, &[KeyCode::Char('/')]);
    type_text(&mut app, " man");
    press(&mut app, &[KeyCode::Enter]);
    let text = screen_text(&draw(&app, 120, 40));
    assert!(text.contains("' man' is row 582"), "{text}");
    assert!(text.contains("›   582 ␣man"), "{text}");
}

/// Writes a Llama-style single-file model (`model.embed_tokens.weight`, no position table).
fn rotary_model_file() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("embedlens-ui-rotary-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("tiny-llama.safetensors");
    let (rows, dims) = (40usize, 12usize);
    let bytes: Vec<u8> = (0..rows * dims)
        .flat_map(|i| {
            #[expect(clippy::cast_precision_loss, reason = "small test values")]
            let value = ((i % 17) as f32 - 8.0) / 16.0;
            value.to_le_bytes()
        })
        .collect();
    let view =
        safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![rows, dims], &bytes)
            .expect("tensor");
    safetensors::serialize_to_file([("model.embed_tokens.weight", view)], None, &path)
        .expect("write");
    path
}

#[test]
fn a_rotary_model_has_no_position_table_and_says_why() {
    let path = rotary_model_file();
    let model = embedlens::core::files::open(
        &embedlens::core::files::FileSource::path(&path),
        &embedlens::core::files::OpenOptions::default(),
    )
    .map(|opened| opened.model)
    .expect("open");
    std::fs::remove_dir_all(path.parent().expect("dir")).expect("clean up");
    let mut app = App::new(Options {
        sentence: "2 4 0 2".to_owned(),
        theme: Theme::new(false),
        model: Some(model),
        ..Options::default()
    });
    press(
        &mut app,
        &[KeyCode::Enter, KeyCode::End, KeyCode::Char('p')],
    );
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(
        text.contains("This model has no learned position table"),
        "{text}"
    );
    assert!(text.contains("rotary"), "{text}");
    assert_snapshot!(terminal.backend());
}

// Similarity and one-hot panes

/// The line of the screen that contains `needle`.
fn line_with<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|line| line.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in\n{text}"))
}

/// Draws at the smallest, a middling and a large size, none of which may panic.
fn draws_at_every_size(app: &App) {
    for (width, height) in [(50, 16), (80, 24), (200, 60)] {
        draw(app, width, height);
    }
}

#[test]
fn similarity_of_the_copies_without_positions() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('s')]);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    let second_fox = line_with(&text, "▶ 3 fox");
    let first_cell = second_fox.split("▶ 3 fox").nth(1).expect("cells");
    assert!(
        first_cell.trim_start().starts_with("█  1.00"),
        "the two foxes have cosine 1.00:\n{text}"
    );
    assert!(
        text.contains("Copies of a word have cosine 1.00 with each other: the same vector"),
        "{text}"
    );
    assert!(text.contains("nearest to the token vector"), "{text}");
    assert!(text.contains("(positions off: the same list)"), "{text}");
    assert!(
        line_with(&text, "▶ 2  fox ").contains("1.0000"),
        "the token is its own nearest row:\n{text}"
    );
    assert_snapshot!(terminal.backend());
    draws_at_every_size(&app);
}

#[test]
fn similarity_of_the_copies_with_learned_positions() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('s'), KeyCode::Char('p')]);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(
        text.contains("With learned positions added the copies are no longer identical: cosine"),
        "{text}"
    );
    assert!(text.contains("nearest to token + position"), "{text}");
    assert!(!text.contains("(positions off"), "{text}");
    assert_snapshot!(terminal.backend());
    draws_at_every_size(&app);
}

/// The trained vocabulary's similarity pane, stepped to `king`: training put `queen` beside it,
/// where a random table puts noise.
#[test]
fn similarity_in_the_trained_vocabulary() {
    let mut app = App::new(Options {
        sentence: "the king and the queen".to_owned(),
        theme: Theme::new(false),
        vocab: VocabKind::Trained,
        ..Options::default()
    });
    press(
        &mut app,
        &[KeyCode::Enter, KeyCode::Right, KeyCode::Char('s')],
    );
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    // Stacked under the wide matrix the pane is short: the nearest rows in a few lines.
    assert!(text.contains("(exact cosine; trained table)"), "{text}");
    assert!(!text.contains("untrained"), "{text}");
    // Queen is king's nearest other row (`line_with` fails, showing the screen, if not).
    line_with(&text, "token vector: 919 king 1.0000 · 1350 queen");
    // With room for them, the lists in full and what a trained table's neighbours mean.
    let text = screen_text(&draw(&app, 120, 60));
    assert!(text.contains("This is a trained table"), "{text}");
    let neighbours = text
        .lines()
        .skip_while(|line| !line.contains("nearest to the token vector"))
        .take(3)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        neighbours.contains("▶") && neighbours.contains("queen"),
        "queen is king's nearest other row:\n{text}"
    );
    assert_snapshot!(terminal.backend());
    draws_at_every_size(&app);

    // The same words in the random words table: the pane says its neighbours are noise.
    let mut random = App::new(Options {
        sentence: "the king and the queen".to_owned(),
        theme: Theme::new(false),
        vocab: VocabKind::Words,
        ..Options::default()
    });
    press(
        &mut random,
        &[KeyCode::Enter, KeyCode::Right, KeyCode::Char('s')],
    );
    let text = screen_text(&draw(&random, 120, 40));
    assert!(
        text.contains("This is an untrained, randomly initialised table"),
        "{text}"
    );
}

#[test]
fn similarity_of_a_long_sentence_as_shades() {
    let sentence = ["the dog bites the man and the man bites the dog"; 3].join(" ");
    let mut app = app_with(&sentence);
    press(
        &mut app,
        &[KeyCode::Enter, KeyCode::Char('v'), KeyCode::Char('s')],
    );
    let text = screen_text(&draw(&app, 120, 40));
    assert!(text.contains("░▒▓█ toward 1"), "{text}");
    assert!(
        text.contains("cosine    0  1  2  3"),
        "too many tokens for numbers: shades under a ruler of positions\n{text}"
    );
    draws_at_every_size(&app);
}

#[test]
fn similarity_of_a_word_without_a_row() {
    let mut app = app_with("the cat bites");
    press(
        &mut app,
        &[KeyCode::Enter, KeyCode::Right, KeyCode::Char('s')],
    );
    let text = screen_text(&draw(&app, 120, 40));
    assert!(
        text.contains("'cat' has no row, so there is nothing to find the nearest rows of"),
        "{text}"
    );
    draws_at_every_size(&app);
}

#[test]
fn one_hot_times_the_seed_matrix() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('o')]);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(text.contains("one-hot(2) = [0 0 1 0 0 0]"), "{text}");
    assert!(
        text.contains("one-hot(2) × W = row 2, bit for bit"),
        "{text}"
    );
    assert_snapshot!(terminal.backend());
    draws_at_every_size(&app);
}

#[test]
fn one_hot_of_a_big_vocabulary_is_abbreviated() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('v'), KeyCode::Char('o')]);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(text.contains(" … 0 1 0 … 0"), "{text}");
    assert!(text.contains("bit for bit"), "{text}");
    assert_snapshot!(terminal.backend());
    draws_at_every_size(&app);
}

#[test]
fn one_hot_of_wide_rows_and_of_a_word_without_a_row() {
    let mut app = wide_app("1500 7 1500");
    press(&mut app, &[KeyCode::End, KeyCode::Char('o')]);
    let text = screen_text(&draw(&app, 120, 40));
    assert!(
        text.contains("one-hot(1500) × W = row 1500, bit for bit"),
        "{text}"
    );
    assert!(text.contains("▶ 1500 × 1 "), "{text}");
    draws_at_every_size(&app);

    let mut app = app_with("the cat bites");
    press(
        &mut app,
        &[KeyCode::Enter, KeyCode::Right, KeyCode::Char('o')],
    );
    let text = screen_text(&draw(&app, 120, 40));
    assert!(
        text.contains("'cat' has no row in the seed vocabulary"),
        "{text}"
    );
    draws_at_every_size(&app);
}

// Attention and position-table panes

/// The explorer on the default sentence with the attention pane open, after `keys`.
fn attention_after(keys: &[KeyCode]) -> App {
    let mut app = app_with("fox bites the fox");
    press(&mut app, &[KeyCode::Enter, KeyCode::Char('a')]);
    press(&mut app, keys);
    app
}

/// The screen's line that holds `needle`.
fn screen_line<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|line| line.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in\n{text}"))
}

/// Draws at every size from the smallest the panes take to a large one, and a few below it.
fn sweep_sizes(app: &App) {
    for width in [1, 30, 49, 50, 51, 64, 80, 120, 200] {
        for height in [1, 8, 15, 16, 17, 24, 40, 60] {
            draw(app, width, height);
        }
    }
}

#[test]
fn attention_without_positions() {
    let app = attention_after(&[]);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(
        text.contains("Attention · one random, untrained head · unmasked · no positions"),
        "{text}"
    );
    assert!(text.contains("No position signal"), "{text}");
    let first = screen_line(&text, "▶   0 fox");
    let last = screen_line(&text, "    3 fox");
    assert_eq!(
        first.split("▶   0 fox").nth(1),
        last.split("    3 fox").nth(1),
        "the two foxes attend alike:\n{text}"
    );
    assert_snapshot!(terminal.backend());
    sweep_sizes(&app);
}

#[test]
fn the_copies_claim_in_the_attention_pane_comes_with_both_copies_rows_at_every_size() {
    // "fox at 0 and 3: identical weights and outputs" points at rows 0 and 3: wherever the
    // sentence is drawn, both foxes' weights and outputs are drawn beside it, and equal.
    let app = attention_after(&[]);
    for (width, height) in [(80, 24), (120, 40), (200, 60)] {
        let text = screen_text(&draw(&app, width, height));
        let pane: Vec<&str> = text
            .lines()
            .filter_map(|line| line.split("││").nth(1))
            .collect();
        // The pane's words in one run, however they were wrapped.
        let words = pane
            .iter()
            .flat_map(|line| line.split(['│', ' ', '"']))
            .filter(|word| !word.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            words.contains("fox at 0 and 3: identical weights and outputs."),
            "{width}x{height}: the claim is drawn:\n{text}"
        );
        let rows = |prefix: &str| -> Vec<String> {
            pane.iter()
                .filter_map(|line| line.split(prefix).nth(1))
                .map(|rest| rest.trim_end_matches(['│', ' ', '"']).to_owned())
                .collect()
        };
        let first = rows("▶   0 fox");
        let last = rows("    3 fox");
        assert_eq!(
            first.len(),
            2,
            "{width}x{height}: weights and output of 0:\n{text}"
        );
        assert_eq!(
            first, last,
            "{width}x{height}: the two foxes alike:\n{text}"
        );
    }
}

#[test]
fn attention_with_the_causal_mask() {
    let app = attention_after(&[KeyCode::Char('u')]);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(text.contains("· causal mask · no positions"), "{text}");
    let first = screen_line(&text, "▶   0 fox");
    assert!(
        first.contains("█1.00"),
        "position 0 sees only itself:\n{text}"
    );
    assert!(
        text.contains("The causal mask alone breaks the symmetry"),
        "{text}"
    );
    assert_snapshot!(terminal.backend());
    sweep_sizes(&app);
}

#[test]
fn attention_with_rope() {
    let mut app = attention_after(&[KeyCode::Char('m'), KeyCode::Char('m')]);
    press(&mut app, &[KeyCode::End]);
    assert_eq!(app.active_scheme(), PositionScheme::Rope);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(text.contains("· unmasked · RoPE "), "{text}");
    assert!(
        text.contains("RoPE adds nothing to the embeddings"),
        "{text}"
    );
    assert!(
        text.contains("first pairs of dimensions at position 3"),
        "{text}"
    );
    assert_snapshot!(terminal.backend());
    sweep_sizes(&app);
}

#[test]
fn attention_with_alibi() {
    let app = attention_after(&[KeyCode::Char('m'); 3]);
    assert_eq!(app.active_scheme(), PositionScheme::Alibi);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(text.contains("· unmasked · ALiBi "), "{text}");
    assert!(text.contains("all 8 heads' slopes: 1/2 1/4 1/8"), "{text}");
    assert!(text.contains("bias on position 0's scores"), "{text}");
    assert!(text.contains("Press u for the causal mask"), "{text}");
    assert_snapshot!(terminal.backend());
    sweep_sizes(&app);
}

#[test]
fn attention_of_a_long_sentence_as_shades() {
    let sentence = ["the dog bites the man and the man bites the dog"; 5].join(" ");
    let mut app = app_with(&sentence);
    press(
        &mut app,
        &[
            KeyCode::Enter,
            KeyCode::Char('v'),
            KeyCode::Char('a'),
            KeyCode::Char('u'),
            KeyCode::End,
        ],
    );
    let text = screen_text(&draw(&app, 120, 40));
    assert!(text.contains("the first 48 of 55 tokens"), "{text}");
    sweep_sizes(&app);
}

#[test]
fn attention_of_wide_vectors() {
    let mut app = wide_app("1500 7 1500");
    press(&mut app, &[KeyCode::Char('a'), KeyCode::Char('p')]);
    let text = screen_text(&draw(&app, 120, 40));
    assert!(text.contains("1 cell = mean of"), "{text}");
    sweep_sizes(&app);
}

#[test]
fn position_table_learned() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('t'), KeyCode::Char('p')]);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(
        text.contains("Position table · learnable, random init · 16 positions × 3 dims"),
        "{text}"
    );
    assert!(text.contains("exact values at position 3"), "{text}");
    assert_snapshot!(terminal.backend());
    sweep_sizes(&app);
}

#[test]
fn position_table_sinusoidal() {
    let mut app = at_second_fox();
    press(
        &mut app,
        &[KeyCode::Char('t'), KeyCode::Char('p'), KeyCode::Char('m')],
    );
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(text.contains("Position table · sinusoidal"), "{text}");
    // Position 3, dimension pair 0: sin 3 and cos 3.
    assert!(text.contains("  0.1411 -0.9900"), "{text}");
    assert_snapshot!(terminal.backend());
    sweep_sizes(&app);
}

#[test]
fn position_table_for_rope_shows_sinusoidal_for_contrast() {
    let mut app = at_second_fox();
    press(
        &mut app,
        &[KeyCode::Char('t'), KeyCode::Char('m'), KeyCode::Char('m')],
    );
    assert_eq!(app.active_scheme(), PositionScheme::Rope);
    let text = screen_text(&draw(&app, 120, 40));
    assert!(
        text.contains("RoPE adds no vectors to the embeddings"),
        "{text}"
    );
    assert!(text.contains("sinusoidal · RoPE adds none"), "{text}");
    sweep_sizes(&app);
}

#[test]
fn position_table_of_wide_vectors() {
    let mut app = wide_app("1500 7 1500");
    press(&mut app, &[KeyCode::Char('t'), KeyCode::End]);
    let text = screen_text(&draw(&app, 120, 40));
    assert!(text.contains("1 cell = mean of"), "{text}");
    sweep_sizes(&app);
}

#[test]
fn attention_marks_the_current_row_without_colour() {
    let app = attention_after(&[KeyCode::End]);
    let terminal = draw(&app, 120, 40);
    let buffer = terminal.backend().buffer();
    let area = buffer.area;
    let markers: Vec<_> = (area.y..area.bottom())
        .flat_map(|y| (36..area.right()).map(move |x| (x, y)))
        .filter(|&(x, y)| buffer[(x, y)].symbol() == "▶")
        .collect();
    assert_eq!(markers.len(), 2, "the heat-map row and the output row");
    for (x, y) in markers {
        assert!(buffer[(x, y)].modifier.contains(Modifier::REVERSED));
    }
}

#[test]
fn heat_maps_colour_their_cells_and_keep_the_numbers_readable() {
    let mut app = App::new(Options {
        sentence: "fox bites the fox".to_owned(),
        theme: Theme::new(true),
        ..Options::default()
    });
    press(&mut app, &[KeyCode::Enter, KeyCode::Char('t')]);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    // Position 0's first value, -2.1338, is in its cell to two decimals, on a coloured cell.
    let row = text
        .lines()
        .position(|line| line.contains("▶   0 "))
        .expect("row 0");
    let line = text.lines().nth(row).unwrap();
    let column = line.find("-2.13").expect("the number in its cell");
    let x = u16::try_from(line[..column].chars().count() - 1).unwrap();
    let y = u16::try_from(row).unwrap();
    let cell = &terminal.backend().buffer()[(x + 1, y)];
    assert!(
        matches!(cell.bg, ratatui::style::Color::Rgb(..)),
        "a background colour: {cell:?}"
    );
    assert!(cell.modifier.contains(Modifier::BOLD), "the ▶ row in bold");
}

#[test]
fn a_narrow_attention_map_prints_the_current_rows_weights() {
    let sentence = ["the dog bites the man and the man bites the dog"; 2].join(" ");
    let mut app = app_with(&sentence);
    press(
        &mut app,
        &[KeyCode::Enter, KeyCode::Char('v'), KeyCode::Char('a')],
    );
    let text = screen_text(&draw(&app, 120, 40));
    assert!(text.contains("▶ the at 0 gives 0."), "{text}");
}

// The picture: the vectors on their top two principal axes

#[test]
fn picture_without_positions_draws_the_copies_as_one_dot() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('g')]);
    for (width, height) in [(80, 24), (120, 40), (200, 60)] {
        let text = screen_text(&draw(&app, width, height));
        assert!(text.contains("●fox ×2"), "{width}×{height}:\n{text}");
        assert!(
            !text.contains("◆"),
            "no input vectors without positions:\n{text}"
        );
        assert!(text.contains("axes: PC1 ("), "{text}");
        assert!(text.contains("'fox' at 0 and 3: one dot."), "{text}");
        assert!(text.contains("untrained random table"), "{text}");
    }
    assert_snapshot!(
        "picture_without_positions_120x40",
        draw(&app, 120, 40).backend()
    );
    sweep_sizes(&app);
}

#[test]
fn picture_with_positions_splits_the_copies_and_says_how_far() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('g'), KeyCode::Char('p')]);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    for label in ["◆0 fox", "◆3 fox", "●fox ×2"] {
        assert!(text.contains(label), "{label}:\n{text}");
    }
    // The picture's distance is the readout's, over every dimension.
    assert!(text.contains("they are 2.1982 apart"), "{text}");
    assert!(text.contains("with learned positions 2.1982"), "{text}");
    assert_snapshot!("picture_with_positions_120x40", terminal.backend());
    assert_snapshot!("picture_with_positions_80x24", draw(&app, 80, 24).backend());
    sweep_sizes(&app);
}

#[test]
fn picture_in_compare_mode_shows_both_orders_on_one_set_of_dots_until_positions_come() {
    let mut app = app_with("fox bites the fox");
    press(
        &mut app,
        &[KeyCode::Enter, KeyCode::Char('c'), KeyCode::Char('g')],
    );
    let text = screen_text(&draw(&app, 80, 24));
    assert!(
        text.contains("All 4 of B's token vectors sit on A's dots"),
        "{text}"
    );
    assert!(!text.contains("◆"), "{text}");
    press(&mut app, &[KeyCode::Char('p')]);
    let terminal = draw(&app, 80, 24);
    let text = screen_text(&terminal);
    assert!(
        text.contains("2 of B's 4 input vectors are on none of A's dots"),
        "{text}"
    );
    assert!(
        text.contains("A0 fox B0 fox"),
        "copies in place coincide:\n{text}"
    );
    assert_snapshot!(
        "picture_in_compare_mode_with_positions_80x24",
        terminal.backend()
    );
    sweep_sizes(&app);
}

#[test]
fn a_roomy_terminal_puts_the_picture_beside_a_readable_readout() {
    let mut app = at_second_fox();
    app.handle_event(&Event::Resize(200, 60));
    press(&mut app, &[KeyCode::Char('p')]);
    let terminal = draw(&app, 200, 60);
    let text = screen_text(&terminal);
    assert!(text.contains("◆3 fox"), "{text}");
    assert!(text.contains("they are 2.1982 apart"), "{text}");
    // The readout wraps at a readable width, beside the picture.
    let readout = line_with(&text, "fox at 0 and 3: same row 2");
    assert!(readout.contains("axes: PC1 ("), "{readout}");
    assert_snapshot!("picture_beside_the_readout_200x60", terminal.backend());
    // Smaller, the readout has the width to itself.
    app.handle_event(&Event::Resize(120, 40));
    let text = screen_text(&draw(&app, 120, 40));
    assert!(!text.contains("axes: PC1 ("), "{text}");
}

#[test]
fn a_narrow_attention_pane_still_says_its_head_is_random() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('a'), KeyCode::Char('p')]);
    let text = screen_text(&draw(&app, 80, 24));
    assert!(text.contains("╭ Random head · learned positions"), "{text}");
}

// Compare mode and the guided lesson

#[test]
fn compare_mode_without_positions() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('c')]);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(text.contains("SAME SET OF TOKEN VECTORS"), "{text}");
    assert!(text.contains("A and B are identical"), "{text}");
    assert!(
        text.contains("identical for all 4 shared words in A and B"),
        "{text}"
    );
    assert!(!text.contains("leaves a trace"), "{text}");
    assert_snapshot!(terminal.backend());
}

#[test]
fn compare_mode_with_learned_positions() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('c'), KeyCode::Char('p')]);
    let text = screen_text(&draw(&app, 120, 40));
    assert!(
        text.contains("all 4 shared words get a different output"),
        "{text}"
    );
    assert!(text.contains("DIFFERENT INPUT VECTORS"), "{text}");
    assert!(!text.contains("SAME SET OF TOKEN VECTORS"), "{text}");
    assert!(!text.contains("0.0000)"), "{text}");
    for width in [50, 80, 200] {
        draw(&app, width, 24);
    }
}

#[test]
fn compare_mode_edits_the_second_sentence() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('c')]);
    let text = screen_text(&draw(&app, 120, 40));
    assert!(
        text.contains("B fox the bites fox"),
        "B is A reversed: {text}"
    );
    press(&mut app, &[KeyCode::Char('I')]);
    let text = screen_text(&draw(&app, 120, 40));
    assert!(text.contains("▶B fox the bites fox"), "B is marked: {text}");
    // Ctrl+U clears the sentence being edited, B, and leaves A alone.
    press_ctrl(&mut app, 'u');
    type_text(&mut app, "man bites cat");
    press(&mut app, &[KeyCode::Enter]);
    assert_eq!(app.text(), "fox bites the fox");
    let text = screen_text(&draw(&app, 120, 40));
    assert!(text.contains("'cat' in sentence B has no row"), "{text}");
    press(&mut app, &[KeyCode::Char('I')]);
    press_ctrl(&mut app, 'z');
    press(&mut app, &[KeyCode::Enter]);
    let text = screen_text(&draw(&app, 120, 40));
    assert!(
        !text.contains("'cat'"),
        "Ctrl+Z took the typing back: {text}"
    );
}

#[test]
fn compare_mode_reorders_the_learners_own_words() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('c'), KeyCode::Char('r')]);
    let text = screen_text(&draw(&app, 120, 40));
    assert!(text.contains("B bites the fox fox"), "r rotates: {text}");
    press(&mut app, &[KeyCode::Char('r')]);
    let text = screen_text(&draw(&app, 120, 40));
    assert!(
        !text.contains("B bites the fox fox"),
        "then shuffles: {text}"
    );
    assert!(text.contains("B holds exactly A's tokens"), "{text}");
    press(&mut app, &[KeyCode::Char('c')]);
    assert_eq!(app.text(), "fox bites the fox", "A was never touched");
}

#[test]
fn lesson_question_then_reveal() {
    let mut app = at_second_fox();
    press(
        &mut app,
        &[KeyCode::Char('L'), KeyCode::Char('2'), KeyCode::Enter],
    );
    let hidden = screen_text(&draw(&app, 120, 40));
    assert!(hidden.contains("step 2 of 7"), "{hidden}");
    assert!(hidden.contains("Hidden until you guess"), "{hidden}");
    assert!(
        !hidden.contains("distance 0.0000"),
        "the answer stays hidden: {hidden}"
    );
    assert!(hidden.contains("ids hidden until you answer"), "{hidden}");
    assert!(
        !hidden.contains("#2") && !hidden.contains("◇"),
        "no ids or copy marks before the answer: {hidden}"
    );
    press(&mut app, &[KeyCode::Char('1')]);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(text.contains("✔ 1) the same vector"), "{text}");
    assert!(
        text.contains("fox at 0 and 3: same row 2, Euclidean distance 0.0000"),
        "{text}"
    );
    assert_snapshot!(terminal.backend());
}

/// Row `y` of the screen as the terminal shows it: a wide character once, not followed by the
/// blank cell it covers.
fn screen_row(terminal: &Terminal<TestBackend>, y: u16) -> String {
    let buffer = terminal.backend().buffer();
    let mut row = String::new();
    let mut x = 0;
    while x < buffer.area.width {
        let symbol = buffer[(x, y)].symbol();
        row.push_str(symbol);
        x += u16::try_from(symbol.width().max(1)).expect("a cell is narrow");
    }
    row
}

#[test]
fn a_sentence_longer_than_the_explorer_reads_scrolls_to_its_last_read_token() {
    // 10,000 words of 11 columns: 110,000 columns, more than a u16 scroll offset can hold; the
    // explorer reads the first 4,096 of them and says how much it left out.
    let text = (0..10_000)
        .map(|i| format!("word{i:06}"))
        .collect::<Vec<_>>()
        .join(" ");
    let mut app = app_with("");
    app.handle_event(&Event::Paste(text));
    press(&mut app, &[KeyCode::Enter, KeyCode::End]);
    let terminal = draw(&app, 120, 40);
    let sentence = screen_row(&terminal, 1);
    assert!(
        sentence
            .trim_end_matches([' ', '│'])
            .ends_with("word004094 word004095"),
        "the sentence scrolls to its last token read: {sentence:?}"
    );
    let left = (10_000 - 4096) * 11;
    assert!(
        screen_row(&terminal, 3).contains(&format!(
            "Tokens · first 4096 tokens read, the {left} characters after them left out"
        )),
        "{}",
        screen_row(&terminal, 3)
    );
}

#[test]
fn an_accent_stays_on_its_letter_when_the_letter_is_the_current_token() {
    // The accent typed after its letter stays in the word, and is drawn on its letter.
    let mut app = app_with("cafe\u{301} x");
    press(&mut app, &[KeyCode::Enter]);
    assert_eq!(
        app.current_token().map(|t| t.text.as_str()),
        Some("cafe\u{301}")
    );
    let terminal = draw(&app, 120, 40);
    assert_eq!(
        terminal.backend().buffer()[(4, 1)].symbol(),
        "e\u{301}",
        "the accent is drawn on its letter:\n{}",
        screen_text(&terminal)
    );
}

#[test]
fn attention_labels_of_wide_words_line_up_with_their_columns() {
    let mut app = App::new(Options {
        sentence: "東京 fox 東京".to_owned(),
        vocab: VocabKind::Words,
        theme: Theme::new(false),
        ..Options::default()
    });
    press(&mut app, &[KeyCode::Enter, KeyCode::Char('a')]);
    let terminal = draw(&app, 120, 40);
    let rows: Vec<String> = (0..40).map(|y| screen_row(&terminal, y)).collect();
    let header = rows
        .iter()
        .position(|row| row.contains("pos token") && row.contains(" 0 "))
        .unwrap_or_else(|| panic!("no attention header:\n{}", rows.join("\n")));
    let (positions, texts) = (&rows[header], &rows[header + 1]);
    // The column where a piece of a row ends, counted in display columns.
    let end = |row: &str, piece: &str| {
        let start = row.find(piece).expect("the piece is on the row");
        row[..start + piece.len()].width()
    };
    assert_eq!(
        end(texts, "東京"),
        end(positions, " 0"),
        "the first key's text ends under its position:\n{positions}\n{texts}"
    );
    assert_eq!(
        end(texts, "fox"),
        end(positions, " 1"),
        "and so does the second's:\n{positions}\n{texts}"
    );
}

#[test]
fn the_learners_sentence_comes_back_after_the_lesson() {
    let mut app = app_with("dog bites man");
    press(&mut app, &[KeyCode::Enter, KeyCode::Char('L')]);
    // Step 1, then step 2 needs a repeated word and puts one in place of the learner's.
    press(&mut app, &[KeyCode::Char('2'), KeyCode::Enter]);
    assert_ne!(app.text(), "dog bites man");
    press(&mut app, &[KeyCode::Esc]);
    assert!(app.lesson().is_none());
    assert_eq!(app.text(), "dog bites man");
    assert!(app.compare().is_none());
}

#[test]
fn one_word_is_set_aside_for_the_pair_and_comes_back() {
    let mut app = app_with("fox");
    press(&mut app, &[KeyCode::Enter, KeyCode::Char('c')]);
    let text = screen_text(&draw(&app, 120, 40));
    assert!(text.contains("B man bites dog"), "{text}");
    press(&mut app, &[KeyCode::Char('c')]);
    assert_eq!(app.text(), "fox");
}

/// The help overlay opened with F1 at a size, then scrolled to its end.
fn help_scrolled_to_the_end(width: u16, height: u16) -> App {
    let mut app = at_second_fox();
    app.handle_event(&Event::Resize(width, height));
    press(&mut app, &[KeyCode::F(1), KeyCode::End]);
    app
}

#[test]
fn help_overlay_scrolled_to_its_end_at_80_by_24() {
    let app = help_scrolled_to_the_end(80, 24);
    let terminal = draw(&app, 80, 24);
    let text = screen_text(&terminal);
    assert!(
        text.contains("closes this help"),
        "the last line is reachable"
    );
    assert!(
        text.contains("of "),
        "the border says which lines are shown"
    );
    assert!(text.contains("? help") || text.contains("close help"));
    assert_snapshot!(terminal.backend());
}

#[test]
fn help_overlay_scrolled_to_its_end_at_200_by_60() {
    let app = help_scrolled_to_the_end(200, 60);
    assert_snapshot!(draw(&app, 200, 60).backend());
}

#[test]
fn the_help_bar_keeps_help_and_quit_however_narrow() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('z')]);
    for width in [50, 64, 80] {
        let terminal = draw(&app, width, 24);
        let bar = screen_text(&terminal)
            .lines()
            .nth(23)
            .unwrap_or_default()
            .to_owned();
        assert!(
            bar.contains("? help") && bar.contains("q quit"),
            "{width}: {bar}"
        );
    }
}

#[test]
fn the_similarity_pane_says_computing_while_a_large_scan_runs() {
    let model = embedlens::core::tables::weights::EmbeddingModel::shaped(3000, 16, 16, 7).unwrap();
    let mut app = App::new(Options {
        sentence: "3 1 4".to_owned(),
        model: Some(model),
        theme: Theme::new(false),
        background_scan_from: 0,
        ..Options::default()
    });
    press(&mut app, &[KeyCode::Enter, KeyCode::Char('s')]);
    let text = screen_text(&draw(&app, 120, 40));
    assert!(text.contains("computing…"), "{text}");
    press(&mut app, &[KeyCode::Right]);
    assert_eq!(app.step(), 1, "the explorer still steps");
    let text = screen_text(&draw(&app, 120, 40));
    assert!(text.contains("computing…"), "{text}");
    while app.scanning() {
        std::thread::sleep(std::time::Duration::from_millis(5));
        app.update(embedlens::action::Action::Tick);
    }
    let text = screen_text(&draw(&app, 120, 40));
    assert!(!text.contains("computing…"), "{text}");
    assert!(text.contains("Nearest rows to '1'"), "{text}");
}

/// The sizes: the smallest common terminal and a large one.
const SIZES: [(u16, u16); 2] = [(80, 24), (200, 60)];

#[test]
fn positions_on_at_the_second_copy_at_80_by_24_and_200_by_60() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('p')]);
    for (width, height) in SIZES {
        let terminal = draw(&app, width, height);
        let text = screen_text(&terminal);
        // Both copies' input vectors and their distance are on screen together.
        assert!(text.contains("-0.8585  0.8514 -0.5490"), "{text}");
        assert!(text.contains("1.0998 -0.1027 -0.2541"), "{text}");
        assert!(text.contains("with learned positions"), "{text}");
        assert!(text.contains("2.1982"), "{text}");
        assert_snapshot!(
            format!("positions_on_at_the_second_copy_{width}x{height}"),
            terminal.backend()
        );
    }
}

#[test]
fn compare_mode_at_80_by_24_and_200_by_60() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('c')]);
    for positions in [false, true] {
        for (width, height) in SIZES {
            // At 200×60 the picture of both sentences' dots stands beside the readout.
            app.handle_event(&Event::Resize(width, height));
            let terminal = draw(&app, width, height);
            let text = screen_text(&terminal);
            if positions {
                assert!(text.contains("DIFFERENT INPUT VECTORS"), "{text}");
                assert!(text.contains("get a different output"), "{text}");
            } else {
                assert!(text.contains("SAME SET OF TOKEN VECTORS"), "{text}");
                assert!(text.contains("Attention outputs: identical"), "{text}");
            }
            let name = if positions { "with" } else { "without" };
            assert_snapshot!(
                format!("compare_mode_{name}_positions_{width}x{height}"),
                terminal.backend()
            );
        }
        press(&mut app, &[KeyCode::Char('p')]);
    }
}

#[test]
fn lesson_first_step_before_and_after_its_answer_at_80_by_24() {
    let mut app = app_with("fox bites the fox");
    press(&mut app, &[KeyCode::Enter, KeyCode::Char('L')]);
    let terminal = draw(&app, 80, 24);
    let before = screen_text(&terminal);
    assert!(before.contains("ids hidden until you answer"), "{before}");
    assert!(!before.contains("distance"), "{before}");
    assert_snapshot!("lesson_step_1_before_80x24", terminal.backend());
    press(&mut app, &[KeyCode::Char('1')]);
    let terminal = draw(&app, 80, 24);
    let after = screen_text(&terminal);
    assert!(after.contains("✘ Not quite"), "{after}");
    assert!(
        !after.contains("distance 0.0000"),
        "step 2's answer stays hidden: {after}"
    );
    assert_snapshot!("lesson_step_1_after_80x24", terminal.backend());
}

#[test]
fn every_lesson_step_before_and_after_its_answer_at_80_by_24_and_200_by_60() {
    let mut app = app_with("fox bites the fox");
    press(&mut app, &[KeyCode::Enter, KeyCode::Char('L')]);
    let answers = ['2', '1', '1', '2', '1', '2'];
    let sizes = [(80, 24), (200, 60)];
    for (index, answer) in answers.into_iter().enumerate() {
        let step = index + 1;
        for (width, height) in sizes {
            // At 200×60 the picture stands beside the lesson panel.
            app.handle_event(&Event::Resize(width, height));
            let terminal = draw(&app, width, height);
            let text = screen_text(&terminal);
            assert!(text.contains(&format!("step {step} of 7")), "{text}");
            assert!(!text.contains("✔ Right"), "{text}");
            if step > 1 {
                assert_snapshot!(
                    format!("lesson_step_{step}_before_{width}x{height}"),
                    terminal.backend()
                );
            }
        }
        press(&mut app, &[KeyCode::Char(answer)]);
        for (width, height) in sizes {
            // At 200×60 the picture stands beside the lesson panel.
            app.handle_event(&Event::Resize(width, height));
            let terminal = draw(&app, width, height);
            let text = screen_text(&terminal);
            assert!(text.contains("✔ Right"), "step {step}:\n{text}");
            // Step 1's answer must not show step 2's: the copies' single dot.
            assert!(step > 1 || !text.contains("one dot"), "{text}");
            if step > 1 {
                assert_snapshot!(
                    format!("lesson_step_{step}_after_{width}x{height}"),
                    terminal.backend()
                );
            }
        }
        press(&mut app, &[KeyCode::Enter]);
    }
    for (width, height) in sizes {
        app.handle_event(&Event::Resize(width, height));
        let terminal = draw(&app, width, height);
        assert!(screen_text(&terminal).contains("step 7 of 7"));
        // The last step's Enter ends the lesson, and the help bar says so.
        let bar = screen_row(&terminal, height - 1);
        assert!(
            bar.contains("Enter finish") && !bar.contains("next"),
            "{bar}"
        );
        assert_snapshot!(
            format!("lesson_step_7_{width}x{height}"),
            terminal.backend()
        );
    }
}

/// The lesson at 80×24, each question answered wrong until step `last`, where the wrong
/// answer stays on screen.
fn lesson_wrong_at(last: usize) -> App {
    let mut app = app_with("fox bites the fox");
    app.handle_event(&Event::Resize(80, 24));
    press(&mut app, &[KeyCode::Enter, KeyCode::Char('L')]);
    for step in 1..=last {
        let progress = app.lesson().expect("the lesson runs");
        assert_eq!(progress.step + 1, step);
        let wrong = if progress.content().answer == 1 {
            '2'
        } else {
            '1'
        };
        press(&mut app, &[KeyCode::Char(wrong)]);
        if step < last {
            press(&mut app, &[KeyCode::Enter]);
        }
    }
    app
}

#[test]
fn lesson_steps_3_and_6_after_a_wrong_answer_fit_80_by_24() {
    let app = lesson_wrong_at(3);
    let terminal = draw(&app, 80, 24);
    let text = screen_text(&terminal);
    assert!(text.contains("✘ Not quite"), "{text}");
    // Both copies of the repeated word, read from one row, and the layer's name whole.
    assert!(text.contains("fox ×2 → row 2"), "{text}");
    assert!(text.contains("[ Embedding(6, 3) ]"), "{text}");
    assert!(text.contains("Euclidean distance 0.0000"), "{text}");
    assert_snapshot!("lesson_step_3_wrong_80x24", terminal.backend());

    let app = lesson_wrong_at(6);
    let terminal = draw(&app, 80, 24);
    let text = screen_text(&terminal);
    assert!(
        text.contains("✘ Not quite: the panes above show why"),
        "{text}"
    );
    // No room for both copies' vectors before and after their turns: the claim that they
    // differ is left out rather than said without them.
    assert!(!text.contains("before rotation"), "{text}");
    assert_snapshot!("lesson_step_6_wrong_80x24", terminal.backend());
}

#[test]
fn the_help_bar_offers_only_the_lesson_keys_that_work_now() {
    let mut app = lesson_wrong_at(1);
    // Answered: Enter moves on, and nothing offers an answer again.
    let bar = |app: &App| {
        let text = screen_text(&draw(app, 80, 24));
        text.lines().nth(23).unwrap_or_default().to_owned()
    };
    let answered = bar(&app);
    assert!(answered.contains("Enter next"), "{answered}");
    assert!(!answered.contains("1/2 answer"), "{answered}");
    assert!(
        !answered.contains("← back"),
        "the first step has no step before: {answered}"
    );
    press(&mut app, &[KeyCode::Enter]);
    let asking = bar(&app);
    assert!(asking.contains("1/2 answer"), "{asking}");
    assert!(
        !asking.contains("Enter next"),
        "Enter waits for an answer: {asking}"
    );
    assert!(asking.contains("← back"), "{asking}");
}

#[test]
fn nothing_marks_the_repeated_word_before_its_step_is_answered() {
    let app = lesson_wrong_at(1);
    let text = screen_text(&draw(&app, 120, 40));
    assert!(!text.contains("◇"), "no copy marker: {text}");
    assert!(!text.contains("•"), "no marked rows to count: {text}");
    assert!(
        text.contains("0 fox #2  1 bites #…  2 the #…  3 fox #…"),
        "only the current token's id: {text}"
    );
}

#[test]
fn an_empty_sentence_leaves_no_row_in_sight_marked() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('i')]);
    press_ctrl(&mut app, 'u');
    press(&mut app, &[KeyCode::Enter]);
    let text = screen_text(&draw(&app, 80, 24));
    assert!(!text.contains('›'), "{text}");
    // Scrolling the matrix is a move of the learner's own: then the row is marked.
    press(&mut app, &[KeyCode::Down]);
    let text = screen_text(&draw(&app, 80, 24));
    assert!(text.contains('›'), "{text}");
}

#[test]
fn a_lesson_started_on_an_empty_sentence_shows_a_sentence_of_its_own() {
    let mut app = app_with("fox bites the fox");
    press_ctrl(&mut app, 'u');
    press(
        &mut app,
        &[KeyCode::Enter, KeyCode::Char('L'), KeyCode::Char('2')],
    );
    let text = screen_text(&draw(&app, 80, 24));
    assert!(
        text.contains("✔ Right, and the panes above show it"),
        "{text}"
    );
    assert!(
        text.contains("one-hot("),
        "the pane shows the product: {text}"
    );
    press(&mut app, &[KeyCode::Esc]);
    assert_eq!(app.text(), "", "the learner's empty sentence comes back");
}

#[test]
fn the_default_screen_at_80_by_24_and_200_by_60() {
    for (width, height) in SIZES {
        let mut app = App::new(Options {
            theme: Theme::new(false),
            ..Options::default()
        });
        // As the run loop starts: the terminal's size first.
        app.handle_event(&Event::Resize(width, height));
        let terminal = draw(&app, width, height);
        let text = screen_text(&terminal);
        // The sentence, its tokens with their ids, the matrix rows they read, and the help
        // bar's way out are all on the first screen.
        assert!(text.contains("fox bites the fox"), "{text}");
        assert!(text.contains("fox #2"), "{text}");
        assert!(text.contains("1.2753 -0.2010 -0.1606"), "{text}");
        assert!(text.contains("F1 help") && text.contains("quit"), "{text}");
        assert_snapshot!(
            format!("the_default_screen_{width}x{height}"),
            terminal.backend()
        );
    }
}

#[test]
fn a_status_too_long_for_the_bar_is_cut_with_a_mark_before_the_keys() {
    let mut app = at_second_fox();
    // The built-in tables have no head overview: the status says why, at length.
    press(&mut app, &[KeyCode::Char('H')]);
    let status = app.status().expect("a status").to_owned();
    let terminal = draw(&app, 80, 24);
    let text = screen_text(&terminal);
    let bar = text.lines().last().expect("a help bar");
    assert!(bar.contains(&status[..20]), "{bar}");
    assert!(
        bar.contains("… a attention"),
        "cut with a mark, a space before the keys: {bar}"
    );
    assert!(
        bar.contains("L lesson") && bar.contains("? help") && bar.contains("q quit"),
        "{bar}"
    );
}

/// Compare mode on "the dog bites the man" and its reversal, showing attention's outputs.
fn comparing_outputs() -> App {
    let mut app = app_with("the dog bites the man");
    press(
        &mut app,
        &[KeyCode::Enter, KeyCode::Char('c'), KeyCode::Char('a')],
    );
    app
}

/// The rows of a screen that are compare mode's outputs table: a token's marker first.
fn table_rows(text: &str) -> Vec<&str> {
    text.lines()
        .map(|line| line.trim_matches(['"', '│']))
        .filter(|line| line.starts_with("= ") || line.starts_with("≠ "))
        .filter(|line| !line.contains("SET OF") && !line.contains("VECTORS"))
        .collect()
}

#[test]
fn compare_mode_puts_each_words_attention_output_in_a_and_b_side_by_side() {
    let mut app = comparing_outputs();
    let terminal = draw(&app, 80, 24);
    let text = screen_text(&terminal);
    assert!(text.contains("outputs, seeded head"), "{text}");
    // Each word's output in A and in B on one line: the same numbers, Δ 0, bit for bit.
    let rows = table_rows(&text);
    assert_eq!(rows.len(), 5, "{text}");
    assert!(
        rows.contains(
            &"= dog   1 -0.1604 -0.3055  0.2211  3 -0.1604 -0.3055  0.2211  0 bit for bit   "
        ),
        "{text}"
    );
    assert!(text.contains("identical for all 5 shared words"), "{text}");
    assert_snapshot!("compare_outputs_80x24", terminal.backend());
    // With positions every word's outputs differ, by the Δ each row gives.
    press(&mut app, &[KeyCode::Char('p')]);
    let text = screen_text(&draw(&app, 80, 24));
    let rows = table_rows(&text);
    assert!(rows.iter().all(|row| row.starts_with('≠')), "{text}");
    assert!(
        rows.contains(
            &"≠ man   4 -0.1307 -0.3885  0.3360  0 -0.2719 -0.2977  0.0338  0.30            "
        ),
        "{text}"
    );
    assert!(text.contains("'man' by up to"), "{text}");
    // `a` again: the vectors; Esc also goes back to them, and compare mode stays.
    press(&mut app, &[KeyCode::Char('a')]);
    assert!(screen_text(&draw(&app, 80, 24)).contains("a outputs"));
    press(&mut app, &[KeyCode::Char('a'), KeyCode::Esc]);
    assert!(app.compare().is_some());
    assert!(screen_text(&draw(&app, 80, 24)).contains("a outputs"));
}

#[test]
fn wide_outputs_become_strips_or_a_window_of_values_that_says_which() {
    let mut app = comparing_outputs();
    press(&mut app, &[KeyCode::Char('v')]);
    assert_eq!(app.vocab(), Some(VocabKind::Words));
    let text = screen_text(&draw(&app, 80, 24));
    assert!(text.contains("output in A (strip)"), "{text}");
    assert_eq!(table_rows(&text).len(), 5, "{text}");
    press(&mut app, &[KeyCode::Char('x')]);
    let text = screen_text(&draw(&app, 80, 24));
    assert!(text.contains("output in A d0–d2 of 8"), "{text}");
    assert_eq!(text.matches("0 bit for bit").count(), 5, "{text}");
}

#[test]
fn the_help_bar_offers_the_lesson_and_attention_at_80_by_24() {
    let mut app = at_second_fox();
    for keys in [&[][..], &[KeyCode::Char('c')], &[KeyCode::Char('a')]] {
        press(&mut app, keys);
        let text = screen_text(&draw(&app, 80, 24));
        let bar = text.lines().last().expect("a help bar");
        for entry in ["a attention", "L lesson", "? help", "q quit"] {
            assert!(bar.contains(entry), "{entry} missing: {bar}");
        }
    }
}

#[test]
fn the_explanation_pages_with_the_key_its_marker_names() {
    let mut app = at_second_fox();
    let text = screen_text(&draw(&app, 80, 24));
    assert!(text.contains("▼ more below: Space shows it"), "{text}");
    assert!(!text.contains("Why it matters"), "{text}");
    let mut seen = String::new();
    for _ in 0..10 {
        press(&mut app, &[KeyCode::Char(' ')]);
        let text = screen_text(&draw(&app, 80, 24));
        seen.push_str(&text);
        if text.contains("▲ that is all: Space goes back to the top") {
            break;
        }
    }
    assert!(seen.contains("Why it matters"), "{seen}");
    assert!(seen.contains("▲ that is all"), "{seen}");
    // Any other key starts the explanation again from its first page.
    press(&mut app, &[KeyCode::Char('p')]);
    assert_eq!(app.explanation_page(), 0);
}

#[test]
fn both_copies_stay_in_view_at_80_by_24_for_a_wide_vocabulary_as_strips() {
    for vocab in ["words", "trained"] {
        let mut app = app_with("the dog bites the man");
        press(&mut app, &[KeyCode::Enter]);
        while app.vocab().map(VocabKind::name) != Some(vocab) {
            press(&mut app, &[KeyCode::Char('v')]);
        }
        press(
            &mut app,
            &[
                KeyCode::Right,
                KeyCode::Right,
                KeyCode::Right,
                KeyCode::Char('p'),
            ],
        );
        let text = screen_text(&draw(&app, 80, 24));
        // The lookups pane: both copies of 'the', token + position = input, on a line each.
        let copies: Vec<&str> = text
            .lines()
            .filter(|line| line.contains("   0 the ") || line.contains("   3 the "))
            .filter(|line| line.contains(" + ") && line.contains(" = "))
            .collect();
        assert_eq!(copies.len(), 2, "{vocab}:\n{text}");
        assert!(text.contains("tokens 0, 3 of 5: the copies kept"), "{text}");
    }
}

#[test]
fn the_position_table_under_rope_is_titled_by_the_numbers_it_shows() {
    let mut app = at_second_fox();
    press(
        &mut app,
        &[
            KeyCode::Char('v'),
            KeyCode::Char('p'),
            KeyCode::Char('m'),
            KeyCode::Char('m'),
            KeyCode::Char('t'),
        ],
    );
    assert_eq!(app.active_scheme(), PositionScheme::Rope);
    let text = screen_text(&draw(&app, 80, 24));
    assert!(
        text.contains("Position table · sinusoidal · RoPE adds none"),
        "{text}"
    );
    assert!(!text.contains("rope: none"), "{text}");
}

#[test]
fn a_long_comparison_counts_the_tokens_it_has_no_room_for() {
    let mut app = app_with("the dog bites the man the dog bites the man the dog bites the man");
    press(&mut app, &[KeyCode::Enter, KeyCode::Char('c')]);
    let text = screen_text(&draw(&app, 80, 24));
    assert!(
        text.contains("more: a taller terminal shows them"),
        "{text}"
    );
    assert!(
        text.contains("A: the dog bites the man the dog bite… B:"),
        "{text}"
    );
    press(&mut app, &[KeyCode::Char('a')]);
    let text = screen_text(&draw(&app, 80, 24));
    assert!(
        text.contains("more words: a taller terminal shows them"),
        "{text}"
    );
}

#[test]
fn the_copies_kept_footer_is_whole_or_ends_in_an_ellipsis() {
    let mut app = app_with("the fox the dog the man the cat the bee the ant the owl the");
    press(&mut app, &[KeyCode::Enter, KeyCode::End]);
    let text = screen_text(&draw(&app, 80, 24));
    let footer = text
        .lines()
        .find(|line| line.contains("tokens ") && line.contains(" of 15"))
        .unwrap_or_else(|| panic!("a footer naming the tokens kept: {text}"));
    assert!(
        footer.contains("the copies kept") || footer.contains('…'),
        "{footer}"
    );
    assert!(
        footer.contains("tokens 0, "),
        "the list starts at its start: {footer}"
    );
}

/// Titles along the top borders of a screen that were cut without a `…`: the last cell before a
/// corner is a letter, not the border, a space or `…`.
fn silently_cut_titles(text: &str) -> Vec<String> {
    let mut cut = Vec::new();
    for line in text.lines() {
        let line = line.trim_matches('"');
        let cells: Vec<char> = line.chars().collect();
        for (index, &cell) in cells.iter().enumerate() {
            if !matches!(cell, '╮' | '┓') || index == 0 {
                continue;
            }
            let before = cells[index - 1];
            // The title's corner: the nearest top-left corner before it.
            let opens = cells[..index].iter().rposition(|&c| matches!(c, '╭' | '┏'));
            if opens.is_some() && !matches!(before, '─' | '━' | ' ' | '…') {
                let start = opens.unwrap_or(0);
                cut.push(cells[start..=index].iter().collect());
            }
        }
    }
    cut
}

#[test]
fn every_title_that_is_cut_ends_in_an_ellipsis() {
    let screens: [(&str, &[KeyCode]); 9] = [
        ("seed", &[]),
        ("seed", &[KeyCode::Char('p')]),
        ("seed", &[KeyCode::Char('a')]),
        ("seed", &[KeyCode::Char('s')]),
        ("seed", &[KeyCode::Char('o')]),
        ("seed", &[KeyCode::Char('t')]),
        ("seed", &[KeyCode::Char('g')]),
        ("seed", &[KeyCode::Char('c'), KeyCode::Char('p')]),
        (
            "words",
            &[KeyCode::Char('c'), KeyCode::Char('a'), KeyCode::Char('u')],
        ),
    ];
    let mut found = Vec::new();
    for (vocab, keys) in screens {
        for (width, height) in [(80, 24), (60, 20), (120, 40), (200, 60)] {
            let mut app = app_with("the dog bites the man");
            press(&mut app, &[KeyCode::Enter]);
            while app.vocab().map(VocabKind::name) != Some(vocab) {
                press(&mut app, &[KeyCode::Char('v')]);
            }
            press(&mut app, keys);
            for scheme in 0..4 {
                let text = screen_text(&draw(&app, width, height));
                for title in silently_cut_titles(&text) {
                    found.push(format!(
                        "{vocab} {keys:?} {width}x{height} scheme {scheme}: {title}"
                    ));
                }
                press(&mut app, &[KeyCode::Char('m')]);
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_attention_pane_at_80_by_24_shows_the_current_tokens_output() {
    for vocab in ["seed", "words"] {
        let mut app = app_with("the dog bites the man");
        press(&mut app, &[KeyCode::Enter]);
        while app.vocab().map(VocabKind::name) != Some(vocab) {
            press(&mut app, &[KeyCode::Char('v')]);
        }
        press(&mut app, &[KeyCode::Right, KeyCode::Char('a')]);
        let text = screen_text(&draw(&app, 80, 24));
        assert!(
            text.contains("output = Σ weight × value"),
            "{vocab}:\n{text}"
        );
        // The current token's row of weights, and its output, each marked as current.
        let current: Vec<&str> = text
            .lines()
            .filter(|line| line.contains("▶   1 dog"))
            .collect();
        assert!(current.len() >= 2, "{vocab}:\n{text}");
        assert!(
            current.iter().any(|line| line.matches('.').count() >= 3),
            "its output's numbers: {vocab}:\n{text}"
        );
    }
}

#[test]
fn with_positions_the_attention_finding_at_80_by_24_has_both_copies_rows_beside_it() {
    // "the same word at another place attends differently" points at the two foxes' rows:
    // from either copy, at 80×24, both rows of weights are drawn beside it.
    for (step, other) in [(0, "    3 fox "), (3, "    0 fox ")] {
        let mut app = app_with("fox bites the fox");
        press(&mut app, &[KeyCode::Enter]);
        for _ in 0..step {
            press(&mut app, &[KeyCode::Right]);
        }
        press(&mut app, &[KeyCode::Char('p'), KeyCode::Char('a')]);
        let text = screen_text(&draw(&app, 80, 24));
        assert!(text.contains("the same word at another place"), "{text}");
        let current = format!("▶   {step} fox ");
        let rows = |prefix: &str| text.lines().filter(|line| line.contains(prefix)).count();
        assert_eq!(rows(other), 1, "the other copy's weights:\n{text}");
        assert_eq!(rows(&current), 2, "weights and output:\n{text}");
    }
}
