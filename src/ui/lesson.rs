//! The lesson panel: progress, the question, then what the screen shows.

use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::pane::TextPane;
use crate::action::{Action, Scope, fill_keys};
use crate::app::App;
use crate::core::analysis::layer0::Architecture;
use crate::core::explain::findings::{CompareTables, Evidence, OrderStep, RotaryStep};
use crate::lesson::{Progress, STEPS, Setup};
use crate::theme::Theme;

/// What the lesson panel reads, made in `ui.rs` for the width it is drawn at.
pub(super) struct Input {
    /// Where the learner is in the lesson.
    pub(super) progress: Progress,
    /// The architecture of the model's own layer 0, when the panes show it rather than the
    /// seeded head.
    pub(super) architecture: Option<Architecture>,
    /// The architecture of the model's own layer 0 when the panes run it and it is causal
    /// (GPT-2, Llama-style): the word-order step's outputs then differ.
    pub(super) causal_layer: Option<Architecture>,
    /// Whether the current token has a row.
    pub(super) has_row: bool,
    /// Whether compare mode is on (it brings its own pair of sentences).
    pub(super) comparing: bool,
    /// Which of compare mode's tables the pane above has room for: the word-order steps speak
    /// only of those.
    pub(super) compare_tables: CompareTables,
    /// The current token's finding: its copies and their distance.
    pub(super) finding: Option<Line<'static>>,
    /// The current word and its first copy before and after `RoPE` turns them, wrapped at
    /// the panel's inner width.
    pub(super) rope_copies: Vec<Line<'static>>,
    /// The styles in use.
    pub(super) theme: Theme,
}

/// The panel at a width: its lines wrapped as drawn. `compact` (a short terminal) leaves out
/// the question once it is answered (the answer given restates it) and the footer the help
/// bar repeats.
pub(super) fn build(input: &Input, width: u16, compact: bool) -> TextPane<'static> {
    let (title, lines) = content(input, compact);
    let block = super::frame::pane(title, true, input.theme);
    TextPane::new(block, lines, Some(Wrap { trim: true }), width)
}

/// Where each answer offered now is drawn in a panel `width` columns wide: its first row and
/// its rows inside the borders, and its number; none once the question is answered.
pub(super) fn answer_rows(input: &Input, width: u16, compact: bool) -> Vec<(u16, u16, usize)> {
    let inner = width.saturating_sub(2).max(1);
    let (_, lines) = content(input, compact);
    let progress = input.progress;
    if progress.revealed() {
        return Vec::new();
    }
    let Some(choices) = progress.content().choices else {
        return Vec::new();
    };
    let rows = |line: &Line<'static>| {
        let count = Paragraph::new(line.clone())
            .wrap(Wrap { trim: true })
            .line_count(inner);
        u16::try_from(count).unwrap_or(u16::MAX)
    };
    // Before it is answered the question comes first, then one line an answer.
    let mut row = rows(&lines[0]);
    let mut answers = Vec::new();
    for (number, line) in (1..=choices.len()).zip(&lines[1..]) {
        let height = rows(line);
        answers.push((row, height, number));
        row = row.saturating_add(height);
    }
    answers
}

/// The panel's title and lines, built once for measuring and drawing alike.
fn content(input: &Input, compact: bool) -> (String, Vec<Line<'static>>) {
    let Input {
        progress, theme, ..
    } = *input;
    let step = progress.content();
    let dots: String = (0..STEPS.len())
        .map(|index| match index.cmp(&progress.step) {
            std::cmp::Ordering::Less => '●',
            std::cmp::Ordering::Equal => '◉',
            std::cmp::Ordering::Greater => '○',
        })
        .collect();
    let title = format!(
        " Lesson · step {} of {} {dots} · {} ",
        progress.step + 1,
        STEPS.len(),
        step.title
    );
    let mut lines = Vec::new();
    if !(compact && progress.revealed() && step.choices.is_some()) {
        lines.push(Line::styled(fill_keys(step.question), theme.title()));
    }
    if let Some(choices) = step.choices {
        for (number, choice) in (1..).zip(choices) {
            let chosen = progress.answered == Some(number);
            let right = progress.revealed() && number == step.answer;
            // Once answered, only the answer given and the right one stay: the footer fits.
            if progress.revealed() && !chosen && !right {
                continue;
            }
            let marker = match (chosen, right) {
                (true, true) => "✔ ",
                (true, false) => "✘ ",
                (false, true) => "→ ",
                (false, false) => "  ",
            };
            let style = if right {
                theme.finding()
            } else if chosen {
                theme.warning()
            } else {
                theme.key()
            };
            lines.push(Line::from(vec![
                Span::styled(format!("{marker}{number}) "), style),
                Span::styled(choice, style),
            ]));
        }
    }
    if progress.revealed() {
        lines.extend(reveal_lines(input, compact));
        // Going back is offered only where there is a step before.
        let next = match (progress.is_last(), progress.step > 0) {
            (true, _) => fill_keys(
                "{Lesson:LessonNext} finishes the lesson · {Lesson:LessonBack} back · {Lesson:ToggleLesson} leaves",
            ),
            (false, true) => fill_keys(
                "{Lesson:LessonNext}: next step · {Lesson:LessonBack} back · {Lesson:ToggleLesson} leaves ({ToggleLesson} resumes here)",
            ),
            (false, false) => fill_keys(
                "{Lesson:LessonNext}: next step · {Lesson:ToggleLesson} leaves ({ToggleLesson} resumes here)",
            ),
        };
        // Compact, the help bar below already names these keys.
        if !compact {
            lines.push(Line::styled(next, theme.muted()));
        }
    } else {
        lines.push(Line::styled(
            fill_keys(
                "Guess first: press {Lesson:Answer(1)} or {Lesson:Answer(2)}. The panes show the answer after you choose.",
            ),
            theme.muted(),
        ));
    }
    (title, lines)
}

