//! Compare mode's findings: which sentences the pane says, in which order, and which give way
//! when the pane is short of rows.

use ndarray::ArrayView1;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::Input;
use crate::action::fill_keys;
use crate::core::analysis::compare::{Comparison, Wording};
use crate::core::explain::claim::Verdict;
use crate::core::explain::findings::CompareTables;
use crate::core::explain::layer0::OwnPositions;
use crate::core::explain::verdict::VectorMatch;
use crate::theme::Theme;
use crate::ui::compare_outputs::OutputsTable;
use crate::ui::room::Room;
use crate::ui::text::{fit, wrap_words};

/// How much a finding matters when not all fit: lower first.
pub(super) type Priority = u8;

/// From this priority on a finding explains rather than claims (the causes, the legend): one
/// may be shown cut short in rows that would stand empty.
pub(super) const EXPLANATION: Priority = 5;

/// Which table on the pane holds a finding's numbers: a finding is said only while they are
/// on screen, and some are said only while they are not (a pointer to the key that shows
/// them), so no sentence claims what the learner cannot check beside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Evidence {
    /// Its numbers are in the sentence itself, or it explains rather than claims.
    InItself,
    /// The vectors' columns (the token vectors, or the input vectors while positions are on).
    Vectors,
    /// The outputs table.
    Outputs,
    /// Said in place of a vectors finding while the vectors are not on screen.
    NoVectors,
    /// Said in place of an outputs finding while the outputs are not on screen.
    NoOutputs,
}

impl Evidence {
    /// Whether a finding with this evidence is said while `tables` are drawn.
    pub(super) fn shown(self, tables: CompareTables) -> bool {
        match self {
            Self::InItself => true,
            Self::Vectors => tables.vectors,
            Self::Outputs => tables.outputs,
            Self::NoVectors => !tables.vectors,
            Self::NoOutputs => !tables.outputs,
        }
    }
}

/// The findings in reading order, each with its priority and where its numbers are: the badge
/// and what was left out, then attention's verdict (what the lesson's word-order steps point
/// at), the input and token vectors, any words looked up under different ids, the mean, and
/// last the explanations.
pub(super) fn prioritised_summary(
    input: &Input,
    comparison: &Comparison,
) -> Vec<(Priority, Line<'static>, Evidence)> {
    let theme = input.theme;
    let verdicts = &comparison.verdicts;
    let different = theme.warning().add_modifier(Modifier::REVERSED);
    let (badge, style) = match verdicts.same_input_vectors {
        Some(true) => (" = SAME SET OF INPUT VECTORS ", theme.current()),
        Some(false) => (" ≠ DIFFERENT INPUT VECTORS ", different),
        None if verdicts.same_token_vectors => (" = SAME SET OF TOKEN VECTORS ", theme.current()),
        None => (" ≠ DIFFERENT TOKEN VECTORS ", different),
    };
    let wording_style = if matches!(
        verdicts.wording,
        Wording::DifferentWords | Wording::SameWordsOtherTokens
    ) {
        theme.warning()
    } else {
        Style::new()
    };
    let wording = Span::styled(verdicts.wording_sentence(), wording_style);
    // The badge speaks of the vectors; without them on screen the wording stands alone (its
    // tokens are in the outputs table).
    let mut lines = vec![
        (
            0,
            Line::from(vec![
                Span::styled(badge, style),
                Span::raw(" "),
                wording.clone(),
            ]),
            Evidence::Vectors,
        ),
        (0, Line::from(wording), Evidence::NoVectors),
    ];
    if let Some(note) = comparison.left_out_note() {
        lines.insert(
            0,
            (0, Line::styled(note, theme.warning()), Evidence::InItself),
        );
    }
    // The token vectors are the columns while positions are off; once they are on, the
    // columns hold the input vectors, and the token vectors' claim would have no numbers.
    if verdicts.same_input_vectors.is_none() {
        lines.push((3, Line::raw(verdicts.token_sentence()), Evidence::Vectors));
    }
    if let Some(sentence) = verdicts.input_sentence(comparison.scheme) {
        lines.push((2, Line::raw(sentence), Evidence::Vectors));
    }
    let seeded = input.layer0.is_none();
    let (verdict, evidence) = real_layer_line(input).unwrap_or_else(|| {
        let attention_style = if verdicts.attention.is_identical() {
            theme.finding()
        } else {
            theme.warning()
        };
        (
            Line::styled(verdicts.attention_sentence(), attention_style),
            Evidence::Outputs,
        )
    });
    lines.push((1, verdict, evidence));
    if evidence == Evidence::Outputs && input.keys {
        lines.push((1, outputs_pointer(seeded, theme), Evidence::NoOutputs));
    }
    if let Some(legend) = legend(comparison) {
        lines.push((6, Line::styled(legend, theme.muted()), Evidence::Vectors));
    }
    lines.push((
        6,
        Line::styled(OutputsTable::legend(), theme.muted()),
        Evidence::Outputs,
    ));
    // The causes explain the seeded head's outputs; the model's own verdict says its own.
    for cause in verdicts.causes.iter().filter(|_| seeded) {
        lines.push((
            5,
            Line::styled(cause.to_string(), theme.muted()),
            Evidence::InItself,
        ));
    }
    for difference in &comparison.id_differences {
        lines.push((
            2,
            Line::styled(difference.clone(), theme.warning()),
            Evidence::InItself,
        ));
    }
    lines.push((4, mean_line(comparison, theme), Evidence::InItself));
    lines
}

