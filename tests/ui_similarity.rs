//! The similarity and one-hot panes of the explorer, driven through the real update path and
//! drawn on a `TestBackend`.

mod common;

use common::draw;
use common::screen::{app_with, at_second_fox, pane, press, screen_line, screen_text, wide_app};
use embedlens::app::{App, Options};
use embedlens::core::text::vocabulary::VocabKind;
use embedlens::theme::Theme;
use insta::assert_snapshot;
use ratatui::crossterm::event::KeyCode;

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
    let second_fox = screen_line(&text, "▶ 3 fox");
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
        screen_line(&text, "▶ 2  fox ").contains("1.0000"),
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
    assert_snapshot!(
        "similarity_of_the_copies_with_learned_positions_pane",
        pane(&terminal, "Cosine similarity")
    );
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
    screen_line(&text, "token vector: 919 king 1.0000 · 1350 queen");
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
    assert_snapshot!(
        "similarity_in_the_trained_vocabulary_pane",
        pane(&terminal, "Cosine similarity")
    );
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
    assert_snapshot!(
        "one_hot_of_a_big_vocabulary_is_abbreviated_pane",
        pane(&terminal, "One-hot")
    );
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
