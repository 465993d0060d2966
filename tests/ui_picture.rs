//! The picture: the sentence's vectors on their top two principal axes, driven through the real
//! update path and drawn on a `TestBackend`.

mod common;

use common::draw;
use common::screen::{
    app_with, at_second_fox, pane, pane_prose, press, screen_line, screen_text, sweep_sizes,
};
use insta::assert_snapshot;
use ratatui::crossterm::event::{Event, KeyCode};

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
        "picture_without_positions_120x40_pane",
        pane(&draw(&app, 120, 40), "Picture")
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
        "picture_in_compare_mode_with_positions_80x24_pane",
        pane(&terminal, "Picture")
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
    let readout = screen_line(&text, "fox at 0 and 3: same row 2");
    assert!(readout.contains("axes: PC1 ("), "{readout}");
    assert_snapshot!("picture_beside_the_readout_200x60", terminal.backend());
    // Smaller, the readout has the width to itself.
    app.handle_event(&Event::Resize(120, 40));
    let text = screen_text(&draw(&app, 120, 40));
    assert!(!text.contains("axes: PC1 ("), "{text}");
}

#[test]
fn with_rope_or_alibi_on_the_picture_never_offers_p_to_add_positions() {
    // Positions on, then `m` to RoPE and to ALiBi: the copies stay one dot, and the finding
    // says why instead of offering `p` (which would now take positions away).
    let mut app = at_second_fox();
    press(
        &mut app,
        &[
            KeyCode::Char('g'),
            KeyCode::Char('p'),
            KeyCode::Char('m'),
            KeyCode::Char('m'),
        ],
    );
    for scheme in ["RoPE", "ALiBi"] {
        for (width, height) in [(80, 24), (120, 40), (200, 60)] {
            let terminal = draw(&app, width, height);
            let text = screen_text(&terminal);
            let picture = pane_prose(&terminal, "Picture");
            assert!(
                text.contains("●fox ×2"),
                "{scheme} {width}×{height}:\n{text}"
            );
            assert!(
                picture.contains("'fox' at 0 and 3: one dot."),
                "{scheme} {width}×{height}:\n{picture}"
            );
            assert!(
                picture.contains(&format!("{scheme} adds no vector to the embeddings")),
                "{scheme} {width}×{height}:\n{picture}"
            );
            assert!(
                !picture.contains("p adds positions"),
                "{scheme} {width}×{height}:\n{picture}"
            );
        }
        press(&mut app, &[KeyCode::Char('m')]);
    }
    // Compare mode under RoPE: the two orders' finding.
    let mut app = app_with("fox bites the fox");
    press(
        &mut app,
        &[
            KeyCode::Enter,
            KeyCode::Char('c'),
            KeyCode::Char('g'),
            KeyCode::Char('p'),
            KeyCode::Char('m'),
            KeyCode::Char('m'),
        ],
    );
    let picture = pane_prose(&draw(&app, 80, 24), "Picture");
    assert!(
        picture.contains("another order moves no dot. RoPE adds no vector"),
        "{picture}"
    );
    assert!(!picture.contains("p adds"), "{picture}");
}
