//! The explorer's behaviour through `handle_event`, and the derive step's recomputations.

use super::*;
use crate::action::Scope;
use crate::core::explain::readout::describe_copies;
use crate::view_state::WideView;
use std::time::{Duration, Instant};

use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

fn key(code: KeyCode) -> Event {
    Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        app.handle_event(&key(KeyCode::Char(c)));
    }
}

#[test]
fn starts_in_the_input_on_the_default_sentence() {
    let app = App::new(Options::default());
    assert_eq!(app.focus(), Focus::Input);
    assert_eq!(app.text(), DEFAULT_SENTENCE);
    assert_eq!(app.tokens().len(), 4);
    assert!(!app.overlay());
    assert_eq!(app.scheme(), PositionScheme::Learned);
    assert_eq!(app.matrix_cursor(), 2);
}

/// The events of `burst` one by one as the terminal would queue them; `None` after the last.
fn queue_of(burst: Vec<Event>) -> impl FnMut() -> std::io::Result<Option<Event>> {
    let mut burst = burst.into_iter();
    move || Ok(burst.next())
}

/// A deadline no test reaches.
fn no_deadline() -> Instant {
    Instant::now() + Duration::from_secs(3600)
}

#[test]
fn a_burst_of_queued_keys_is_read_to_the_end_before_the_next_frame() {
    let mut app = App::new(Options::default());
    let mut burst = vec![key(KeyCode::Char('x')); 999];
    burst.push(key(KeyCode::Char('y')));
    let mut left = burst.len();
    let mut queue = queue_of(burst);
    let counted = || {
        let event = queue()?;
        left -= usize::from(event.is_some());
        Ok(event)
    };
    app.handle_queued(&key(KeyCode::Char(' ')), counted, no_deadline())
        .expect("the queue reads");
    assert_eq!(left, 0, "every queued key was read");
    let expected = format!("{DEFAULT_SENTENCE} {}y", "x".repeat(999));
    assert_eq!(app.text(), expected);
}

#[test]
fn ctrl_c_in_a_burst_quits_and_leaves_the_rest_unread() {
    let mut app = App::new(Options::default());
    let ctrl_c = Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    let mut burst = vec![key(KeyCode::Right); 500];
    burst.push(ctrl_c);
    burst.extend(vec![key(KeyCode::Char('x')); 500]);
    app.handle_queued(&key(KeyCode::Left), queue_of(burst), no_deadline())
        .expect("the queue reads");
    assert!(!app.is_running());
    assert_eq!(
        app.text(),
        DEFAULT_SENTENCE,
        "nothing after Ctrl+C was typed"
    );
}

#[test]
fn a_flood_of_keys_stops_at_the_deadline_for_a_frame() {
    let mut app = App::new(Options::default());
    let endless = || Ok(Some(key(KeyCode::Char('x'))));
    app.handle_queued(&key(KeyCode::Char('x')), endless, Instant::now())
        .expect("the queue reads");
    assert_eq!(app.text(), format!("{DEFAULT_SENTENCE}x"));
}

#[test]
fn typing_retokenises_and_q_types_in_the_input() {
    let mut app = App::new(Options::default());
    type_text(&mut app, " quick");
    assert!(app.is_running());
    assert_eq!(app.text(), "fox bites the fox quick");
    assert_eq!(app.tokens().len(), 5);
    type_text(&mut app, "q");
    assert!(app.is_running(), "q types while the input has focus");
}

#[test]
fn stepping_follows_the_tokens_and_their_rows() {
    let mut app = App::new(Options::default());
    app.handle_event(&key(KeyCode::Enter));
    assert_eq!(app.focus(), Focus::Explorer);
    assert_eq!(app.text(), DEFAULT_SENTENCE, "Enter adds no newline");
    app.handle_event(&key(KeyCode::Right));
    assert_eq!((app.step(), app.matrix_cursor()), (1, 4));
    app.handle_event(&key(KeyCode::End));
    assert_eq!(app.step(), 3);
    app.handle_event(&key(KeyCode::Right));
    assert_eq!(app.step(), 3, "stepping stops at the last token");
    app.handle_event(&key(KeyCode::Home));
    app.handle_event(&key(KeyCode::Left));
    assert_eq!(app.step(), 0);
}