/// What a step shows once answered: the verdict and the reveal, then the evidence the panes
/// hold for it (`RoPE`'s copies with their vectors only when the panel is not `compact` and
/// has them: on a short terminal there is no room for the vectors that bear the claim out, and
/// the claim gives way with them).
fn reveal_lines(input: &Input, compact: bool) -> Vec<Line<'static>> {
    let Input {
        progress, theme, ..
    } = *input;
    let step = progress.content();
    let mut lines = Vec::new();
    // Right and wrong differ in marker and in colour, so neither depends on colour alone.
    let rotary = RotaryStep::of(input.architecture);
    let verdict = progress.answered.map(|answer| {
        let right = answer == step.answer;
        let text = evidence(input, step.setup, rotary).verdict(right);
        Span::styled(
            text,
            if right {
                theme.finding()
            } else {
                theme.warning()
            },
        )
    });
    // The copies' vectors before and after rotation go in the panel only when it has the rows.
    let copies = rotary.panes_show_it() && !compact && !input.rope_copies.is_empty();
    let reveal = match step.setup {
        Setup::InsideAttention => rotary.reveal(copies),
        Setup::WordOrder => OrderStep::of(input.causal_layer).reveal(input.compare_tables),
        Setup::PositionsAdded => OrderStep::positions_reveal(input.compare_tables),
        _ => fill_keys(step.reveal),
    };
    lines.push(Line::from(
        verdict
            .into_iter()
            .chain([Span::raw(reveal)])
            .collect::<Vec<_>>(),
    ));
    // The copies' distance answers the repeated-word step; before it, it would give
    // that answer away.
    // On the RoPE step the evidence is the copies before and after rotation.
    if step.setup == Setup::InsideAttention {
        if copies {
            lines.extend(input.rope_copies.iter().cloned());
        }
    } else if !input.comparing
        && step.setup != Setup::RowLookup
        && let Some(finding) = &input.finding
    {
        lines.push(finding.clone());
    }
    lines
}

/// Whether the panes a step reveals hold what its answer speaks of.
fn evidence(input: &Input, setup: Setup, rotary: RotaryStep) -> Evidence {
    match setup {
        // Compare mode brings its own pair of sentences; the answer is in their vectors.
        Setup::WordOrder | Setup::PositionsAdded if input.compare_tables.vectors => Evidence::Shown,
        Setup::WordOrder | Setup::PositionsAdded => Evidence::Elsewhere,
        _ if !input.has_row => Evidence::NoSentence,
        Setup::InsideAttention if !rotary.panes_show_it() => Evidence::Elsewhere,
        _ => Evidence::Shown,
    }
}

/// Whether the lesson's key for `action` does something now, so the help bar may offer it:
/// the answer keys only while a question waits, the next step only once it is answered,
/// going back only after the first step. Other actions are not the lesson's to judge.
pub(super) fn works_now(app: &App, action: &Action) -> bool {
    let Some(progress) = app.lesson() else {
        return true;
    };
    match action {
        Action::Answer(_) => !progress.revealed(),
        Action::LessonNext => progress.revealed(),
        Action::LessonBack => progress.step > 0,
        _ => true,
    }
}

/// Where the keys a pane's hint names must work: in the lesson, its own keys (it has no `p`);
/// else the explorer's, which the typing screen is one key from.
pub(crate) fn hint_scope(app: &App) -> Scope {
    if app.lesson().is_some() {
        Scope::Lesson
    } else {
        Scope::Explorer
    }
}

