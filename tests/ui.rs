//! Screens of the explorer, driven through the real update path and drawn on a `TestBackend`:
//! the explorer itself, positions, vocabularies, help and sizes. Each pane's own screens are in
//! `ui_similarity.rs`, `ui_attention.rs`, `ui_picture.rs`, `ui_compare.rs` and `ui_lesson.rs`.

mod common;

use common::draw;
use common::screen::{
    SIZES, app_with, at_second_fox, pane, press, press_ctrl, screen_row, screen_text, type_text,
    wide_app,
};
use embedlens::app::{App, Options};
use embedlens::core::tables::positional::PositionScheme;
use embedlens::core::text::vocabulary::VocabKind;
use embedlens::theme::Theme;
use insta::assert_snapshot;
use ratatui::crossterm::event::{Event, KeyCode};
use ratatui::style::Modifier;

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
    assert_snapshot!(
        "stepped_to_the_second_fox_lookups",
        pane(&terminal, "Lookups")
    );
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
    let terminal = draw(&app, 120, 40);
    assert!(
        screen_text(&terminal).contains("Lookups · token + sinusoidal position = input vector"),
        "{}",
        screen_text(&terminal)
    );
    assert_snapshot!("sinusoidal_positions_lookups", pane(&terminal, "Lookups"));
}

#[test]
fn words_vocabulary_with_positions() {
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('v'), KeyCode::Char('p')]);
    assert_eq!(app.vocab(), Some(VocabKind::Words));
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(text.contains("Weight matrix · words · 2037×8"), "{text}");
    assert_snapshot!(
        "words_vocabulary_with_positions_lookups",
        pane(&terminal, "Lookups")
    );
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
    assert_snapshot!(
        "words_vocabulary_on_an_80_by_24_terminal_lookups",
        pane(&terminal, "Lookups")
    );
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
    assert_snapshot!("a_word_without_a_row_lookups", pane(&terminal, "Lookups"));
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
    assert_snapshot!("wide_vectors_as_strips_lookups", pane(&terminal, "Lookups"));
}

#[test]
fn wide_vectors_as_exact_values_scrolled_sideways() {
    let mut app = wide_app("1500 7 1500");
    press(&mut app, &[KeyCode::Char(']'), KeyCode::Char(']')]);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(text.contains("d16–d"), "{text}");
    assert_snapshot!(
        "wide_vectors_as_exact_values_scrolled_sideways_lookups",
        pane(&terminal, "Lookups")
    );
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
    assert_snapshot!(
        "gpt2_byte_pair_pieces_in_a_large_vocabulary_tokens",
        pane(&terminal, "Tokens")
    );
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
    assert_snapshot!(
        "a_rotary_model_has_no_position_table_and_says_why_lookups",
        pane(&terminal, "Lookups")
    );
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
    // Cut, it keeps all the room but help's and quit's: the lesson and attention give way
    // until the next key, as they do for a status read whole.
    assert!(bar.contains(&status[..50]), "{bar}");
    assert!(
        bar.contains("… ? help"),
        "cut with a mark, a space before the keys: {bar}"
    );
    assert!(
        bar.contains("q quit") && !bar.contains("L lesson") && !bar.contains("a attention"),
        "{bar}"
    );
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
fn a_short_explanation_ends_at_a_sentence_and_pages_with_its_key() {
    // A pane open and positions on at 80×24: the finding and its explanation take the whole
    // readout, with no row for a marker. It ends at a sentence, says the key, and the key
    // pages on to what was left out, back to the top after the last page.
    let mut app = at_second_fox();
    press(&mut app, &[KeyCode::Char('s'), KeyCode::Char('p')]);
    let readout = pane(&draw(&app, 80, 24), "What the layer returned");
    // The last row inside the borders.
    let rows: Vec<&str> = readout.lines().collect();
    assert!(
        rows[rows.len() - 2].contains("│differ. ▼ more: Space shows it"),
        "{readout}"
    );
    assert!(!readout.contains('…'), "{readout}");
    let mut seen = String::new();
    for _ in 0..10 {
        press(&mut app, &[KeyCode::Char(' ')]);
        let readout = pane(&draw(&app, 80, 24), "What the layer returned");
        seen.push_str(&readout);
        if readout.contains("▲ that is all: Space goes back to the top") {
            break;
        }
    }
    assert!(
        seen.contains("Lookup: id 2 is the address of row 2"),
        "{seen}"
    );
    assert!(seen.contains("Why it matters"), "{seen}");
    assert!(seen.contains("▲ that is all"), "{seen}");
    press(&mut app, &[KeyCode::Char(' ')]);
    let readout = pane(&draw(&app, 80, 24), "What the layer returned");
    assert!(readout.contains("▼ more: Space shows it"), "{readout}");
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
