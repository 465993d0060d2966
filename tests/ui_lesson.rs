//! The guided lesson, driven through the real update path and drawn on a `TestBackend`: the
//! lesson pane's text cut out of the screen, and the evidence in the other panes as lines.

mod common;

use common::draw;
use common::screen::{
    app_with, at_second_fox, pane, pane_prose, press, press_ctrl, screen_row, screen_text,
};
use embedlens::app::App;
use insta::assert_snapshot;
use ratatui::crossterm::event::{Event, KeyCode};

#[test]
fn lesson_question_then_reveal() {
    let mut app = at_second_fox();
    press(
        &mut app,
        &[KeyCode::Char('L'), KeyCode::Char('2'), KeyCode::Enter],
    );
    let hidden = screen_text(&draw(&app, 120, 40));
    assert!(hidden.contains("step 2 of 7"), "{hidden}");
    assert!(hidden.contains("Hidden until you guess"), "{hidden}");
    assert!(
        !hidden.contains("distance 0.0000"),
        "the answer stays hidden: {hidden}"
    );
    assert!(hidden.contains("ids hidden until you answer"), "{hidden}");
    assert!(
        !hidden.contains("#2") && !hidden.contains("◇"),
        "no ids or copy marks before the answer: {hidden}"
    );
    press(&mut app, &[KeyCode::Char('1')]);
    let terminal = draw(&app, 120, 40);
    let text = screen_text(&terminal);
    assert!(text.contains("✔ 1) the same vector"), "{text}");
    assert!(
        text.contains("fox at 0 and 3: same row 2, Euclidean distance 0.0000"),
        "{text}"
    );
    assert_snapshot!(terminal.backend());
}

#[test]
fn the_learners_sentence_comes_back_after_the_lesson() {
    let mut app = app_with("dog bites man");
    press(&mut app, &[KeyCode::Enter, KeyCode::Char('L')]);
    // Step 1, then step 2 needs a repeated word and puts one in place of the learner's.
    press(&mut app, &[KeyCode::Char('2'), KeyCode::Enter]);
    assert_ne!(app.text(), "dog bites man");
    press(&mut app, &[KeyCode::Esc]);
    assert!(app.lesson().is_none());
    assert_eq!(app.text(), "dog bites man");
    assert!(app.compare().is_none());
}

#[test]
fn lesson_first_step_before_and_after_its_answer_at_80_by_24() {
    let mut app = app_with("fox bites the fox");
    press(&mut app, &[KeyCode::Enter, KeyCode::Char('L')]);
    let terminal = draw(&app, 80, 24);
    let before = screen_text(&terminal);
    assert!(before.contains("ids hidden until you answer"), "{before}");
    assert!(!before.contains("distance"), "{before}");
    assert_snapshot!("lesson_step_1_before_80x24", terminal.backend());
    press(&mut app, &[KeyCode::Char('1')]);
    let terminal = draw(&app, 80, 24);
    let after = screen_text(&terminal);
    assert!(after.contains("✘ Not quite"), "{after}");
    // The one-hot pane shows the product the answer is about.
    assert!(
        after.contains("one-hot(2) × W = row 2, bit for bit"),
        "{after}"
    );
    assert!(
        !after.contains("distance 0.0000"),
        "step 2's answer stays hidden: {after}"
    );
    assert_snapshot!("lesson_step_1_after_80x24_pane", pane(&terminal, "Lesson"));
}

/// What each step's revealed panes show (steps 2 to 7), which its lesson pane's sentence
/// points at: on screen once the question is answered, and not before.
const EVIDENCE: [&[&str]; 6] = [
    &["◇0 fox #2", "▶3 fox #2"],
    &["fox ×2 → row 2", "wired to nothing"],
    // The word-order steps: both orders' vectors ('dog' at 0 in A, by its numbers) and each
    // word's attention output in both, as the answers speak of both.
    &[
        "SAME SET OF TOKEN VECTORS",
        "-0.4015  0.9666 -1.1481",
        "0 bit for bit",
    ],
    &[
        "DIFFERENT INPUT VECTORS",
        "-2.5352  2.0189 -1.5366",
        // 'man' at 0 in B: its output there, and Δ, how far it is from its output in A.
        "0 -0.0989 -0.1625  0.2964  0.72",
    ],
    &["RoPE adds nothing to the embeddings"],
    &["Lookups · token + learned position"],
];

