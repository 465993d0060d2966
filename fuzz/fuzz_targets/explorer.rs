//! Any bytes as a session at the keyboard: key presses, pastes and terminal resizes driven
//! through `App::handle_event`, with a frame drawn on a `TestBackend` after each.
//!
//! The first byte picks the start (vocabulary, positions, ids, lesson, colour); then each byte is
//! a key from [`KEYS`], except `0xE0..=0xEF`, a resize to the next two bytes (1..=220 columns,
//! 1..=70 rows), and `0xF0..=0xFF`, a paste of the next `byte & 0x0F` bytes as lossy UTF-8.
//!
//! Bursts arrive as a fast typist, key repeat or a paste without bracketed paste make them:
//! queued, applied together with `App::handle_queued`, then one frame. `0xD0..=0xD7` queues the
//! next byte's number of events, read as above, so keys, pastes and resizes mix; `0xD8..=0xDB`
//! queues the key the next byte names, repeated 8 times the byte after (up to 2,040 times).
//!
//! Only the seed and words vocabularies are used: gpt2 makes its tables on a thread, so `v`
//! from words (which would reach gpt2) is skipped, and left out of bursts altogether.
#![no_main]

use std::time::{Duration, Instant};

use embedlens::action::Action;
use embedlens::app::{App, Options};
use embedlens::core::tables::positional::PositionScheme;
use embedlens::core::text::vocabulary::VocabKind;
use embedlens::theme::Theme;
use libfuzzer_sys::fuzz_target;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

const NONE: KeyModifiers = KeyModifiers::NONE;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;

/// The keys a session presses: text, every command key, editing keys and a few awkward
/// characters (combining, zero-width, wide, control).
const KEYS: &[(KeyCode, KeyModifiers)] = &[
    (KeyCode::Char('a'), NONE),
    (KeyCode::Char('b'), NONE),
    (KeyCode::Char('c'), NONE),
    (KeyCode::Char('d'), NONE),
    (KeyCode::Char('e'), NONE),
    (KeyCode::Char('f'), NONE),
    (KeyCode::Char('g'), NONE),
    (KeyCode::Char('h'), NONE),
    (KeyCode::Char('i'), NONE),
    (KeyCode::Char('j'), NONE),
    (KeyCode::Char('k'), NONE),
    (KeyCode::Char('l'), NONE),
    (KeyCode::Char('m'), NONE),
    (KeyCode::Char('n'), NONE),
    (KeyCode::Char('o'), NONE),
    (KeyCode::Char('p'), NONE),
    (KeyCode::Char('q'), NONE),
    (KeyCode::Char('r'), NONE),
    (KeyCode::Char('s'), NONE),
    (KeyCode::Char('t'), NONE),
    (KeyCode::Char('u'), NONE),
    (KeyCode::Char('v'), NONE),
    (KeyCode::Char('w'), NONE),
    (KeyCode::Char('x'), NONE),
    (KeyCode::Char('y'), NONE),
    (KeyCode::Char('z'), NONE),
    (KeyCode::Char('I'), KeyModifiers::SHIFT),
    (KeyCode::Char('L'), KeyModifiers::SHIFT),
    (KeyCode::Char('S'), KeyModifiers::SHIFT),
    (KeyCode::Char('T'), KeyModifiers::SHIFT),
    (KeyCode::Char('0'), NONE),
    (KeyCode::Char('1'), NONE),
    (KeyCode::Char('2'), NONE),
    (KeyCode::Char('3'), NONE),
    (KeyCode::Char('4'), NONE),
    (KeyCode::Char('5'), NONE),
    (KeyCode::Char('6'), NONE),
    (KeyCode::Char('7'), NONE),
    (KeyCode::Char('8'), NONE),
    (KeyCode::Char('9'), NONE),
    (KeyCode::Char(' '), NONE),
    (KeyCode::Char(','), NONE),
    (KeyCode::Char('.'), NONE),
    (KeyCode::Char('\''), NONE),
    (KeyCode::Char('?'), KeyModifiers::SHIFT),
    (KeyCode::Char('/'), NONE),
    (KeyCode::Char('#'), KeyModifiers::SHIFT),
    (KeyCode::Char('['), NONE),
    (KeyCode::Char(']'), NONE),
    (KeyCode::Char('-'), NONE),
    (KeyCode::Char('é'), NONE),
    (KeyCode::Char('東'), NONE),
    (KeyCode::Char('🦊'), NONE),
    (KeyCode::Char('\u{301}'), NONE),
    (KeyCode::Char('\u{200d}'), NONE),
    (KeyCode::Char('\t'), NONE),
    (KeyCode::Char('\u{7}'), NONE),
    (KeyCode::Left, NONE),
    (KeyCode::Right, NONE),
    (KeyCode::Up, NONE),
    (KeyCode::Down, NONE),
    (KeyCode::Home, NONE),
    (KeyCode::End, NONE),
    (KeyCode::PageUp, NONE),
    (KeyCode::PageDown, NONE),
    (KeyCode::Enter, NONE),
    (KeyCode::Tab, NONE),
    (KeyCode::BackTab, KeyModifiers::SHIFT),
    (KeyCode::Esc, NONE),
    (KeyCode::Backspace, NONE),
    (KeyCode::Delete, NONE),
    (KeyCode::Char('u'), CTRL),
    (KeyCode::Char('z'), CTRL),
    (KeyCode::Char('a'), CTRL),
    (KeyCode::Char('e'), CTRL),
    (KeyCode::Char('w'), CTRL),
    (KeyCode::Char('k'), CTRL),
    (KeyCode::Char('c'), CTRL),
];

