//! Compare mode: two word orders side by side, their vectors and attention's outputs, driven
//! through the real update path and drawn on a `TestBackend`.

mod common;

use common::draw;
use common::screen::{
    SIZES, app_with, at_second_fox, pane, press, press_ctrl, screen_text, type_text,
};
use embedlens::app::App;
use embedlens::core::text::vocabulary::VocabKind;
use insta::assert_snapshot;
use ratatui::crossterm::event::{Event, KeyCode};

#[test]
fn compare_mode_without_positions() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('c')]);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(text.contains("SAME SET OF TOKEN VECTORS"), "{text}");
    // Both means, since the sentence calls them identical.
    assert!(
        text.contains("A and B are identical (A 0.4323 -0.0636 -0.2804; B 0.4323 -0.0636"),
        "{text}"
    );
    // Attention's verdict waits for the outputs it speaks of: `a` shows them, below.
    assert!(!text.contains("identical for all 4 shared words"), "{text}");
    assert!(
        text.contains("a shows each word's output in A and in B"),
        "{text}"
    );
    assert!(!text.contains("leaves a trace"), "{text}");
    assert_snapshot!(terminal.backend());
    press(&mut app, &[KeyCode::Char('a')]);
    let text = screen_text(&draw(&app, 120, 40));
    assert!(text.contains("SAME SET OF TOKEN VECTORS"), "{text}");
    assert!(
        text.contains("identical for all 4 shared words in A and B"),
        "{text}"
    );
    assert_eq!(vector_rows(&text).len(), 4, "{text}");
    assert_eq!(table_rows(&text).len(), 4, "{text}");
}

#[test]
fn compare_mode_with_learned_positions() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('c'), KeyCode::Char('p')]);
    let text = screen_text(&draw(&app, 120, 40));
    assert!(text.contains("DIFFERENT INPUT VECTORS"), "{text}");
    // The columns hold the input vectors now: the token vectors' claim has no numbers here.
    assert!(!text.contains("Token vectors: the same set"), "{text}");
    press(&mut app, &[KeyCode::Char('a')]);
    let text = screen_text(&draw(&app, 120, 40));
    assert!(
        text.contains("all 4 shared words get a different output"),
        "{text}"
    );
    press(&mut app, &[KeyCode::Char('a')]);
    let text = screen_text(&draw(&app, 120, 40));
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
fn one_word_is_set_aside_for_the_pair_and_comes_back() {
    let mut app = app_with("fox");
    press(&mut app, &[KeyCode::Enter, KeyCode::Char('c')]);
    let text = screen_text(&draw(&app, 120, 40));
    assert!(text.contains("B man bites dog"), "{text}");
    press(&mut app, &[KeyCode::Char('c')]);
    assert_eq!(app.text(), "fox");
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
            } else {
                assert!(text.contains("SAME SET OF TOKEN VECTORS"), "{text}");
            }
            // No verdict on outputs that are not on screen.
            assert!(!text.contains("get a different output"), "{text}");
            assert!(!text.contains("Attention outputs: identical"), "{text}");
            if width == 200 {
                assert!(text.contains("╭ Picture · token"), "{text}");
            }
            // One whole screen a size for compare mode; with positions, the compare pane.
            if positions {
                assert_snapshot!(
                    format!("compare_mode_with_positions_{width}x{height}_pane"),
                    pane(&terminal, "Compare ·")
                );
            } else {
                assert_snapshot!(
                    format!("compare_mode_without_positions_{width}x{height}"),
                    terminal.backend()
                );
            }
        }
        press(&mut app, &[KeyCode::Char('p')]);
    }
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

/// The rows of a screen that are compare mode's tables: a mark first, then a word (the
/// outputs table) or its position (the vectors' columns).
fn marked_rows(text: &str, position_first: bool) -> Vec<&str> {
    text.lines()
        .map(|line| line.trim_matches(['"', '│']))
        .filter(|line| line.starts_with("= ") || line.starts_with("≠ "))
        .filter(|line| !line.contains("SET OF") && !line.contains("VECTORS"))
        .filter(|line| {
            let after = line.chars().skip(1).collect::<String>();
            after.trim_start().starts_with(|c: char| c.is_ascii_digit()) == position_first
        })
        .collect()
}

/// The rows of compare mode's outputs table.
fn table_rows(text: &str) -> Vec<&str> {
    marked_rows(text, false)
}

/// The rows of compare mode's vectors: both sentences' words, side by side.
fn vector_rows(text: &str) -> Vec<&str> {
    marked_rows(text, true)
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
    // The vectors stay above them: the sets the verdicts speak of are on screen too.
    assert_eq!(vector_rows(&text).len(), 5, "{text}");
    assert!(text.contains("SAME SET OF TOKEN VECTORS"), "{text}");
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