#[test]
fn every_lesson_step_before_and_after_its_answer_at_80_by_24_and_200_by_60() {
    let mut app = app_with("fox bites the fox");
    press(&mut app, &[KeyCode::Enter, KeyCode::Char('L')]);
    let answers = ['2', '1', '1', '2', '1', '2'];
    let sizes = [(80, 24), (200, 60)];
    for (index, answer) in answers.into_iter().enumerate() {
        let step = index + 1;
        let evidence = index
            .checked_sub(1)
            .map_or(&[][..], |before| EVIDENCE[before]);
        for (width, height) in sizes {
            // At 200×60 the picture stands beside the lesson panel.
            app.handle_event(&Event::Resize(width, height));
            let terminal = draw(&app, width, height);
            let text = screen_text(&terminal);
            assert!(text.contains(&format!("step {step} of 7")), "{text}");
            assert!(!text.contains("✔ Right"), "{text}");
            if step > 1 {
                assert!(text.contains("Hidden until you guess"), "{text}");
                for line in evidence {
                    assert!(!text.contains(line), "{line} before the answer:\n{text}");
                }
                if width == 200 {
                    assert!(text.contains("Picture · hidden until you answer"), "{text}");
                }
                assert_snapshot!(
                    format!("lesson_step_{step}_before_{width}x{height}_pane"),
                    pane(&terminal, "Lesson")
                );
            }
        }
        press(&mut app, &[KeyCode::Char(answer)]);
        for (width, height) in sizes {
            // At 200×60 the picture stands beside the lesson panel.
            app.handle_event(&Event::Resize(width, height));
            let terminal = draw(&app, width, height);
            let text = screen_text(&terminal);
            assert!(text.contains("✔ Right"), "step {step}:\n{text}");
            // Step 1's answer must not show step 2's: the copies' single dot.
            assert!(step > 1 || !text.contains("one dot"), "{text}");
            for line in evidence {
                assert!(text.contains(line), "step {step}: {line}:\n{text}");
            }
            if width == 200 && step > 1 {
                assert!(text.contains("╭ Picture · token"), "{text}");
            }
            // One whole screen of the lesson at 200×60; the other steps' lesson panes.
            if (step, width) == (2, 200) {
                assert_snapshot!("lesson_step_2_after_200x60", terminal.backend());
            } else if step > 1 {
                assert_snapshot!(
                    format!("lesson_step_{step}_after_{width}x{height}_pane"),
                    pane(&terminal, "Lesson")
                );
            }
        }
        press(&mut app, &[KeyCode::Enter]);
    }
    for (width, height) in sizes {
        app.handle_event(&Event::Resize(width, height));
        let terminal = draw(&app, width, height);
        let text = screen_text(&terminal);
        assert!(text.contains("step 7 of 7"), "{text}");
        for line in EVIDENCE[5] {
            assert!(text.contains(line), "step 7: {line}:\n{text}");
        }
        // The last step's Enter ends the lesson, and the help bar says so.
        let bar = screen_row(&terminal, height - 1);
        assert!(
            bar.contains("Enter finish") && !bar.contains("next"),
            "{bar}"
        );
        assert_snapshot!(
            format!("lesson_step_7_{width}x{height}_pane"),
            pane(&terminal, "Lesson")
        );
    }
}

/// The lesson at 80×24, each question answered wrong until step `last`, where the wrong
/// answer stays on screen.
fn lesson_wrong_at(last: usize) -> App {
    let mut app = app_with("fox bites the fox");
    app.handle_event(&Event::Resize(80, 24));
    press(&mut app, &[KeyCode::Enter, KeyCode::Char('L')]);
    for step in 1..=last {
        let progress = app.lesson().expect("the lesson runs");
        assert_eq!(progress.step + 1, step);
        let wrong = if progress.content().answer == 1 {
            '2'
        } else {
            '1'
        };
        press(&mut app, &[KeyCode::Char(wrong)]);
        if step < last {
            press(&mut app, &[KeyCode::Enter]);
        }
    }
    app
}

