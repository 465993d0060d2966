//! Properties of the core and the explorer that must hold for any input, checked with proptest.
//!
//! Case counts are modest so `cargo test` stays quick in a debug build; each property still
//! sees dozens of random shapes, seeds, id sequences, strings or key sequences.

use embedlens::action::Action;
use embedlens::app::{App, Options};
use embedlens::core::tables::positional::PositionScheme;
use embedlens::core::tables::torch_init::TorchGenerator;
use embedlens::core::tables::weights::EmbeddingModel;
use embedlens::core::text::tokenizer::TextTokenizer;
use embedlens::core::text::vocabulary::{Token, VocabKind, Vocabulary};
use embedlens::theme::Theme;
use ndarray::{Array1, ArrayView1};
use proptest::prelude::*;
use proptest::string::string_regex;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// Every position scheme, the ones that add a vector and the ones that act inside attention.
const SCHEMES: [PositionScheme; 5] = [
    PositionScheme::None,
    PositionScheme::Learned,
    PositionScheme::Sinusoidal,
    PositionScheme::Rope,
    PositionScheme::Alibi,
];

/// A vector's numbers as bits, so equality means bit for bit (and NaN equals itself).
fn bits(values: ArrayView1<f32>) -> Vec<u32> {
    values.iter().map(|value| value.to_bits()).collect()
}

fn optional_bits(vector: Option<&Array1<f32>>) -> Option<Vec<u32>> {
    vector.map(|vector| bits(vector.view()))
}

/// A table shape and seed: rows ≤ 50, dims ≤ 16, a context length that may be shorter than a
/// sentence (so learned positions run out), any seed.
fn shapes() -> impl Strategy<Value = (usize, usize, usize, u64)> {
    (1usize..=50, 1usize..=16, 0usize..=24, any::<u64>())
}

/// A shape with a sequence of ids that address its rows.
fn shapes_with_ids() -> impl Strategy<Value = ((usize, usize, usize, u64), Vec<usize>)> {
    shapes().prop_flat_map(|shape| {
        let ids = proptest::collection::vec(0..shape.0, 0..=40);
        (Just(shape), ids)
    })
}

fn schemes() -> impl Strategy<Value = PositionScheme> {
    proptest::sample::select(SCHEMES.to_vec())
}

/// Text worth tokenising: arbitrary Unicode, and sentences built from the pieces that trouble
/// terminals and tokenizers (emoji, wide CJK, combining marks, right-to-left, specials).
fn texts() -> impl Strategy<Value = String> {
    let pieces = string_regex(
        "((the|fox|Fox|bites|man|🦊|👩‍👩‍👧|❤️|東京は大きい|e\u{301}|café|שלום|عالم|<\\|endoftext\\|>|[.,!?'\"-]|\\PC|.)[ \t\n]?){0,24}",
    )
    .expect("the pattern is valid");
    prop_oneof![any::<String>(), pieces]
}

/// Checks what every tokenizer promises of its spans: on character boundaries, in order, and
/// never past the end of the text.
fn assert_spans_on_boundaries(text: &str, tokens: &[Token]) -> Result<(), TestCaseError> {
    let mut previous_end = 0;
    for (position, token) in tokens.iter().enumerate() {
        let span = &token.span;
        prop_assert_eq!(token.position, position);
        prop_assert!(
            span.start <= span.end,
            "{:?} runs backwards in {:?}",
            span,
            text
        );
        prop_assert!(span.end <= text.len(), "{:?} runs past {:?}", span, text);
        prop_assert!(
            text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
            "{:?} cuts a character of {:?}",
            span,
            text
        );
        prop_assert!(
            span.start >= previous_end,
            "{:?} overlaps the span before it in {:?}",
            span,
            text
        );
        previous_end = span.end;
    }
    Ok(())
}