#[test]
fn key_releases_are_ignored() {
    let mut app = App::new(Options::default());
    let mut release = KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE);
    release.kind = KeyEventKind::Release;
    app.handle_event(&Event::Key(release));
    assert_eq!(app.text(), DEFAULT_SENTENCE);
}

#[test]
fn positions_toggle_and_cycle() {
    let mut app = App::new(Options::default());
    app.handle_event(&key(KeyCode::Tab));
    app.handle_event(&key(KeyCode::Char('p')));
    assert_eq!(app.active_scheme(), PositionScheme::Learned);
    assert_ne!(app.lookups()[0].input_vector, app.lookups()[3].input_vector);
    app.handle_event(&key(KeyCode::Char('m')));
    assert_eq!(app.active_scheme(), PositionScheme::Sinusoidal);
    app.handle_event(&key(KeyCode::Char('p')));
    assert_eq!(app.active_scheme(), PositionScheme::None);
    assert_eq!(app.lookups()[0].input_vector, app.lookups()[3].input_vector);
}

#[test]
fn vocabulary_switch_keeps_the_sentence() {
    let mut app = App::new(Options::default());
    app.handle_event(&key(KeyCode::Tab));
    app.handle_event(&key(KeyCode::Char('v')));
    assert_eq!(app.vocab(), Some(VocabKind::Words));
    assert_eq!(app.model().dims(), 8);
    assert_eq!(app.text(), DEFAULT_SENTENCE);
    app.handle_event(&key(KeyCode::Char('v')));
    assert_eq!(app.vocab(), Some(VocabKind::Trained));
    assert!(app.model().is_trained());
    assert_eq!(app.text(), DEFAULT_SENTENCE);
    app.handle_event(&key(KeyCode::Char('v')));
    assert_eq!(app.vocab(), Some(VocabKind::Gpt2));
    app.handle_event(&key(KeyCode::Char('v')));
    assert_eq!(app.vocab(), Some(VocabKind::Seed));
}

#[test]
fn gpt2_tables_arrive_on_a_tick() {
    let mut app = App::new(Options {
        vocab: VocabKind::Gpt2,
        gpt2_dims: 4,
        ..Options::default()
    });
    let ids: Vec<_> = app.tokens().iter().map(|t| t.id).collect();
    assert_eq!(ids, [Some(12792), Some(26081), Some(262), Some(21831)]);
    while app.waiting_for_tables() {
        std::thread::sleep(Duration::from_millis(20));
        app.update(Action::Tick);
    }
    assert_eq!(
        app.lookups()[1]
            .token_vector
            .as_ref()
            .map(ndarray::Array1::len),
        Some(4)
    );
    // `fox` and ` fox` are different pieces under byte-pair encoding: no shared row.
    assert!(describe_copies(app.lookups(), 0, PositionScheme::None).is_none());
}

#[test]
fn matrix_scrolls_within_its_rows() {
    let mut app = App::new(Options::default());
    app.handle_event(&key(KeyCode::Tab));
    app.handle_event(&key(KeyCode::PageDown));
    assert_eq!(app.matrix_cursor(), 5);
    app.handle_event(&key(KeyCode::PageUp));
    app.handle_event(&key(KeyCode::Up));
    assert_eq!(app.matrix_cursor(), 0);
}

#[test]
fn paste_joins_lines_into_the_input() {
    let mut app = App::new(Options {
        sentence: String::new(),
        ..Options::default()
    });
    app.handle_event(&key(KeyCode::Tab));
    app.handle_event(&Event::Paste("dog bites\nman".to_owned()));
    assert_eq!(app.focus(), Focus::Input);
    assert_eq!(app.text(), "dog bites man");
}

#[test]
fn an_empty_sentence_is_safe_to_step() {
    let mut app = App::new(Options {
        sentence: String::new(),
        ..Options::default()
    });
    app.handle_event(&key(KeyCode::Enter));
    for code in [
        KeyCode::Right,
        KeyCode::Left,
        KeyCode::End,
        KeyCode::Char('p'),
    ] {
        app.handle_event(&key(code));
    }
    assert!(app.current_token().is_none());
}

#[test]
fn help_opens_closes_and_q_quits() {
    let mut app = App::new(Options::default());
    app.handle_event(&key(KeyCode::Enter));
    app.handle_event(&key(KeyCode::Char('?')));
    assert!(app.help_open());
    app.handle_event(&key(KeyCode::Esc));
    assert!(!app.help_open() && app.is_running());
    app.handle_event(&key(KeyCode::Char('q')));
    assert!(!app.is_running());
}