#[test]
fn lesson_steps_3_and_6_after_a_wrong_answer_fit_80_by_24() {
    let app = lesson_wrong_at(3);
    let terminal = draw(&app, 80, 24);
    let text = screen_text(&terminal);
    assert!(text.contains("✘ Not quite"), "{text}");
    // Both copies of the repeated word, read from one row, and the layer's name whole.
    assert!(text.contains("fox ×2 → row 2"), "{text}");
    assert!(text.contains("[ Embedding(6, 3) ]"), "{text}");
    assert!(text.contains("Euclidean distance 0.0000"), "{text}");
    assert_snapshot!("lesson_step_3_wrong_80x24_pane", pane(&terminal, "Lesson"));

    let app = lesson_wrong_at(6);
    let terminal = draw(&app, 80, 24);
    let text = screen_text(&terminal);
    assert!(
        text.contains("✘ Not quite: the panes above show why"),
        "{text}"
    );
    // No room for both copies' vectors before and after their turns: the claims that they
    // stay identical in the embeddings and differ once turned are left out rather than said
    // without them.
    assert!(!text.contains("before rotation"), "{text}");
    assert!(!text.contains("copies stay identical"), "{text}");
    assert_snapshot!("lesson_step_6_wrong_80x24_pane", pane(&terminal, "Lesson"));

    // At 120×40 the wrong answer's panel is too tall for its rows with the copies' vectors:
    // they give way, with the claim they bear out, and the panel's last line is not cut.
    let mut app = lesson_wrong_at(6);
    app.handle_event(&Event::Resize(120, 40));
    let lesson = pane_prose(&draw(&app, 120, 40), "Lesson");
    assert!(lesson.contains("✘ Not quite"), "{lesson}");
    assert!(!lesson.contains("copies stay identical"), "{lesson}");
    assert!(!lesson.contains("before rotation"), "{lesson}");
    assert!(lesson.contains("Esc leaves"), "{lesson}");
}

#[test]
fn lesson_step_4_after_a_wrong_answer_keeps_both_orders_vectors_and_outputs_at_80_by_24() {
    // The wrong answer shows two choices, so the panel takes a row more than the right one's:
    // the compare pane above must still hold both orders' vectors and outputs, which the
    // reveal speaks of ("the same vector in both orders", "the same output in both").
    let app = lesson_wrong_at(4);
    let terminal = draw(&app, 80, 24);
    let text = screen_text(&terminal);
    assert!(
        text.contains("✘ Not quite: the panes above show why"),
        "{text}"
    );
    for line in EVIDENCE[2] {
        assert!(text.contains(line), "{line}:\n{text}");
    }
    let lesson = pane_prose(&terminal, "Lesson");
    assert!(
        lesson.contains("Every word brings the same vector in both orders: one set"),
        "{lesson}"
    );
    assert!(lesson.contains("cannot tell who bit whom."), "{lesson}");
}

#[test]
fn the_help_bar_offers_only_the_lesson_keys_that_work_now() {
    let mut app = lesson_wrong_at(1);
    // Answered: Enter moves on, and nothing offers an answer again.
    let bar = |app: &App| {
        let text = screen_text(&draw(app, 80, 24));
        text.lines().nth(23).unwrap_or_default().to_owned()
    };
    let answered = bar(&app);
    assert!(answered.contains("Enter next"), "{answered}");
    assert!(!answered.contains("1/2 answer"), "{answered}");
    assert!(
        !answered.contains("← back"),
        "the first step has no step before: {answered}"
    );
    press(&mut app, &[KeyCode::Enter]);
    let asking = bar(&app);
    assert!(asking.contains("1/2 answer"), "{asking}");
    assert!(
        !asking.contains("Enter next"),
        "Enter waits for an answer: {asking}"
    );
    assert!(asking.contains("← back"), "{asking}");
}

#[test]
fn nothing_marks_the_repeated_word_before_its_step_is_answered() {
    let app = lesson_wrong_at(1);
    let text = screen_text(&draw(&app, 120, 40));
    assert!(!text.contains("◇"), "no copy marker: {text}");
    assert!(!text.contains("•"), "no marked rows to count: {text}");
    assert!(
        text.contains("0 fox #2  1 bites #…  2 the #…  3 fox #…"),
        "only the current token's id: {text}"
    );
}

#[test]
fn a_lesson_started_on_an_empty_sentence_shows_a_sentence_of_its_own() {
    let mut app = app_with("fox bites the fox");
    press_ctrl(&mut app, 'u');
    press(
        &mut app,
        &[KeyCode::Enter, KeyCode::Char('L'), KeyCode::Char('2')],
    );
    let text = screen_text(&draw(&app, 80, 24));
    assert!(
        text.contains("✔ Right, and the panes above show it"),
        "{text}"
    );
    assert!(
        text.contains("one-hot("),
        "the pane shows the product: {text}"
    );
    press(&mut app, &[KeyCode::Esc]);
    assert_eq!(app.text(), "", "the learner's empty sentence comes back");
}
