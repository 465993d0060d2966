//! The mouse through the real event handling: the explorer is drawn on a `TestBackend` as the
//! run loop draws it (`ui::draw` returns where its clickable things are, and the app keeps
//! that), then a click or a wheel turn at a cell found on that screen takes the action a key
//! would.

mod common;

use common::screen::press;
use embedlens::action::Action;
use embedlens::app::{App, Focus, Options};
use embedlens::core::text::vocabulary::VocabKind;
use embedlens::hit_map::HitMap;
use embedlens::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{
    Event, KeyCode, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

/// The two sizes every place is tried at.
const SIZES: [(u16, u16); 2] = [(80, 24), (200, 60)];

fn app_with(sentence: &str, vocab: VocabKind) -> App {
    App::new(Options {
        sentence: sentence.to_owned(),
        vocab,
        theme: Theme::new(false),
        ..Options::default()
    })
}

/// Draws the explorer at `size` (as a frame does, recording its clickable places) and returns
/// the screen.
fn frame(app: &mut App, (columns, rows): (u16, u16)) -> Buffer {
    app.handle_event(&Event::Resize(columns, rows));
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(columns, rows))
        .expect("test backend");
    let mut hits = HitMap::default();
    terminal
        .draw(|frame| hits = embedlens::ui::draw(app, frame.area(), frame.buffer_mut()))
        .expect("draw");
    app.drawn(hits);
    terminal.backend().buffer().clone()
}

fn mouse(kind: MouseEventKind, (column, row): (u16, u16)) -> MouseEvent {
    MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    }
}

fn click_at(at: (u16, u16)) -> MouseEvent {
    mouse(MouseEventKind::Down(MouseButton::Left), at)
}

/// The cell where `needle` starts on the first row whose text contains `row_has` and
/// `needle`, searching from column `from`.
fn find(buffer: &Buffer, row_has: &str, needle: &str, from: u16) -> (u16, u16) {
    let area = buffer.area;
    for y in area.top()..area.bottom() {
        let cells: Vec<&str> = (area.left()..area.right())
            .map(|x| buffer[(x, y)].symbol())
            .collect();
        let line: String = cells.concat();
        if !line.contains(row_has) {
            continue;
        }
        let from = usize::from(from);
        for x in from..cells.len() {
            if cells[x..].concat().starts_with(needle) {
                return (u16::try_from(x).unwrap(), y);
            }
        }
    }
    panic!("no '{needle}' on a row with '{row_has}':\n{}", text(buffer));
}