#[test]
fn ctrl_u_clears_and_ctrl_z_brings_it_back() {
    let mut app = App::new(Options::default());
    let ctrl = |c| Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL));
    app.handle_event(&ctrl('u'));
    assert_eq!(app.text(), "");
    assert!(app.tokens().is_empty());
    app.handle_event(&ctrl('z'));
    assert_eq!(app.text(), DEFAULT_SENTENCE);
    assert_eq!(app.tokens().len(), 4);
}

fn explorer_on(sentence: &str, model: Option<EmbeddingModel>) -> App {
    let mut app = App::new(Options {
        sentence: sentence.to_owned(),
        model,
        ..Options::default()
    });
    app.handle_event(&key(KeyCode::Enter));
    app
}

fn type_prompt(app: &mut App, opener: char, text: &str) {
    app.handle_event(&key(KeyCode::Char(opener)));
    type_text(app, text);
    app.handle_event(&key(KeyCode::Enter));
}

#[test]
fn search_finds_rows_and_n_goes_through_them() {
    let mut app = explorer_on("fox", None);
    app.handle_event(&key(KeyCode::Char('v')));
    type_prompt(&mut app, '/', "fox");
    let fox = app.model().tokenizer().unwrap().id_of("fox").unwrap();
    assert_eq!(app.matrix_cursor(), fox);
    assert!(app.status().unwrap().contains(&format!("is row {fox}")));
    app.handle_event(&key(KeyCode::Char('n')));
    assert_eq!(
        app.model().token_text(app.matrix_cursor()).as_deref(),
        Some("foxes")
    );
    type_prompt(&mut app, '/', "qqqq");
    assert_eq!(app.status(), Some("no token matches 'qqqq'"));
    assert_eq!(app.scope(), Scope::Explorer, "the prompt closes");
}

#[test]
fn go_to_an_id_or_say_why_not() {
    let mut app = explorer_on("fox", None);
    type_prompt(&mut app, '#', "5");
    assert_eq!(app.matrix_cursor(), 5);
    assert_eq!(app.status(), Some("row 5 'man'"));
    type_prompt(&mut app, '#', "x9");
    assert_eq!(
        app.status(),
        Some("no row 9: ids run from 0 to 5"),
        "letters are not typed into an id"
    );
    assert_eq!(app.matrix_cursor(), 5);
    type_prompt(&mut app, '#', "60");
    assert_eq!(app.status(), Some("no row 60: ids run from 0 to 5"));
    app.handle_event(&key(KeyCode::Char('#')));
    app.handle_event(&key(KeyCode::Esc));
    assert!(app.is_running(), "Esc closes the prompt, it does not quit");
    assert_eq!(app.scope(), Scope::Explorer);
}

#[test]
fn a_table_without_vocabulary_takes_ids() {
    let model = EmbeddingModel::shaped(300, 64, 16, 7).unwrap();
    let app = explorer_on("3 1 4 999", Some(model));
    let ids: Vec<_> = app.tokens().iter().map(|t| t.id).collect();
    assert_eq!(ids, [Some(3), Some(1), Some(4), None]);
    assert_eq!(app.vocab(), None);
}

#[test]
fn wide_vectors_switch_view_and_scroll() {
    let model = EmbeddingModel::shaped(300, 64, 16, 7).unwrap();
    let mut app = explorer_on("3 1", Some(model));
    assert_eq!(app.wide_style().view, WideView::Strip);
    app.handle_event(&key(KeyCode::Char(']')));
    let style = app.wide_style();
    assert_eq!((style.view, style.first_dim), (WideView::Values, 8));
    for _ in 0..20 {
        app.handle_event(&key(KeyCode::Char(']')));
    }
    assert_eq!(
        app.wide_style().first_dim,
        56,
        "the window stops at the last dimensions"
    );
    app.handle_event(&key(KeyCode::Char('[')));
    app.handle_event(&key(KeyCode::Char('x')));
    let style = app.wide_style();
    assert_eq!((style.view, style.first_dim), (WideView::Strip, 48));
    assert!(
        (style.scale - 1.0).abs() < 0.2,
        "a generated table's values are about 1"
    );
}