/// The mean token vectors of A and B, and whether they are equal: both means always, since a
/// claim that they are equal shows both.
fn mean_line(comparison: &Comparison, theme: Theme) -> Line<'static> {
    let [a, b] = &comparison.sentences;
    let (mean, values) = match comparison.mean_match() {
        VectorMatch::NotNumbers => (
            Span::styled(
                "are not comparable: they hold non-numbers (NaN or infinity)",
                theme.warning(),
            ),
            String::new(),
        ),
        found => {
            let said = match found {
                VectorMatch::Identical => Span::styled("are identical", theme.finding()),
                found => Span::styled(format!("differ {}", found.extent()), theme.warning()),
            };
            (
                said,
                format!(
                    " (A {}; B {})",
                    preview(a.mean_token_vector.view()),
                    preview(b.mean_token_vector.view())
                ),
            )
        }
    };
    Line::from(vec![
        Span::raw("Mean token vector (a summary that ignores order): A and B "),
        mean,
        Span::raw(values),
    ])
}

/// Where each word's attention output is, while the pane shows only the vectors.
fn outputs_pointer(seeded: bool, theme: Theme) -> Line<'static> {
    let text = if seeded {
        "Attention outputs: {ShowDetail(Attention)} shows each word's output in A and in B, \
         below these vectors when both fit."
    } else {
        "The model's own layer 0: {ShowDetail(Attention)} shows each word's output in A and in \
         B, below these vectors when both fit ({PreviousHead} {NextHead} choose a head)."
    };
    Line::styled(fill_keys(text), theme.muted())
}

/// The model's own layer 0 on both sentences, when the model has one: its verdict, computed
/// in `core::explain::claim` (its numbers are the outputs table's), or what stands in for it.
fn real_layer_line(input: &Input) -> Option<(Line<'static>, Evidence)> {
    let theme = input.theme;
    let (layer, pair) = input.layer0?;
    let (text, style, evidence) = match pair {
        None => (
            "The model's own layer 0: computing both sentences…".to_owned(),
            theme.muted(),
            Evidence::InItself,
        ),
        Some(Err(why)) => (
            format!("The model's own layer 0 cannot run on these sentences: {why}."),
            theme.warning(),
            Evidence::InItself,
        ),
        Some(Ok(real)) => {
            let style = if real.judgement.verdict == Verdict::Identical {
                theme.finding()
            } else {
                theme.warning()
            };
            let sentence = real.sentence();
            let mut chars = sentence.chars();
            let capital: String = chars
                .next()
                .into_iter()
                .flat_map(char::to_uppercase)
                .collect();
            let note = OwnPositions::of(layer.rope().is_some(), input.scheme, input.overlay)
                .map(|own| format!(" {}", fill_keys(&own.sentence())))
                .unwrap_or_default();
            (
                format!(
                    "{capital}{} (the {} layer's {} heads).{note}",
                    chars.as_str(),
                    layer.architecture(),
                    layer.heads()
                ),
                style,
                Evidence::Outputs,
            )
        }
    };
    Some((Line::styled(text, style), evidence))
}

/// What a label such as `B2` and the `=`/`≠` marks mean, said once with a real example.
fn legend(comparison: &Comparison) -> Option<String> {
    let &(i, j) = comparison.links.first()?;
    let word = &comparison.sentences[0].lookups[i].token.text;
    let shown = if comparison.verdicts.same_input_vectors.is_some() {
        "input vector"
    } else {
        "vector"
    };
    Some(format!(
        "B{j} beside '{word}': the same token is at {j} in B; = the {shown} there is the same, \
         ≠ it differs or has no partner."
    ))
}

/// The first few values of a vector, for a line of prose.
fn preview(vector: ArrayView1<f32>) -> String {
    let shown: Vec<String> = vector
        .iter()
        .take(4)
        .map(|value| format!("{value:.4}"))
        .collect();
    let more = if vector.len() > 4 { " …" } else { "" };
    format!("{}{more}", shown.join(" "))
}