fn text(buffer: &Buffer) -> String {
    let area = buffer.area;
    (area.top()..area.bottom())
        .map(|y| {
            (area.left()..area.right())
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn clicking_a_token_in_the_strip_or_the_sentence_steps_to_it() {
    for size in SIZES {
        let mut app = app_with("fox bites the fox", VocabKind::Seed);
        press(&mut app, &[KeyCode::Enter]);
        let screen = frame(&mut app, size);
        // The strip: `2 the #0`.
        let the = find(&screen, "#4", "the #0", 0);
        app.handle_event(&Event::Mouse(click_at(the)));
        assert_eq!(app.step(), 2, "{size:?}");
        // The sentence's second `fox`, by its last letter; then its first, back.
        let screen = frame(&mut app, size);
        let second = find(&screen, "fox bites the fox", "fox", 12);
        app.handle_event(&Event::Mouse(click_at((second.0 + 2, second.1))));
        assert_eq!(app.step(), 3, "{size:?}");
        let screen = frame(&mut app, size);
        let first = find(&screen, "fox bites the fox", "fox", 0);
        assert_eq!(
            app.actions_for_mouse(&click_at(first)),
            vec![Action::Previous; 3]
        );
        // The space between two words is no word.
        let space = (first.0 + 3, first.1);
        assert_eq!(app.actions_for_mouse(&click_at(space)), vec![], "{size:?}");
    }
}

#[test]
fn a_click_on_a_token_while_typing_moves_to_the_explorer_and_steps() {
    for size in SIZES {
        let mut app = app_with("fox bites the fox", VocabKind::Seed);
        let screen = frame(&mut app, size);
        assert_eq!(app.focus(), Focus::Input);
        // The text area being typed into takes no clicks of ours.
        let typed = find(&screen, "fox bites the fox", "bites", 0);
        assert_eq!(app.actions_for_mouse(&click_at(typed)), vec![]);
        let bites = find(&screen, "#2", "bites #4", 0);
        app.handle_event(&Event::Mouse(click_at(bites)));
        assert_eq!((app.focus(), app.step()), (Focus::Explorer, 1), "{size:?}");
    }
}

#[test]
fn clicking_a_matrix_row_goes_to_it_as_the_go_to_prompt_does() {
    for size in SIZES {
        let mut app = app_with("fox bites the fox", VocabKind::Seed);
        press(&mut app, &[KeyCode::Enter]);
        let screen = frame(&mut app, size);
        let man = find(&screen, "5 man", "5 man", 0);
        let actions = app.actions_for_mouse(&click_at(man));
        assert_eq!(actions.first(), Some(&Action::StartGoTo));
        assert_eq!(actions.last(), Some(&Action::PromptSubmit));
        app.handle_event(&Event::Mouse(click_at(man)));
        assert_eq!(app.matrix_cursor(), 5, "{size:?}");
        assert!(app.matrix_cursor_moved());
        // A value of the row goes there too: the whole row is its place.
        let value = find(&screen, "3 dog", "-1.1481", 0);
        app.handle_event(&Event::Mouse(click_at(value)));
        assert_eq!(app.matrix_cursor(), 3, "{size:?}");
    }
}

#[test]
fn clicking_an_entry_of_the_help_bar_takes_its_keys_action() {
    for size in SIZES {
        let mut app = app_with("fox bites the fox", VocabKind::Seed);
        press(&mut app, &[KeyCode::Enter]);
        let screen = frame(&mut app, size);
        let bottom = size.1 - 1;
        let step = find(&screen, "EXPLORE", "←/→ step", 0);
        assert_eq!(step.1, bottom);
        assert_eq!(
            app.actions_for_mouse(&click_at(step)),
            vec![Action::Previous]
        );
        let right = (step.0 + 2, bottom);
        assert_eq!(app.actions_for_mouse(&click_at(right)), vec![Action::Next]);
        let positions = find(&screen, "EXPLORE", "positions", 0);
        assert!(!app.overlay());
        app.handle_event(&Event::Mouse(click_at(positions)));
        assert!(
            app.overlay(),
            "{size:?}: the words of an entry are part of it"
        );
        let screen = frame(&mut app, size);
        let help = find(&screen, "EXPLORE", "? help", 0);
        app.handle_event(&Event::Mouse(click_at(help)));
        assert_eq!(app.scope(), embedlens::action::Scope::Help);
    }
}

#[test]
fn the_wheel_scrolls_the_pane_under_the_pointer() {
    for size in SIZES {
        let mut app = app_with("the dog bites the man", VocabKind::Words);
        press(&mut app, &[KeyCode::Enter]);
        let screen = frame(&mut app, size);
        let matrix = find(&screen, "Weight matrix", "Weight matrix", 0);
        let inside = (matrix.0, matrix.1 + 3);
        let start = app.matrix_cursor();
        app.handle_event(&Event::Mouse(mouse(MouseEventKind::ScrollDown, inside)));
        assert_eq!(
            app.matrix_cursor(),
            start + 3,
            "{size:?}: three rows a notch"
        );
        app.handle_event(&Event::Mouse(mouse(MouseEventKind::ScrollUp, inside)));
        assert_eq!(app.matrix_cursor(), start, "{size:?}");
        // The lookups step as ←/→ do; the explanation pages as Space does.
        let lookups = find(&screen, "Lookups", "Lookups", 0);
        let under = (lookups.0, lookups.1 + 2);
        app.handle_event(&Event::Mouse(mouse(MouseEventKind::ScrollDown, under)));
        assert_eq!(app.step(), 1, "{size:?}");
        let readout = find(&screen, "What the layer returned", "What the layer", 0);
        let under = (readout.0, readout.1 + 1);
        assert_eq!(
            app.actions_for_mouse(&mouse(MouseEventKind::ScrollDown, under)),
            vec![Action::ScrollExplanation]
        );
        assert_eq!(
            app.actions_for_mouse(&mouse(MouseEventKind::ScrollUp, under)),
            vec![],
            "the explanation has no page back"
        );
        // Over the help overlay the help scrolls, and what lies under it takes no click.
        press(&mut app, &[KeyCode::Char('?')]);
        let screen = frame(&mut app, size);
        let help = find(&screen, "Help · what", "Help · what", 0);
        let inside = (help.0, help.1 + 2);
        app.handle_event(&Event::Mouse(mouse(MouseEventKind::ScrollDown, inside)));
        // (At 200×60 the whole help fits: there is nothing to scroll.)
        let scrolls = embedlens::help::max_scroll(size.0, size.1).min(3);
        assert_eq!(app.help_scroll(), scrolls, "{size:?}");
        assert_eq!(
            app.actions_for_mouse(&mouse(MouseEventKind::ScrollDown, inside)),
            vec![Action::ScrollHelp(3)]
        );
        assert_eq!(app.actions_for_mouse(&click_at(inside)), vec![]);
    }
}

#[test]
fn the_wheel_scrolls_the_snippet_overlay() {
    for size in SIZES {
        let mut app = app_with("the dog bites the man", VocabKind::Words);
        press(&mut app, &[KeyCode::Enter, KeyCode::Char('y')]);
        let screen = frame(&mut app, size);
        let snippet = find(&screen, "Python snippet", "Python snippet", 0);
        let inside = (snippet.0, snippet.1 + 3);
        assert_eq!(
            app.actions_for_mouse(&mouse(MouseEventKind::ScrollDown, inside)),
            vec![Action::ScrollSnippet(3)]
        );
        assert_eq!(
            app.actions_for_mouse(&mouse(MouseEventKind::ScrollUp, inside)),
            vec![Action::ScrollSnippet(-3)]
        );
        app.handle_event(&Event::Mouse(mouse(MouseEventKind::ScrollDown, inside)));
        let scrolled = app.snippet().map(|overlay| overlay.scroll);
        // The script is longer than the screen at 80×24 and 120×40; at 200×60 it may fit.
        if size.1 < 60 {
            assert_eq!(scrolled, Some(3), "{size:?}");
        }
        assert_eq!(app.actions_for_mouse(&click_at(inside)), vec![]);
    }
}

#[test]
fn clicking_an_answer_in_the_lesson_gives_it() {
    for size in SIZES {
        let mut app = app_with("fox bites the fox", VocabKind::Seed);
        press(&mut app, &[KeyCode::Enter, KeyCode::Char('L')]);
        let screen = frame(&mut app, size);
        let second = find(&screen, "2) ", "2) ", 0);
        // Anywhere on the answer's row, its words included.
        let words = (second.0 + 5, second.1);
        assert_eq!(
            app.actions_for_mouse(&click_at(words)),
            vec![Action::Answer(2)]
        );
        app.handle_event(&Event::Mouse(click_at(second)));
        assert_eq!(app.lesson().unwrap().answered, Some(2), "{size:?}");
        // Answered, the answers take no more clicks.
        let screen = frame(&mut app, size);
        let shown = find(&screen, "2) ", "2) ", 0);
        assert_eq!(app.actions_for_mouse(&click_at(shown)), vec![]);
    }
}

#[test]
fn a_click_on_nothing_clickable_does_nothing() {
    for size in SIZES {
        let mut app = app_with("fox bites the fox", VocabKind::Seed);
        press(&mut app, &[KeyCode::Enter]);
        let screen = frame(&mut app, size);
        let title = find(&screen, "What the layer returned", "What the layer", 0);
        let border = (0, 0);
        let release = mouse(MouseEventKind::Up(MouseButton::Left), (1, 1));
        for event in [click_at(title), click_at(border), release] {
            assert_eq!(app.actions_for_mouse(&event), vec![], "{size:?} {event:?}");
        }
    }
}

#[test]
fn in_compare_mode_a_word_of_a_or_b_steps_to_it_and_its_twin_is_marked() {
    for size in SIZES {
        let mut app = app_with("fox bites the fox", VocabKind::Seed);
        press(&mut app, &[KeyCode::Enter, KeyCode::Char('c')]);
        let screen = frame(&mut app, size);
        let half = size.0 / 2;
        // B's `bites` (its position 2) is A's token 1.
        let b_bites = find(&screen, "A1", "bites", half);
        app.handle_event(&Event::Mouse(click_at(b_bites)));
        assert_eq!(app.step(), 1, "{size:?}");
        let screen = frame(&mut app, size);
        let reversed = |at: (u16, u16)| {
            screen[at]
                .modifier
                .contains(ratatui::style::Modifier::REVERSED)
        };
        let a_bites = find(&screen, "B2", "bites", 0);
        assert!(reversed(a_bites), "{size:?}: the word of A marked");
        assert!(reversed(b_bites), "{size:?}: its twin in B marked");
        let b_the = find(&screen, "A2", "the", half);
        assert!(!reversed(b_the), "{size:?}: only the twin");
        // A's `the`, in the compare pane and in the sentence A above it.
        let a_the = find(&screen, "B1", "the", 0);
        app.handle_event(&Event::Mouse(click_at(a_the)));
        assert_eq!(app.step(), 2, "{size:?}");
        let screen = frame(&mut app, size);
        let sentence_fox = find(&screen, " A fox bites the fox", "fox", 0);
        app.handle_event(&Event::Mouse(click_at(sentence_fox)));
        assert_eq!(app.step(), 0, "{size:?}");
    }
}