/// `cases` cases, or as many as `PROPTEST_CASES` says, for a longer run by hand.
fn config(cases: u32) -> ProptestConfig {
    if std::env::var_os("PROPTEST_CASES").is_some() {
        ProptestConfig::default()
    } else {
        ProptestConfig::with_cases(cases)
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// `lookup(id)` is row `id` of the token table, and that row is the id-th chunk of the
    /// numbers `torch.manual_seed(seed); nn.Embedding(rows, dims)` draws.
    #[test]
    fn lookup_is_the_row((rows, dims, context_length, seed) in shapes()) {
        let model = EmbeddingModel::shaped(rows, dims, context_length, seed).expect("a shape");
        let fresh = TorchGenerator::manual_seed(seed).embedding(rows, dims);
        let drawn: Vec<f32> = fresh.iter().copied().collect();
        for (id, chunk) in drawn.chunks(dims).enumerate() {
            let looked_up = model.lookup(id).expect("every id below rows has a row");
            let row = model.token_table().row(id).expect("every id below rows has a row");
            prop_assert_eq!(bits(looked_up.view()), bits(row.view()));
            prop_assert_eq!(bits(looked_up.view()), bits(ArrayView1::from(chunk)));
        }
        prop_assert_eq!(drawn.len(), rows * dims);
        prop_assert!(model.lookup(rows).is_none(), "no row past the last");
    }

    /// The lookup ignores where a token stands: the same id gives the same token vector at
    /// every position, under every scheme; without an added vector the input is that vector.
    #[test]
    fn the_same_id_gives_the_same_token_vector_anywhere(
        ((rows, dims, context_length, seed), ids) in shapes_with_ids(),
        scheme in schemes(),
    ) {
        let model = EmbeddingModel::shaped(rows, dims, context_length, seed).expect("a shape");
        let tokens = model.tokens_from_ids(&ids).expect("ids below rows");
        let lookups = model.embed(&tokens, scheme);
        prop_assert_eq!(lookups.len(), ids.len());
        for (lookup, &id) in lookups.iter().zip(&ids) {
            let row = model.lookup(id).expect("a row");
            prop_assert_eq!(optional_bits(lookup.token_vector.as_ref()), Some(bits(row.view())));
            if !scheme.is_additive() {
                prop_assert_eq!(
                    optional_bits(lookup.input_vector.as_ref()),
                    Some(bits(row.view())),
                    "{} adds nothing to the input vector",
                    scheme
                );
            }
        }
    }

    /// With learned or sinusoidal positions, two copies of an id get different input vectors
    /// unless the two position vectors are the same bits.
    #[test]
    fn additive_positions_pull_copies_apart(
        ((rows, dims, context_length, seed), ids) in shapes_with_ids(),
        scheme in proptest::sample::select(vec![PositionScheme::Learned, PositionScheme::Sinusoidal]),
    ) {
        let model = EmbeddingModel::shaped(rows, dims, context_length, seed).expect("a shape");
        let lookups = model.embed(&model.tokens_from_ids(&ids).expect("ids below rows"), scheme);
        for (i, first) in lookups.iter().enumerate() {
            for second in &lookups[i + 1..] {
                if first.token.id != second.token.id {
                    continue;
                }
                let (Some(a), Some(b)) = (first.position.vector(), second.position.vector()) else {
                    // Past the learned table's context length nothing is added, and there is
                    // no input vector to compare.
                    prop_assert!(first.input_vector.is_none() || second.input_vector.is_none());
                    continue;
                };
                let same_position = bits(a) == bits(b);
                let same_input = optional_bits(first.input_vector.as_ref())
                    == optional_bits(second.input_vector.as_ref());
                prop_assert_eq!(
                    same_input,
                    same_position,
                    "positions {} and {} of id {:?}",
                    first.token.position,
                    second.token.position,
                    first.token.id
                );
            }
        }
    }

    /// The word vocabularies' spans slice the input at character boundaries, in order, and
    /// each slice is the token's text.
    #[test]
    fn word_spans_slice_on_character_boundaries(text in texts()) {
        for kind in [VocabKind::Seed, VocabKind::Words] {
            let vocabulary = Vocabulary::builtin(kind).expect("a word vocabulary");
            let tokens = vocabulary.tokenize(&text);
            assert_spans_on_boundaries(&text, &tokens)?;
            for token in &tokens {
                prop_assert!(!token.span.is_empty());
                prop_assert_eq!(&text[token.span.clone()], token.text.as_str());
            }
        }
    }

    /// GPT-2's spans are on character boundaries too, in order, even where a piece is only
    /// part of a character (its span may then be empty).
    #[test]
    fn gpt2_spans_slice_on_character_boundaries(text in texts(), special_tokens in any::<bool>()) {
        let tokenizer = TextTokenizer::gpt2().expect("GPT-2's ranks are built in");
        let tokens = tokenizer.tokenize(&text, special_tokens).expect("any text tokenises");
        assert_spans_on_boundaries(&text, &tokens)?;
        prop_assert_eq!(tokens.is_empty(), text.is_empty());
        if let Some(last) = tokens.last() {
            prop_assert_eq!(last.span.end, text.len(), "the pieces cover {:?}", text);
        }
    }
}

/// One thing that can happen to the explorer: a terminal event, drawn at a terminal size.
#[derive(Clone, Debug)]
struct Step {
    event: Event,
    width: u16,
    height: u16,
}

/// Key codes the explorer reads: every command key, some letters to type, and the keys that
/// move, edit or switch focus. `q` and Esc quit from the explorer, so the run stops there.
fn key_codes() -> impl Strategy<Value = KeyCode> {
    let commands =
        proptest::sample::select("pmvcasotuLx[]/#nIiSqhjkl?12".chars().collect::<Vec<_>>())
            .prop_map(KeyCode::Char);
    let typed = proptest::sample::select(" 3059abcé東🦊".chars().collect::<Vec<_>>())
        .prop_map(KeyCode::Char);
    let keys = proptest::sample::select(vec![
        KeyCode::Left,
        KeyCode::Right,
        KeyCode::Up,
        KeyCode::Down,
        KeyCode::Home,
        KeyCode::End,
        KeyCode::PageUp,
        KeyCode::PageDown,
        KeyCode::Enter,
        KeyCode::Enter,
        KeyCode::Tab,
        KeyCode::BackTab,
        KeyCode::Backspace,
        KeyCode::Delete,
        KeyCode::Esc,
    ]);
    prop_oneof![
        8 => commands,
        2 => typed,
        4 => keys,
        1 => any::<char>().prop_map(KeyCode::Char),
    ]
}

/// A key press (now and then a release, which must be ignored), with Ctrl, Alt or Shift at
/// times; Ctrl+C is left out as it quits from anywhere.
fn key_events() -> impl Strategy<Value = Event> {
    let modifiers = proptest::sample::select(vec![
        KeyModifiers::NONE,
        KeyModifiers::NONE,
        KeyModifiers::NONE,
        KeyModifiers::SHIFT,
        KeyModifiers::CONTROL,
        KeyModifiers::ALT,
    ]);
    let edits = proptest::sample::select(vec!['u', 'z', 'a', 'e', 'k', 'w', 'h'])
        .prop_map(|c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL));
    let keys = (key_codes(), modifiers, proptest::bool::weighted(0.05))
        .prop_filter("Ctrl+C quits", |(code, modifiers, _)| {
            !(*code == KeyCode::Char('c') && modifiers.contains(KeyModifiers::CONTROL))
        })
        .prop_map(|(code, modifiers, release)| {
            let mut key = KeyEvent::new(code, modifiers);
            if release {
                key.kind = KeyEventKind::Release;
            }
            key
        });
    prop_oneof![8 => keys, 1 => edits].prop_map(Event::Key)
}

