//! The attention and position-table panes of the explorer, driven through the real update path
//! and drawn on a `TestBackend`.

mod common;

use common::draw;
use common::screen::{
    app_with, at_second_fox, pane, press, screen_line, screen_row, screen_text, sweep_sizes,
    wide_app,
};
use embedlens::app::{App, Options};
use embedlens::core::tables::positional::PositionScheme;
use embedlens::core::text::vocabulary::VocabKind;
use embedlens::theme::Theme;
use insta::assert_snapshot;
use ratatui::crossterm::event::KeyCode;
use ratatui::style::Modifier;
use unicode_width::UnicodeWidthStr;

/// The explorer on the default sentence with the attention pane open, after `keys`.
fn attention_after(keys: &[KeyCode]) -> App {
    let mut app = app_with("fox bites the fox");
    press(&mut app, &[KeyCode::Enter, KeyCode::Char('a')]);
    press(&mut app, keys);
    app
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
    assert_snapshot!(
        "attention_with_the_causal_mask_pane",
        pane(&terminal, "Attention")
    );
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
    assert_snapshot!("attention_with_rope_pane", pane(&terminal, "Attention"));
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
    assert_snapshot!("attention_with_alibi_pane", pane(&terminal, "Attention"));
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

#[test]
fn a_narrow_attention_pane_still_says_its_head_is_random() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('a'), KeyCode::Char('p')]);
    let text = screen_text(&draw(&app, 80, 24));
    assert!(text.contains("╭ Random head · learned positions"), "{text}");
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
    assert_snapshot!(
        "position_table_sinusoidal_pane",
        pane(&terminal, "Position table")
    );
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