/// Whether marks that show a repeated word's copies would answer a lesson question not yet
/// answered (see [`crate::lesson::Progress::hides_copies`]).
pub(crate) fn hides_copies(app: &App) -> bool {
    app.lesson().is_some_and(|progress| progress.hides_copies())
}

/// Whether a lesson question waits for its answer: then nothing on screen may give the answer
/// away (ids, copy marks, marked rows, distances).
pub(super) fn hides_answers(app: &App) -> bool {
    app.lesson().is_some_and(|progress| !progress.revealed())
}

/// Whether the lesson's "no input for position" step is showing its answer: then the pane
/// beside the matrix draws what the layer takes in.
pub(super) fn shows_signature(app: &App) -> bool {
    app.lesson().is_some_and(|progress| {
        progress.revealed() && progress.content().setup == Setup::NoPositionInput
    })
}

/// Whether the lesson's step on position inside attention is showing its answer: then the
/// attention pane takes the whole body, as the matrix is not what the step is about.
pub(super) fn attention_alone(app: &App) -> bool {
    app.lesson().is_some_and(|progress| {
        progress.revealed() && progress.content().setup == Setup::InsideAttention
    })
}

/// Whether the picture of the sentence's vectors may stand beside the lesson panel: not in
/// the first step, where its one dot for both copies would answer the second step's question.
pub(super) fn picture_may_show(app: &App) -> bool {
    app.lesson()
        .is_some_and(|progress| progress.content().setup != Setup::RowLookup)
}

/// Stands in for the pane that would give the answer away before the learner guesses.
pub(super) fn guess_first(theme: Theme, width: u16) -> TextPane<'static> {
    let text = vec![
        Line::styled(
            fill_keys("Make your guess below first ({Lesson:Answer(1)} or {Lesson:Answer(2)})."),
            theme.title(),
        ),
        Line::styled(
            "This pane shows the answer once you have chosen.",
            theme.muted(),
        ),
    ];
    let block = super::frame::pane(" Hidden until you guess ", false, theme);
    TextPane::new(block, text, Some(Wrap { trim: true }), width)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::pane::screen;
    use ratatui::text::Line;

    fn at(step: usize, answered: Option<usize>) -> Input {
        Input {
            progress: Progress { step, answered },
            architecture: None,
            causal_layer: None,
            has_row: true,
            comparing: false,
            compare_tables: CompareTables::BOTH,
            finding: Some(Line::raw(
                "fox at 0 and 3: same row 2, Euclidean distance 0.0000",
            )),
            rope_copies: Vec::new(),
            theme: Theme::new(false),
        }
    }

    #[test]
    fn a_question_offers_its_answers_where_a_click_finds_them() {
        let input = at(1, None);
        let text = screen(&build(&input, 80, false), 80, 10).join("\n");
        assert!(
            text.contains("Lesson · step 2 of 7 ●◉○○○○○ · The repeated word"),
            "{text}"
        );
        assert!(text.contains("1) the same vector both times"), "{text}");
        assert!(text.contains("Guess first: press 1 or 2."), "{text}");
        // The question wraps to two rows; the answers take a row each below it.
        assert_eq!(answer_rows(&input, 80, false), [(2, 1, 1), (3, 1, 2)]);
        assert!(
            !text.contains("Euclidean distance"),
            "the finding would answer it: {text}"
        );
    }

    #[test]
    fn an_answer_shows_the_verdict_the_reveal_and_the_finding_it_rests_on() {
        let input = at(1, Some(2));
        let text = screen(&build(&input, 80, false), 80, 14).join("\n");
        assert!(text.contains("✘ 2) a different vector each time"), "{text}");
        assert!(text.contains("→ 1) the same vector both times"), "{text}");
        assert!(text.contains("Same id, same row, same vector"), "{text}");
        assert!(
            text.contains("same row 2, Euclidean distance 0.0000"),
            "{text}"
        );
        assert!(answer_rows(&input, 80, false).is_empty());
        // Compact, the question and the footer the help bar repeats are left out.
        let compact = screen(&build(&input, 80, true), 80, 14).join("\n");
        assert!(!compact.contains("Do its two lookups"), "{compact}");
        assert!(!compact.contains("next step"), "{compact}");
    }

    #[test]
    fn the_last_step_says_enter_finishes_the_lesson() {
        let input = at(STEPS.len() - 1, None);
        let text = screen(&build(&input, 100, false), 100, 12).join("\n");
        assert!(text.contains("Enter finishes the lesson"), "{text}");
        assert!(!text.contains("next step"), "{text}");
    }
}