#[test]
fn ctrl_c_quits_from_the_input() {
    let mut app = App::new(Options::default());
    app.handle_event(&Event::Key(KeyEvent::new(
        KeyCode::Char('c'),
        KeyModifiers::CONTROL,
    )));
    assert!(!app.is_running());
}

fn counts(app: &App) -> Recomputations {
    app.recomputations()
}

#[test]
fn a_step_recomputes_nothing_but_what_follows_the_current_token() {
    let mut app = explorer_on(DEFAULT_SENTENCE, None);
    let before = counts(&app);
    app.handle_event(&key(KeyCode::Right));
    assert_eq!(
        counts(&app),
        before,
        "the lookups pane needs nothing new for a step"
    );
    app.handle_event(&key(KeyCode::Char('s')));
    let open = counts(&app);
    assert_eq!(
        (open.cosine, open.nearest, open.lookups),
        (before.cosine + 1, before.nearest + 1, before.lookups)
    );
    app.handle_event(&key(KeyCode::Right));
    let stepped = counts(&app);
    assert_eq!(
        stepped,
        Recomputations {
            nearest: open.nearest + 1,
            ..open
        },
        "a step in the similarity pane moves only the nearest rows"
    );
}

#[test]
fn a_typed_key_tokenizes_and_looks_up_once() {
    let mut app = App::new(Options::default());
    let before = counts(&app);
    type_text(&mut app, "s");
    let after = counts(&app);
    assert_eq!(after.tokens, before.tokens + 1);
    assert_eq!(after.lookups, before.lookups + 1);
    assert_eq!(after.scale, before.scale, "the table did not change");
    app.handle_event(&key(KeyCode::Left));
    assert_eq!(counts(&app), after, "moving the cursor changes no text");
}

#[test]
fn typing_after_a_long_paste_reads_and_looks_up_nothing_again() {
    let mut app = App::new(Options::default());
    app.handle_event(&Event::Paste("the fox bites the man ".repeat(20_000)));
    let unread = app
        .unread()
        .expect("the paste is longer than the explorer reads")
        .chars;
    let before = counts(&app);
    type_text(&mut app, "zz");
    assert_eq!(counts(&app), before, "only the unread tail changed");
    assert_eq!(app.unread().map(|unread| unread.chars), Some(unread + 2));
    assert_eq!(
        app.tokens().len(),
        crate::core::text::sentence::MAX_SENTENCE_TOKENS
    );
    // An edit at the start is read again.
    app.handle_event(&key(KeyCode::Home));
    type_text(&mut app, "a");
    assert_eq!(counts(&app).tokens, before.tokens + 1);
}

#[test]
fn positions_relook_up_without_retokenizing() {
    let mut app = explorer_on(DEFAULT_SENTENCE, None);
    let before = counts(&app);
    app.handle_event(&key(KeyCode::Char('p')));
    let after = counts(&app);
    assert_eq!(
        after,
        Recomputations {
            lookups: before.lookups + 1,
            ..before
        }
    );
}

#[test]
fn compare_mode_compares_once_per_key_and_shares_one_head() {
    let mut app = explorer_on(DEFAULT_SENTENCE, None);
    app.handle_event(&key(KeyCode::Char('c')));
    let on = counts(&app);
    assert_eq!((on.comparison, on.head), (1, 1));
    assert!(app.comparison().is_ok());
    app.handle_event(&key(KeyCode::Char('p')));
    let positions = counts(&app);
    assert_eq!(positions.comparison, 2);
    app.handle_event(&key(KeyCode::Char('a')));
    let attention = counts(&app);
    assert_eq!(
        (attention.comparison, attention.attention, attention.head),
        (2, 1, 1),
        "the attention pane reuses the head compare mode drew"
    );
    app.handle_event(&key(KeyCode::Char('u')));
    let masked = counts(&app);
    assert_eq!((masked.comparison, masked.attention), (3, 2));
    app.handle_event(&key(KeyCode::Char('I')));
    type_text(&mut app, "!");
    let edited = counts(&app);
    assert_eq!(
        (edited.comparison, edited.tokens, edited.attention),
        (4, masked.tokens, masked.attention),
        "editing the second sentence re-compares and touches nothing of the first"
    );
}

