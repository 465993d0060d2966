//! Drawing shared by the panes: vectors as styled, wrapped values, and scroll windows.

use std::ops::Range;

use ndarray::ArrayView1;
use ratatui::text::Span;
use unicode_width::UnicodeWidthStr;

use crate::theme::Theme;

/// Columns one value takes: a space and `-2.8400`.
pub const VALUE_WIDTH: usize = 8;

/// A value as PyTorch prints it: four decimals, right-aligned in [`VALUE_WIDTH`] columns.
#[must_use]
pub fn format_value(value: f32) -> String {
    format!("{value:>VALUE_WIDTH$.4}")
}

/// Columns a whole vector takes on one line.
#[must_use]
pub fn vector_width(dims: usize) -> usize {
    dims * VALUE_WIDTH
}

/// A vector as lines of styled values, each line at most `width` columns (never fewer than one
/// value a line), so no digit is ever cut.
#[must_use]
pub fn vector_lines(
    values: ArrayView1<f32>,
    width: usize,
    theme: Theme,
) -> Vec<Vec<Span<'static>>> {
    let per_line = (width / VALUE_WIDTH).max(1);
    let spans: Vec<Span<'static>> = values
        .iter()
        .map(|&value| Span::styled(format_value(value), theme.value(value)))
        .collect();
    if spans.is_empty() {
        return vec![Vec::new()];
    }
    spans.chunks(per_line).map(<[Span]>::to_vec).collect()
}

/// The range of `total` items to show in `visible` slots so that `keep` stays in view, centred
/// where possible.
#[must_use]
pub fn window(total: usize, visible: usize, keep: usize) -> Range<usize> {
    if visible == 0 || total == 0 {
        return 0..0;
    }
    if total <= visible {
        return 0..total;
    }
    let start = keep.saturating_sub(visible / 2).min(total - visible);
    start..start + visible
}

/// Text cut to at most `width` columns, ending in `…` when it was longer.
#[must_use]
pub fn fit(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_owned();
    }
    let mut fitted = String::new();
    for c in text.chars() {
        if fitted.width() + c.to_string().width() + 1 > width {
            break;
        }
        fitted.push(c);
    }
    if width > 0 {
        fitted.push('…');
    }
    fitted
}

/// Text padded with spaces to `width` columns (cut with `…` if longer).
#[must_use]
pub fn pad(text: &str, width: usize) -> String {
    let fitted = fit(text, width);
    let padding = width.saturating_sub(fitted.width());
    format!("{fitted}{}", " ".repeat(padding))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::arr1;

    #[test]
    fn values_print_with_four_decimals() {
        assert_eq!(format_value(-2.839_994), " -2.8400");
        assert_eq!(format_value(1.275_301_2), "  1.2753");
    }

    #[test]
    fn vectors_wrap_without_cutting_digits() {
        let v = arr1(&[1.0f32, 2.0, 3.0, 4.0, 5.0]);
        let lines = vector_lines(v.view(), 17, Theme::new(false));
        assert_eq!(lines.iter().map(Vec::len).collect::<Vec<_>>(), [2, 2, 1]);
        let narrow = vector_lines(v.view(), 3, Theme::new(false));
        assert_eq!(narrow.len(), 5, "one value a line at the least");
    }

    #[test]
    fn windows_keep_the_item_in_view() {
        assert_eq!(window(6, 10, 3), 0..6);
        assert_eq!(window(100, 10, 50), 45..55);
        assert_eq!(window(100, 10, 99), 90..100);
        assert_eq!(window(100, 10, 0), 0..10);
        assert_eq!(window(100, 0, 5), 0..0);
    }

    #[test]
    fn text_fits_its_column() {
        assert_eq!(fit("<|endoftext|>", 6), "<|end…");
        assert_eq!(pad("fox", 5), "fox  ");
        assert_eq!(pad("東京都", 4), "東… ");
        assert_eq!(fit("abc", 0), "");
    }
}
