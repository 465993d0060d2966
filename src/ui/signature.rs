//! What the embedding layer takes in: ids go in, rows of the weight matrix come out, and
//! position is wired to nothing. The lesson's third step shows it beside the matrix.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Wrap;

use super::pane::{Pane, TextPane};
use super::text::fit;
use super::vector::format_value;
use crate::core::tables::weights::TokenLookup;
use crate::hit_map::HitMap;
use crate::theme::Theme;

/// Tokens the picture lists at the most; the rest are counted.
const LISTED: usize = 6;

/// What the pane reads: the sentence's lookups and the weight matrix's shape.
pub(super) struct Signature<'a> {
    /// The lookups, in sentence order.
    pub(super) lookups: &'a [TokenLookup],
    /// The weight matrix's rows and columns.
    pub(super) shape: (usize, usize),
    /// The styles in use.
    pub(super) theme: Theme,
}

/// The pane at a width: what the layer takes in, wrapped as drawn, and a shorter form of it
/// for fewer rows.
pub(super) struct SignaturePane {
    full: TextPane<'static>,
    /// The same with the signature beside the positions, so every row still fits.
    compact: TextPane<'static>,
}

/// The pane at a width: what the layer takes in, wrapped as drawn.
pub(super) fn build(signature: &Signature, width: u16) -> SignaturePane {
    let pane = |compact: bool| {
        let block = super::frame::pane(" What the layer takes in ", false, signature.theme);
        let lines = lines(signature, width.saturating_sub(2), compact);
        TextPane::new(block, lines, Some(Wrap { trim: false }), width)
    };
    SignaturePane {
        full: pane(false),
        compact: pane(true),
    }
}

impl Pane for SignaturePane {
    fn height(&self) -> usize {
        self.full.height()
    }

    /// The lesson's sentence points at every row that comes out: the pane keeps them all
    /// before the layout takes rows from it.
    fn least_height(&self) -> usize {
        self.compact.height()
    }

    fn render(&self, area: Rect, buf: &mut Buffer, hits: &mut HitMap) {
        if usize::from(area.height) >= self.full.height() {
            self.full.render(area, buf, hits);
        } else {
            self.compact.render(area, buf, hits);
        }
    }
}

/// The pane's lines at a width; `compact` puts the short signature at the end of the
/// positions' line when it fits there, a line fewer.
fn lines(signature: &Signature, width: u16, compact: bool) -> Vec<Line<'static>> {
    let Signature {
        lookups,
        shape: (rows, dims),
        theme,
    } = *signature;
    let ids: Vec<String> = lookups
        .iter()
        .take(LISTED)
        .map(|lookup| {
            lookup
                .token
                .id
                .map_or_else(|| "?".to_owned(), |id| id.to_string())
        })
        .collect();
    let positions: Vec<String> = lookups
        .iter()
        .take(LISTED)
        .map(|lookup| lookup.token.position.to_string())
        .collect();
    let more = if lookups.len() > LISTED { " …" } else { "" };
    let layer = format!("Embedding({rows}, {dims})");
    let ids_line = Line::from(vec![
        Span::styled("ids       ", theme.muted()),
        Span::styled(format!("{}{more}", ids.join(" ")), theme.key()),
        Span::raw(" ──▶ "),
        Span::styled(format!("[ {layer} ]"), theme.title()),
        Span::raw(" ──▶ rows"),
    ]);
    let positions_line = Line::from(vec![
        Span::styled("positions ", theme.muted()),
        Span::raw(format!("{}{more}", positions.join(" "))),
        Span::styled(" ──╳ wired to nothing", theme.warning()),
    ]);
    let signature = "forward(self, input): its only argument is the ids";
    // Narrow (80 columns, beside the matrix): the layer's name goes below the ids when it
    // does not fit beside them (never a lone `]`), and the signature shares a line with the
    // arrow to the rows.
    let narrow = ids_line.width().max(signature.len()) > usize::from(width);
    let short_signature = Span::styled("  forward(input): ids only", theme.muted());
    if compact && !narrow && positions_line.width() + short_signature.width() <= usize::from(width)
    {
        let mut positions_line = positions_line;
        positions_line.spans.push(short_signature);
        let mut lines = vec![ids_line, positions_line];
        lines.extend(row_lines(lookups, width));
        return lines;
    }
    if !narrow {
        let mut lines = vec![
            ids_line,
            positions_line,
            Line::styled(signature, theme.muted()),
        ];
        lines.extend(row_lines(lookups, width));
        return lines;
    }
    let mut ids_line = ids_line;
    ids_line.spans.truncate(4);
    let mut lines = if ids_line.width() > usize::from(width) {
        let layer_line = Line::from(vec![
            Span::raw(" ".repeat("ids       ".len())),
            ids_line.spans.remove(3),
        ]);
        vec![ids_line, layer_line, positions_line]
    } else {
        vec![ids_line, positions_line]
    };
    lines.push(Line::from(vec![
        Span::styled("forward(input): ids only", theme.muted()),
        Span::raw(" ──▶ rows:"),
    ]));
    lines.extend(row_lines(lookups, width));
    lines
}