#[test]
fn a_lesson_step_derives_each_thing_once() {
    let mut app = App::new(Options {
        lesson: true,
        ..Options::default()
    });
    for _ in 0..3 {
        app.handle_event(&key(KeyCode::Char('1')));
        app.handle_event(&key(KeyCode::Enter));
    }
    let before = counts(&app);
    // Step 4 turns compare mode on, on the default pair.
    app.handle_event(&key(KeyCode::Char('1')));
    app.handle_event(&key(KeyCode::Enter));
    assert!(app.compare().is_some());
    let after = counts(&app);
    assert_eq!(after.comparison, before.comparison + 1);
    assert!(after.tokens <= before.tokens + 1);
    assert!(after.lookups <= before.lookups + 1);
}

#[test]
fn switching_the_vocabulary_shares_the_models_made() {
    let mut app = explorer_on(DEFAULT_SENTENCE, None);
    let first: *const EmbeddingModel = app.model();
    for _ in 0..VocabKind::ALL.len() {
        app.handle_event(&key(KeyCode::Char('v')));
    }
    assert!(
        std::ptr::eq(first, app.model()),
        "back to the first vocabulary, the same model, not a copy"
    );
}

#[test]
fn the_panes_data_goes_when_the_pane_closes() {
    let mut app = explorer_on(DEFAULT_SENTENCE, None);
    app.handle_event(&key(KeyCode::Char('o')));
    assert!(app.views().one_hot.get().is_some());
    app.handle_event(&key(KeyCode::Char('o')));
    assert!(app.views().one_hot.get().is_none());
    let before = counts(&app);
    app.handle_event(&key(KeyCode::Char('o')));
    assert_eq!(counts(&app).one_hot, before.one_hot + 1);
}

#[test]
fn esc_goes_back_one_level_and_never_quits() {
    let mut app = explorer_on(DEFAULT_SENTENCE, None);
    app.handle_event(&key(KeyCode::Char('c')));
    app.handle_event(&key(KeyCode::Char('a')));
    app.handle_event(&key(KeyCode::Esc));
    assert_eq!(app.detail(), Detail::Lookups, "the pane closes first");
    assert!(app.compare().is_some());
    app.handle_event(&key(KeyCode::Esc));
    assert!(app.compare().is_none(), "then compare mode ends");
    app.handle_event(&key(KeyCode::Esc));
    assert!(app.is_running(), "at the top Esc does not quit");
    assert_eq!(app.status(), Some("nothing to go back from: q quits"));
    app.handle_event(&key(KeyCode::Char('q')));
    assert!(!app.is_running(), "q quits from the top level");
}

#[test]
fn an_unbound_letter_in_the_explorer_says_so_and_edits_nothing() {
    let mut app = explorer_on(DEFAULT_SENTENCE, None);
    app.handle_event(&key(KeyCode::Char('z')));
    assert_eq!(app.text(), DEFAULT_SENTENCE);
    assert_eq!(
        app.status(),
        Some("z does nothing here: i to type a sentence, ? for the keys")
    );
}

#[test]
fn help_opens_with_f1_from_the_input_and_scrolls_within_its_lines() {
    let mut app = App::new(Options::default());
    app.handle_event(&Event::Resize(80, 24));
    app.handle_event(&key(KeyCode::F(1)));
    assert!(app.help_open());
    app.handle_event(&key(KeyCode::Down));
    assert_eq!(app.help_scroll(), 1);
    app.handle_event(&key(KeyCode::End));
    let last = crate::help::max_scroll(80, 24);
    assert_eq!(app.help_scroll(), last);
    app.handle_event(&key(KeyCode::Down));
    assert_eq!(app.help_scroll(), last, "the end stays the end");
    app.handle_event(&key(KeyCode::Up));
    assert_eq!(
        app.help_scroll(),
        last - 1,
        "one key up from the end moves up"
    );
    app.handle_event(&Event::Resize(200, 60));
    assert_eq!(app.help_scroll(), 0, "everything fits: nothing to scroll");
    app.handle_event(&key(KeyCode::F(1)));
    assert!(!app.help_open());
    assert_eq!(app.text(), DEFAULT_SENTENCE, "F1 typed nothing");
}

/// The explorer on "3 1 4" with every table counted as large, so whole-table work goes to a
/// worker.
fn explorer_with_every_table_large() -> App {
    App::new(Options {
        sentence: "3 1 4".to_owned(),
        model: Some(EmbeddingModel::shaped(3000, 16, 16, 7).unwrap()),
        background_scan_from: 0,
        ..Options::default()
    })
}