/// The explorer's start, from the first byte's bits.
fn options(flags: u8) -> Options {
    Options {
        vocab: if flags & 1 == 0 {
            VocabKind::Seed
        } else {
            VocabKind::Words
        },
        positions: if flags & 2 == 0 {
            PositionScheme::None
        } else {
            PositionScheme::Learned
        },
        ids: flags & 4 != 0,
        lesson: flags & 8 != 0,
        special_tokens: flags & 16 != 0,
        theme: Theme::new(flags & 32 != 0),
        ..Options::default()
    }
}

/// Reads one event from the front of `rest`: a key, a resize (the backend follows it) or a
/// paste; `None` at the end of the input.
fn next_event(rest: &mut &[u8], backend: &mut TestBackend) -> Option<Event> {
    let (&byte, tail) = rest.split_first()?;
    *rest = tail;
    Some(match byte {
        0xE0..=0xEF => {
            let [width, height, ..] = **rest else {
                return None;
            };
            *rest = &rest[2..];
            let (width, height) = (1 + u16::from(width) % 220, 1 + u16::from(height) % 70);
            backend.resize(width, height);
            Event::Resize(width, height)
        }
        0xF0..=0xFF => {
            let length = usize::from(byte & 0x0F).min(rest.len());
            let (pasted, tail) = rest.split_at(length);
            *rest = tail;
            Event::Paste(String::from_utf8_lossy(pasted).into_owned())
        }
        _ => key(byte, byte >= 0xDC),
    })
}

/// The key `KEYS` holds at `index` (wrapping), pressed or, when `release`, released.
fn key(index: u8, release: bool) -> Event {
    let (code, modifiers) = KEYS[usize::from(index) % KEYS.len()];
    // A release now and then: the explorer must act on presses only.
    let kind = if release {
        KeyEventKind::Release
    } else {
        KeyEventKind::Press
    };
    Event::Key(KeyEvent::new_with_kind(code, modifiers, kind))
}

/// The events of a burst starting at `byte` (`0xD0..=0xDB`), read from the front of `rest`.
fn burst(byte: u8, rest: &mut &[u8], backend: &mut TestBackend) -> Vec<Event> {
    let Some((&count, tail)) = rest.split_first() else {
        return Vec::new();
    };
    *rest = tail;
    let events = if byte < 0xD8 {
        (0..count)
            .map_while(|_| next_event(rest, backend))
            .collect()
    } else {
        let Some((&repeats, tail)) = rest.split_first() else {
            return Vec::new();
        };
        *rest = tail;
        vec![key(count, false); usize::from(repeats) * 8]
    };
    // `v` could reach gpt2 from words, and a burst cannot look at the state between its keys.
    let cycles_vocab = |event: &Event| matches!(event, Event::Key(key) if key.code == KeyCode::Char('v') && key.modifiers == NONE);
    events
        .into_iter()
        .filter(|event| !cycles_vocab(event))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, mut rest)) = data.split_first() else {
        return;
    };
    let mut app = App::new(options(flags));
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("test backend");
    terminal
        .draw(|frame| frame.render_widget(&app, frame.area()))
        .expect("draw");
    while let Some(&byte) = rest.first() {
        if (0xD0..=0xDB).contains(&byte) {
            rest = &rest[1..];
            let mut queued = burst(byte, &mut rest, terminal.backend_mut()).into_iter();
            let Some(first) = queued.next() else { continue };
            let far = Instant::now() + Duration::from_secs(3600);
            app.handle_queued(&first, || Ok(queued.next()), far)
                .expect("a queue of events cannot fail");
        } else {
            let Some(event) = next_event(&mut rest, terminal.backend_mut()) else {
                break;
            };
            let reaches_gpt2 = app.vocab() == Some(VocabKind::Words)
                && app.action_for_event(&event) == Some(Action::CycleVocab);
            if reaches_gpt2 {
                continue;
            }
            app.handle_event(&event);
        }
        terminal
            .draw(|frame| frame.render_widget(&app, frame.area()))
            .expect("draw");
        if !app.is_running() {
            break;
        }
    }
});