/// The rows that come out, each distinct row once with how many tokens read it, so a short
/// pane still shows a repeated word's one row.
fn row_lines(lookups: &[TokenLookup], width: u16) -> Vec<Line<'static>> {
    let lookups: Vec<_> = lookups.iter().take(LISTED).collect();
    let mut rows: Vec<(&TokenLookup, usize)> = Vec::new();
    for lookup in &lookups {
        match rows
            .iter_mut()
            .find(|(first, _)| first.token.is_copy_of(&lookup.token))
        {
            Some((_, count)) => *count += 1,
            None => rows.push((lookup, 1)),
        }
    }
    let label = |lookup: &TokenLookup, count: usize| {
        let id = lookup
            .token
            .id
            .map_or_else(|| "?".to_owned(), |id| id.to_string());
        let times = if count > 1 {
            format!(" ×{count}")
        } else {
            String::new()
        };
        format!("{}{times} → row {id}", lookup.token.text)
    };
    // As wide as the longest label, at most 20 columns, so the values get the rest.
    let label_width = rows
        .iter()
        .map(|(lookup, count)| super::text::display_width(&label(lookup, *count)))
        .max()
        .unwrap_or(0)
        .min(20);
    let room = usize::from(width).saturating_sub(label_width + 1);
    let mut lines = Vec::new();
    for (lookup, count) in rows {
        let label = fit(&label(lookup, count), label_width);
        let values = lookup.token_vector.as_ref().map_or_else(
            || "no row".to_owned(),
            |vector| {
                let mut text = String::new();
                for value in vector {
                    let next = format_value(*value);
                    if text.len() + next.len() + 2 > room {
                        text.push_str(" …");
                        break;
                    }
                    text.push_str(&next);
                }
                text
            },
        );
        lines.push(Line::from(vec![
            Span::raw(format!("{label:<label_width$} ")),
            Span::raw(values),
        ]));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tables::positional::PositionScheme;
    use crate::core::tables::weights::{DEFAULT_SEED, EmbeddingModel};
    use crate::core::text::vocabulary::VocabKind;
    use crate::ui::pane::screen;
    use crate::ui::pane::texts;

    /// The lookups of `sentence` in `model`, without positions.
    fn lookups(model: &EmbeddingModel, sentence: &str) -> Vec<TokenLookup> {
        let tokens = model.tokenize(sentence).unwrap();
        model.embed(&tokens, PositionScheme::None)
    }

    /// What the pane reads for `lookups` of `model`.
    fn signature<'a>(model: &EmbeddingModel, lookups: &'a [TokenLookup]) -> Signature<'a> {
        Signature {
            lookups,
            shape: (model.rows(), model.dims()),
            theme: Theme::new(false),
        }
    }

    #[test]
    fn ids_go_in_and_a_repeated_words_one_row_comes_out() {
        let model = EmbeddingModel::builtin(VocabKind::Words, DEFAULT_SEED);
        let lookups = lookups(&model, "the fox saw the dog");
        let signature = signature(&model, &lookups);
        let wide = texts(&lines(&signature, 118, false));
        assert!(wide[0].starts_with("ids       "), "{wide:?}");
        assert!(
            wide[0].contains(&format!(
                "[ Embedding({}, {}) ] ──▶ rows",
                model.rows(),
                model.dims()
            )),
            "{wide:?}"
        );
        assert_eq!(wide[1], "positions 0 1 2 3 4 ──╳ wired to nothing");
        assert_eq!(
            wide[2],
            "forward(self, input): its only argument is the ids"
        );
        let the = wide
            .iter()
            .find(|line| line.starts_with("the ×2 → row"))
            .unwrap();
        assert!(the.contains(&format_value(lookups[0].token_vector.as_ref().unwrap()[0])));
        // Narrow, beside the matrix at 80 columns: the short signature leads to the rows.
        let narrow = texts(&lines(&signature, 38, false));
        assert!(
            narrow.contains(&"forward(input): ids only ──▶ rows:".to_owned()),
            "{narrow:?}"
        );
        assert!(
            narrow[1].trim_start().starts_with("[ Embedding("),
            "{narrow:?}"
        );
    }

    #[test]
    fn a_short_pane_keeps_every_row_the_lesson_points_at() {
        // The lesson's step 3 on GPT-2's tokens at 80×24 after a wrong answer: 6 rows inside.
        let model = EmbeddingModel::gpt2(DEFAULT_SEED, 8);
        let lookups = lookups(&model, "the dog bites the dog");
        let signature = signature(&model, &lookups);
        let pane = build(&signature, 80);
        assert_eq!((pane.height(), pane.least_height()), (9, 8));
        let short = screen(&pane, 80, 8);
        let text = short.join("\n");
        for row in [
            "the → row",
            "␣dog ×2 → row",
            "␣bites → row",
            "␣the → row 262",
        ] {
            assert!(
                short
                    .iter()
                    .any(|line| line.starts_with(&format!("│{row}"))),
                "{row}:\n{text}"
            );
        }
        assert!(
            short[2]
                .starts_with("│positions 0 1 2 3 4 ──╳ wired to nothing  forward(input): ids only"),
            "{text}"
        );
        // With room, the whole signature has a line of its own.
        let tall = screen(&pane, 80, 9).join("\n");
        assert!(
            tall.contains("│forward(self, input): its only argument is the ids"),
            "{tall}"
        );
        assert!(tall.contains("│␣the → row 262"), "{tall}");
    }
}