#[test]
fn a_large_scan_runs_off_the_key_path_and_a_step_supersedes_it() {
    let mut app = explorer_with_every_table_large();
    app.handle_event(&key(KeyCode::Enter));
    app.handle_event(&key(KeyCode::Char('s')));
    assert!(app.scanning(), "the scan runs on a worker");
    assert!(app.views().similarity.nearest.get().is_none());
    app.handle_event(&key(KeyCode::Right));
    assert_eq!(app.step(), 1, "the explorer steps while the scan runs");
    assert!(app.scanning(), "a new scan for the new token");
    while app.scanning() {
        std::thread::sleep(Duration::from_millis(5));
        app.update(Action::Tick);
    }
    let table = app.model().token_table();
    let lookup = &app.lookups()[1];
    let expected = crate::core::analysis::similarity::nearest_rows(
        table,
        lookup.token_vector.as_ref().unwrap().view(),
        NEAREST_ROWS,
    );
    assert_eq!(app.views().similarity.nearest.get().unwrap().0, expected);
}

#[test]
fn closing_the_similarity_pane_stops_its_scan_and_keeps_nothing() {
    let mut app = explorer_with_every_table_large();
    // The tables' magnitudes are sampled on a worker too: first they arrive.
    while app.scanning() {
        std::thread::sleep(Duration::from_millis(5));
        app.update(Action::Tick);
    }
    app.handle_event(&key(KeyCode::Enter));
    app.handle_event(&key(KeyCode::Char('s')));
    assert!(app.scanning(), "the scan runs on a worker");
    app.handle_event(&key(KeyCode::Esc));
    assert_eq!(app.detail(), Detail::Lookups);
    assert!(!app.scanning(), "a closed pane waits for no scan");
    assert!(app.views().similarity.nearest.get().is_none());
    assert!(app.views().similarity.cosine.get().is_none());
}

#[test]
fn esc_and_a_letter_read_together_as_alt_letter_are_both_applied() {
    let mut app = explorer_on(DEFAULT_SENTENCE, None);
    app.handle_event(&key(KeyCode::Char('s')));
    assert_eq!(app.detail(), Detail::Similarity);
    let vocab = app.model().label().to_owned();
    // Esc closes the pane, then v switches the vocabulary: as if pressed one after the other.
    app.handle_event(&Event::Key(KeyEvent::new(
        KeyCode::Char('v'),
        KeyModifiers::ALT,
    )));
    assert_eq!(app.detail(), Detail::Lookups);
    assert_ne!(app.model().label(), vocab);
    assert!(app.is_running());
    // While typing, Alt+letter stays the text area's (word motions), never an Esc.
    let mut typing = App::new(Options::default());
    typing.handle_event(&Event::Key(KeyEvent::new(
        KeyCode::Char('b'),
        KeyModifiers::ALT,
    )));
    assert_eq!(typing.focus(), Focus::Input);
}

#[test]
fn a_large_one_hot_product_runs_off_the_key_path_and_a_step_supersedes_it() {
    let mut app = explorer_with_every_table_large();
    app.handle_event(&key(KeyCode::Enter));
    app.handle_event(&key(KeyCode::Char('o')));
    assert_eq!(app.detail(), crate::view_state::Detail::OneHot);
    assert!(app.scanning(), "the product runs on a worker");
    assert!(app.views().one_hot.get().is_none());
    app.handle_event(&key(KeyCode::Right));
    assert_eq!(app.step(), 1, "the explorer steps while the product runs");
    let deadline = Instant::now() + Duration::from_secs(20);
    while app.scanning() {
        assert!(Instant::now() < deadline, "the worker finishes");
        std::thread::sleep(Duration::from_millis(5));
        app.update(Action::Tick);
    }
    let row = app.model().lookup(1).unwrap();
    assert_eq!(app.views().one_hot.get(), Some(&row), "row 1, bit for bit");
}

