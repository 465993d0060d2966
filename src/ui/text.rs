//! Text fitted to a pane: its width on screen as the buffer draws it, cut or padded to a
//! column, a title of parts, and words wrapped to a width. Every pane measures and wraps its
//! text here, so a sentence is measured the way it is drawn.

use ratatui::buffer::CellWidth;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The widest a token's text may be in a row label of a heat map or a list of rows (the
/// attention, similarity and one-hot panes, and the nearest rows), so their labels read alike.
pub const TOKEN_LABEL_WIDTH: usize = 10;

/// The columns text takes on screen, counted as the buffer draws it: grapheme by grapheme,
/// control characters left out.
///
/// `str::width` can disagree: it counts a control character (which is never drawn) as a
/// column, and reads some pairs of characters as one (Arabic lam-alef) that are drawn as two.
#[must_use]
pub fn display_width(text: &str) -> usize {
    Span::raw(text)
        .styled_graphemes(Style::new())
        .map(|grapheme| usize::from(grapheme.symbol.cell_width()))
        .sum()
}

/// Text cut to at most `width` columns, ending in `…` when it was longer.
///
/// Columns are counted as [`display_width`] counts them, and the text is cut between
/// graphemes, so a wide character is never cut in half and an accent stays on its letter.
/// Control characters, which are never drawn, are left out.
#[must_use]
pub fn fit(text: &str, width: usize) -> String {
    let span = Span::raw(text);
    let graphemes = span.styled_graphemes(Style::new()).map(|grapheme| {
        let columns = usize::from(grapheme.symbol.cell_width());
        (grapheme.symbol, columns)
    });
    let whole = display_width(text) <= width;
    let room = if whole {
        width
    } else {
        width.saturating_sub(1)
    };
    let mut fitted = String::new();
    let mut used = 0;
    for (symbol, columns) in graphemes {
        if used + columns > room {
            break;
        }
        fitted.push_str(symbol);
        used += columns;
    }
    if !whole && width > 0 {
        fitted.push('…');
    }
    fitted
}

/// A pane title of parts joined by ` · `: as many parts as fit `width` columns, whole, and
/// `…` where the rest were left out; the first part is cut with `…` if even it does not fit.
#[must_use]
pub fn title_of(parts: &[&str], width: usize) -> String {
    let whole = format!(" {} ", parts.join(" · "));
    if display_width(&whole) <= width {
        return whole;
    }
    for kept in (1..parts.len()).rev() {
        let title = format!(" {} · … ", parts[..kept].join(" · "));
        if display_width(&title) <= width {
            return title;
        }
    }
    fit(&whole, width)
}

/// Text padded with spaces to `width` columns (cut with `…` if longer).
#[must_use]
pub fn pad(text: &str, width: usize) -> String {
    let fitted = fit(text, width);
    let padding = width.saturating_sub(display_width(&fitted));
    format!("{fitted}{}", " ".repeat(padding))
}

/// Text right-aligned in `width` columns (cut with `…` if longer): `format!("{:>w$}")` pads
/// by characters, which puts wide or combined characters out of line.
#[must_use]
pub fn pad_left(text: &str, width: usize) -> String {
    let fitted = fit(text, width);
    let padding = width.saturating_sub(display_width(&fitted));
    format!("{}{fitted}", " ".repeat(padding))
}

/// Text broken into lines of at most `width` columns at spaces (a word longer than a line is
/// cut with [`fit`]), for findings whose height a pane must know before it draws them.
#[must_use]
pub fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let word = fit(word, width);
        if !line.is_empty() && display_width(&line) + 1 + display_width(&word) > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Text wrapped as [`wrap_words`] wraps it, each line in `style`.
#[must_use]
pub fn wrapped(text: &str, width: usize, style: Style) -> Vec<Line<'static>> {
    wrap_words(text, width)
        .into_iter()
        .map(|line| Line::styled(line, style))
        .collect()
}

/// A line cut to `width` columns, ending in `…` when it was longer (in its first span's style).
#[must_use]
pub fn fit_line(line: Line<'static>, width: usize) -> Line<'static> {
    if line.width() <= width {
        return line;
    }
    let text: String = line
        .spans
        .iter()
        .map(|span| span.content.as_ref())
        .collect();
    let style = line
        .spans
        .first()
        .map_or_else(Style::new, |span| span.style);
    Line::styled(fit(&text, width), style)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_too_long_keeps_whole_parts_and_ends_in_an_ellipsis() {
        let parts = ["Compare", "no positions", "a outputs", "c leaves"];
        assert_eq!(
            title_of(&parts, 60),
            " Compare · no positions · a outputs · c leaves "
        );
        assert_eq!(
            title_of(&parts, 40),
            " Compare · no positions · a outputs · … "
        );
        assert_eq!(title_of(&parts, 13), " Compare · … ");
        assert_eq!(title_of(&parts, 12), " Compare · …");
        assert_eq!(title_of(&parts, 6), " Comp…");
    }

    #[test]
    fn text_fits_its_column() {
        assert_eq!(fit("<|endoftext|>", 6), "<|end…");
        assert_eq!(pad("fox", 5), "fox  ");
        assert_eq!(pad("東京都", 4), "東… ");
        assert_eq!(fit("abc", 0), "");
        assert_eq!(pad_left("東京", 5), " 東京");
    }

    #[test]
    fn widths_are_counted_as_the_screen_draws_them() {
        // A combining accent takes no column and stays on its letter when the text is cut.
        assert_eq!(display_width("cafe\u{301}"), 4);
        assert_eq!(pad("cafe\u{301}", 5), "cafe\u{301} ");
        assert_eq!(fit("e\u{301}e\u{301}e", 2), "e\u{301}…");
        // A control character is never drawn, so it takes no column and is left out.
        assert_eq!(display_width("a\u{7f}b"), 2);
        assert_eq!(pad("a\u{7f}", 3), "a  ");
        // Lam and alef are drawn in a column each, though `str::width` reads them as one.
        assert_eq!(display_width("\u{644}\u{627}"), 2);
        assert_eq!(pad("\u{644}\u{627}", 3), "\u{644}\u{627} ");
        // A wide character that does not fit is left out whole, never cut in half.
        assert_eq!(fit("a東京", 3), "a…");
        assert_eq!(fit("🦊", 1), "…");
        for width in 0..8 {
            for text in ["東京は大きい", "🦊 fox", "שלום", "e\u{301}e\u{301}e\u{301}"] {
                assert!(
                    display_width(&fit(text, width)) <= width,
                    "{text:?} in {width}"
                );
                assert_eq!(
                    display_width(&pad(text, width)),
                    width,
                    "{text:?} in {width}"
                );
            }
        }
    }

    #[test]
    fn words_wrap_at_spaces() {
        assert_eq!(
            wrap_words("the dog bites the man", 9),
            ["the dog", "bites the", "man"]
        );
        assert_eq!(wrap_words("", 9), [""]);
        assert_eq!(wrap_words("unbelievable", 5), ["unbe…"]);
    }
}