/// The findings that fit in `area`: all of them when they fit; else the most important ones
/// (by priority, then reading order), shown in reading order, and a last row that says how
/// many are left out rather than cutting them silently. Rows the findings kept whole leave
/// over go to the most important explanation left out (never a claim, whose numbers would
/// be cut off), its beginning cut short with `…`, so no row stands empty while it waits for a
/// taller terminal.
pub(super) fn fitted(
    lines: &[(Priority, &Line<'static>, usize)],
    area: Rect,
    style: Style,
) -> Vec<Line<'static>> {
    let height = usize::from(area.height);
    if lines.iter().map(|(_, _, rows)| rows).sum::<usize>() <= height {
        return lines.iter().map(|(_, line, _)| (*line).clone()).collect();
    }
    // One row is kept for the note; a finding that does not fit whole is left out whole.
    let pieces: Vec<(Priority, usize)> = lines
        .iter()
        .map(|(priority, _, rows)| (*priority, *rows))
        .collect();
    let mut room = Room::new(height.saturating_sub(1));
    let keep = room.by_priority(&pieces);
    let cut = (room.left() > 0)
        .then(|| {
            (0..lines.len())
                .filter(|&index| !keep[index] && lines[index].0 >= EXPLANATION)
                .min_by_key(|&index| (lines[index].0, index))
        })
        .flatten();
    let mut kept: Vec<Line<'static>> = Vec::new();
    for (index, (_, line, _)) in lines.iter().enumerate() {
        if keep[index] {
            kept.push((*line).clone());
        } else if Some(index) == cut {
            kept.extend(cut_short(line, usize::from(area.width), room.left()));
        }
    }
    let left_out =
        lines.len() - keep.iter().filter(|&&keep| keep).count() - usize::from(cut.is_some());
    let note = match (left_out, cut.is_some()) {
        (0, _) => "▼ the rest of that finding: a taller terminal shows it".to_owned(),
        (1, false) => "▼ 1 more finding: a taller terminal shows it".to_owned(),
        (count, false) => format!("▼ {count} more findings: a taller terminal shows them"),
        (1, true) => "▼ the rest, and 1 more finding: a taller terminal shows them".to_owned(),
        (count, true) => {
            format!("▼ the rest, and {count} more findings: a taller terminal shows them")
        }
    };
    kept.push(Line::styled(note, style));
    kept
}

/// A finding's first `rows` rows wrapped at `width`, the last ending in `…`, in the style of
/// its first words.
fn cut_short(line: &Line<'static>, width: usize, rows: usize) -> Vec<Line<'static>> {
    let style = line
        .spans
        .first()
        .map_or(line.style, |span| line.style.patch(span.style));
    // Two columns kept for the mark, so the last row is not cut mid-word.
    let mut wrapped = wrap_words(&line.to_string(), width.saturating_sub(2));
    wrapped.truncate(rows);
    if let Some(last) = wrapped.last_mut() {
        *last = fit(&format!("{last} …"), width);
    }
    wrapped
        .into_iter()
        .map(|text| Line::styled(text, style))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_means_are_shown_both_as_the_claim_says() {
        use crate::core::analysis::attention::Mask;
        use crate::core::analysis::compare::{DEFAULT_PAIR_SEED, compare};
        use crate::core::tables::positional::PositionScheme;
        use crate::core::tables::weights::{DEFAULT_SEED, EmbeddingModel};
        use crate::core::text::vocabulary::VocabKind;

        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        let (a, b) = DEFAULT_PAIR_SEED;
        let comparison =
            compare(&model, a, b, PositionScheme::None, Mask::None, DEFAULT_SEED).unwrap();
        assert_eq!(comparison.mean_match(), VectorMatch::Identical);
        let [a, b] = &comparison.sentences;
        let (a, b) = (
            preview(a.mean_token_vector.view()),
            preview(b.mean_token_vector.view()),
        );
        let line = mean_line(&comparison, Theme::new(false)).to_string();
        assert!(
            line.ends_with(&format!("A and B are identical (A {a}; B {b})")),
            "{line}"
        );
    }

    /// The findings as the pane hands them to [`fitted`]: borrowed.
    fn borrowed<'a>(
        findings: &'a [(Priority, Line<'static>, usize)],
    ) -> Vec<(Priority, &'a Line<'static>, usize)> {
        findings
            .iter()
            .map(|(priority, line, rows)| (*priority, line, *rows))
            .collect()
    }

    #[test]
    fn a_row_the_kept_findings_leave_goes_to_an_explanation_cut_short_never_a_claim() {
        let line = |text: &str| Line::raw(text.to_owned());
        let area = Rect::new(0, 0, 30, 5);
        let findings = [
            (0, line("The badge."), 1),
            (1, line("The verdict, which takes two rows here."), 2),
            (
                EXPLANATION,
                line("Why it holds, said in two rows at least."),
                2,
            ),
            (
                EXPLANATION + 1,
                line("What the marks mean, in two rows too."),
                2,
            ),
        ];
        let shown: Vec<String> = fitted(&borrowed(&findings), area, Style::new())
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(shown.len(), 4, "{shown:?}");
        assert_eq!(shown[2], "Why it holds, said in two …");
        assert_eq!(
            shown[3],
            "▼ the rest, and 1 more finding: a taller terminal shows them"
        );
        // A claim is left out whole: its numbers could be in the part cut off.
        let claims = [
            (0, line("The badge."), 1),
            (1, line("The verdict, which takes two rows here."), 2),
            (2, line("The mean, and its numbers after the cut."), 2),
            (2, line("The inputs, and theirs after the cut."), 2),
        ];
        let shown: Vec<String> = fitted(&borrowed(&claims), area, Style::new())
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(shown.len(), 3, "{shown:?}");
        assert_eq!(shown[2], "▼ 2 more findings: a taller terminal shows them");
    }
}