#[test]
fn a_large_tables_typical_magnitude_is_sampled_off_the_key_path_once() {
    let model = EmbeddingModel::shaped(3000, 16, 16, 7).unwrap();
    let expected = crate::core::analysis::metrics::typical_magnitude(model.token_table()).unwrap();
    let mut app = App::new(Options {
        sentence: "3 1 4".to_owned(),
        model: Some(model),
        background_scan_from: 0,
        ..Options::default()
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    while app.scanning() {
        assert!(Instant::now() < deadline, "the worker finishes");
        std::thread::sleep(Duration::from_millis(5));
        app.update(Action::Tick);
    }
    assert_eq!(app.wide_style().scale.to_bits(), expected.to_bits());
    let before = counts(&app).scale;
    app.handle_event(&key(KeyCode::Char('x')));
    assert_eq!(counts(&app).scale, before, "a key samples nothing again");
}

#[test]
fn a_flood_of_typed_keys_is_tokenised_once_not_once_a_key() {
    let mut app = App::new(Options::default());
    let before = app.recomputations().tokens;
    let flood: Vec<Event> = " the dog bites the man"
        .repeat(400)
        .chars()
        .map(|c| key(KeyCode::Char(c)))
        .collect();
    app.handle_queued(&key(KeyCode::Char(' ')), queue_of(flood), no_deadline())
        .expect("the queue reads");
    assert_eq!(
        app.recomputations().tokens - before,
        1,
        "one derive for the whole flood"
    );
    assert_eq!(app.tokens().len(), 4 + 5 * 400);
}

#[test]
fn a_key_after_typing_sees_the_typed_sentence() {
    // Enter reads the tokens derived from what was typed before it in the same burst.
    let mut app = App::new(Options::default());
    let mut burst: Vec<Event> = " man".chars().map(|c| key(KeyCode::Char(c))).collect();
    burst.push(key(KeyCode::Enter));
    burst.push(key(KeyCode::End));
    app.handle_queued(&key(KeyCode::Char(' ')), queue_of(burst), no_deadline())
        .expect("the queue reads");
    assert_eq!(app.focus(), Focus::Explorer);
    assert_eq!(
        app.step(),
        4,
        "End steps to the typed word, the fifth token"
    );
}

#[test]
fn typing_together_into_compare_modes_second_sentence_lands_there() {
    let mut app = App::new(Options::default());
    app.handle_event(&key(KeyCode::Enter));
    app.handle_event(&key(KeyCode::Char('c')));
    app.handle_event(&key(KeyCode::Char('I')));
    let text_a = app.text();
    let burst: Vec<Event> = "xyz".chars().map(|c| key(KeyCode::Char(c))).collect();
    app.handle_queued(&key(KeyCode::Char('w')), queue_of(burst), no_deadline())
        .expect("the queue reads");
    app.handle_event(&Event::Paste("!".to_owned()));
    assert_eq!(app.text(), text_a, "A is untouched");
    assert!(
        app.compare()
            .expect("compare mode")
            .other_text()
            .ends_with("wxyz!"),
        "typed and pasted text went to B"
    );
}

#[test]
fn e_asks_for_the_screen_as_it_is_and_the_answer_goes_to_the_status_line() {
    let mut app = App::new(Options::default());
    app.handle_event(&key(KeyCode::Enter));
    app.handle_event(&key(KeyCode::Char(' ')));
    app.handle_event(&key(KeyCode::Char('e')));
    assert!(app.export_requested());
    // The screen written is the one on show: its status line and its page of the explanation.
    assert_eq!(app.explanation_page(), 1);
    app.update(Action::Exported("wrote a.svg, .html, .txt".to_owned()));
    assert!(!app.export_requested());
    assert_eq!(app.status(), Some("wrote a.svg, .html, .txt"));
}

#[test]
fn the_tokenizer_worker_is_started_once_after_the_first_frame() {
    let mut app = App::new(Options {
        sentence: "3 1 4".to_owned(),
        model: Some(EmbeddingModel::shaped(30, 4, 4, 7).unwrap()),
        background_tokenizer_from: 0,
        ..Options::default()
    });
    assert_eq!(
        app.sources.tokenizer_starts(),
        0,
        "not before the first frame"
    );
    for _ in 0..3 {
        app.drawn(HitMap::default());
    }
    app.handle_event(&key(KeyCode::Enter));
    app.handle_event(&key(KeyCode::Char('v')));
    app.drawn(HitMap::default());
    assert_eq!(
        app.sources.tokenizer_starts(),
        1,
        "after the first frame only"
    );
}