/// Key presses, pastes of random Unicode, and resizes, each drawn at a random size.
fn steps() -> impl Strategy<Value = Vec<Step>> {
    let event = prop_oneof![
        24 => key_events(),
        1 => texts().prop_map(Event::Paste),
        1 => (1u16..=220, 1u16..=70).prop_map(|(w, h)| Event::Resize(w, h)),
    ];
    let step = (event, 1u16..=220, 1u16..=70).prop_map(|(event, width, height)| {
        // A resize draws at the size it announces, as the terminal would.
        let (width, height) = match event {
            Event::Resize(w, h) => (w, h),
            _ => (width, height),
        };
        Step {
            event,
            width,
            height,
        }
    });
    proptest::collection::vec(step, 1..=40)
}

fn draw(app: &App, width: u16, height: u16) {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("a test backend");
    terminal
        .draw(|frame| frame.render_widget(app, frame.area()))
        .expect("the test backend draws");
}

/// Plays the steps on an explorer, drawing after each; stops when a key quits it.
///
/// Typing takes most keys while the input has focus, so half the runs start in the explorer,
/// where the command keys act.
fn play(mut app: App, explore_first: bool, steps: &[Step]) {
    while app.waiting_for_tables() {
        std::thread::sleep(std::time::Duration::from_millis(10));
        app.update(Action::Tick);
    }
    if explore_first {
        app.update(Action::FocusExplorer);
    }
    draw(&app, 120, 40);
    for step in steps {
        app.handle_event(&step.event);
        if !app.is_running() {
            return;
        }
        assert_consistent(&app);
        draw(&app, step.width, step.height);
    }
}

/// What must hold between any two key presses: the current token and the matrix cursor exist,
/// and every token has its lookup.
fn assert_consistent(app: &App) {
    assert!(
        app.current_token().is_some() || app.tokens().is_empty(),
        "step {} of {} tokens",
        app.step(),
        app.tokens().len()
    );
    assert!(
        app.matrix_cursor() < app.model().rows(),
        "cursor {} of {} rows",
        app.matrix_cursor(),
        app.model().rows()
    );
    if !app.waiting_for_tables() {
        assert_eq!(app.lookups().len(), app.tokens().len());
    }
}

fn explorer(vocab: VocabKind, sentence: String) -> App {
    App::new(Options {
        sentence,
        vocab,
        theme: Theme::new(true),
        // Small gpt2 tables: `v` reaches them, and they are generated in a moment.
        gpt2_dims: 4,
        ..Options::default()
    })
}

proptest! {
    #![proptest_config(config(48))]

    /// Whatever is pressed, pasted or resized, in whatever order, the explorer can be drawn at
    /// any size from 1×1 up.
    #[test]
    fn any_key_sequence_on_any_terminal_size_leaves_a_state_that_draws(
        vocab in proptest::sample::select(vec![VocabKind::Seed, VocabKind::Words]),
        sentence in texts(),
        explore_first in any::<bool>(),
        steps in steps(),
    ) {
        play(explorer(vocab, sentence), explore_first, &steps);
    }
}

proptest! {
    #![proptest_config(config(12))]

    /// The same for GPT-2's byte-pair pieces, whose partial characters have empty spans.
    #[test]
    fn any_key_sequence_draws_with_gpt2(
        sentence in texts(),
        explore_first in any::<bool>(),
        steps in steps(),
    ) {
        play(explorer(VocabKind::Gpt2, sentence), explore_first, &steps);
    }
}
