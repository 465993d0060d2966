//! Any bytes as a `.safetensors` file: opening and inspecting it must answer Ok or Err, never
//! panic; a model that opens must read its rows and draw in the explorer.
#![no_main]

use std::path::PathBuf;
use std::sync::LazyLock;

use embedlens::app::{App, Options};
use embedlens::core::tables::positional::PositionScheme;
use embedlens::theme::Theme;
use libfuzzer_sys::fuzz_target;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

mod common;

/// A file of this process's own, so fuzzers running side by side never share one. Every
/// mapping of it is dropped before the next run rewrites it.
static MODEL_FILE: LazyLock<PathBuf> =
    LazyLock::new(|| common::own_file("safetensors", "model.safetensors"));

const SCHEMES: [PositionScheme; 5] = [
    PositionScheme::None,
    PositionScheme::Learned,
    PositionScheme::Sinusoidal,
    PositionScheme::Rope,
    PositionScheme::Alibi,
];

fuzz_target!(|data: &[u8]| {
    let Some(model) = common::write_and_open(&MODEL_FILE, data).map(|opened| opened.model) else {
        return;
    };
    let rows = common::check_rows(&model);
    assert!(model.lookup(rows).is_none());
    if let Some(table) = model.position_table() {
        let _ = table.row(0);
        let _ = table.row(table.rows().saturating_sub(1));
    }
    let ids: Vec<usize> = [0, rows - 1, 0].into_iter().collect();
    let tokens = model.tokens_from_ids(&ids).expect("ids below rows");
    for scheme in SCHEMES {
        for lookup in model.embed(&tokens, scheme) {
            let _ = model.model_embedding(&lookup);
        }
    }

    // The explorer on the opened model, read by id: one frame, a step, positions, wide view.
    let mut app = App::new(Options {
        sentence: format!("0 {} 0", rows - 1),
        model: Some(model),
        ids: true,
        theme: Theme::new(true),
        ..Options::default()
    });
    let mut terminal = Terminal::new(TestBackend::new(100, 32)).expect("test backend");
    for code in [
        KeyCode::Enter,
        KeyCode::Right,
        KeyCode::Char('p'),
        KeyCode::Char('x'),
        KeyCode::Char(']'),
        KeyCode::End,
    ] {
        terminal
            .draw(|frame| frame.render_widget(&app, frame.area()))
            .expect("draw");
        app.handle_event(&Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }
    terminal
        .draw(|frame| frame.render_widget(&app, frame.area()))
        .expect("draw");
});
