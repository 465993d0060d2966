//! Drawing shared by the panes: vectors as styled, wrapped values, and scroll windows (text
//! fitted to a width is in [`super::text`]).

use std::ops::Range;

use ndarray::ArrayView1;
use ratatui::text::Span;

use crate::theme::Theme;
pub use crate::view_state::{WideStyle, WideView};

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

/// Vectors with more dimensions than this are wide: a strip, or a sideways window of values.
pub const WIDE_DIMS: usize = 16;

/// Whether vectors of this width are drawn as wide vectors.
#[must_use]
pub fn is_wide(dims: usize) -> bool {
    dims > WIDE_DIMS
}

/// Positive glyphs by size: below 0.25, 0.75, 1.5, 2.5, and above.
const POSITIVE_GLYPHS: [char; 5] = ['·', '░', '▒', '▓', '█'];
/// Negative glyphs by size, a different family so the sign shows without colour.
const NEGATIVE_GLYPHS: [char; 5] = ['·', '-', '=', '≡', '■'];

/// The strip cell for a value (in units of the table's typical magnitude): a glyph whose
/// family gives the sign and whose weight the size.
#[must_use]
pub fn strip_glyph(value: f32) -> char {
    if !value.is_finite() {
        return '!';
    }
    let magnitude = value.abs();
    let level = [0.25, 0.75, 1.5, 2.5]
        .iter()
        .filter(|&&limit| magnitude >= limit)
        .count();
    if value < 0.0 {
        NEGATIVE_GLYPHS[level]
    } else {
        POSITIVE_GLYPHS[level]
    }
}

/// Dimensions per strip cell when `dims` must fit in `width` cells.
#[must_use]
pub fn dims_per_cell(dims: usize, width: usize) -> usize {
    dims.div_ceil(width.max(1)).max(1)
}

/// How many exact values fit in `width` columns.
#[must_use]
pub fn values_per_line(width: usize) -> usize {
    (width / VALUE_WIDTH).max(1)
}

/// A wide vector on one line of at most `width` columns.
#[must_use]
pub fn wide_line(
    values: ArrayView1<f32>,
    width: usize,
    style: WideStyle,
    theme: Theme,
) -> Vec<Span<'static>> {
    match style.view {
        WideView::Strip => {
            let per_cell = dims_per_cell(values.len(), width);
            let all: Vec<f32> = values.iter().copied().collect();
            all.chunks(per_cell)
                .map(|group| {
                    #[expect(clippy::cast_precision_loss, reason = "groups are small")]
                    let mean =
                        group.iter().map(|&v| f64::from(v)).sum::<f64>() / group.len() as f64;
                    #[expect(clippy::cast_possible_truncation, reason = "a display value")]
                    let relative = (mean as f32) / style.scale;
                    Span::styled(strip_glyph(relative).to_string(), theme.value(relative))
                })
                .collect()
        }
        WideView::Values => values
            .iter()
            .skip(style.first_dim)
            .take(values_per_line(width))
            .map(|&value| Span::styled(format_value(value), theme.value(value / style.scale)))
            .collect(),
    }
}

/// The typical size (root mean square) of some values, which strips are drawn relative to;
/// 1 when there are none, or all are 0.
#[must_use]
pub fn typical_size(values: impl Iterator<Item = f32>) -> f32 {
    let (sum, count) = values
        .filter(|value| value.is_finite())
        .fold((0.0f64, 0usize), |(sum, count), value| {
            (sum + f64::from(value).powi(2), count + 1)
        });
    #[expect(clippy::cast_precision_loss, reason = "a few thousand values")]
    let mean = sum / count.max(1) as f64;
    #[expect(clippy::cast_possible_truncation, reason = "a display scale")]
    let rms = mean.sqrt() as f32;
    if rms > 0.0 && rms.is_finite() {
        rms
    } else {
        1.0
    }
}

/// A line that says how to read wide vectors at a width: the strip's key, or the window shown.
#[must_use]
pub fn wide_legend(dims: usize, width: usize, style: WideStyle) -> String {
    match style.view {
        WideView::Strip => {
            let per_cell = dims_per_cell(dims, width);
            let cells = if per_cell == 1 {
                "1 cell = 1 dim".to_owned()
            } else {
                format!("1 cell = mean of {per_cell} dims")
            };
            let unit = if (style.scale - 1.0).abs() < 0.05 {
                String::new()
            } else {
                format!(" (units of the typical size {:.4})", style.scale)
            };
            format!("{cells} · ░▒▓█ positive · -=≡■ negative · · near 0{unit} · x: values")
        }
        WideView::Values => {
            let last = (style.first_dim + values_per_line(width)).min(dims);
            format!(
                "d{}–d{} of {dims} · [ ] scroll sideways · x: strip",
                style.first_dim,
                last.saturating_sub(1)
            )
        }
    }
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

/// The heat-map cell for a similarity in [-1, 1]: the strip's glyph families (`░▒▓█` toward 1,
/// `-=≡■` toward −1, `·` near 0), so a heat map reads without colour; `?` when there is none.
#[must_use]
pub fn heat_glyph(value: f64) -> char {
    if !value.is_finite() {
        return '?';
    }
    let level = [0.2, 0.45, 0.7, 0.95]
        .iter()
        .filter(|&&limit| value.abs() >= limit)
        .count();
    if value < 0.0 {
        NEGATIVE_GLYPHS[level]
    } else {
        POSITIVE_GLYPHS[level]
    }
}

/// Shades by weight, for a value in [0, 1] such as an attention weight: below 0.05, 0.25, 0.5,
/// 0.75, and from 0.75 up.
const SHADES: [char; 5] = [' ', '░', '▒', '▓', '█'];

/// A heat-map cell for a value in [0, 1]: a shade that darkens as the value grows, so the
/// map reads without colour. Values outside the range take the nearest end's shade.
#[must_use]
pub fn shade_glyph(value: f64) -> char {
    if value.is_nan() {
        return '!';
    }
    let level = [0.05, 0.25, 0.5, 0.75]
        .iter()
        .filter(|&&limit| value >= limit)
        .count();
    SHADES[level]
}

/// Wide vectors as strips from the first dimension at unit scale: what pane tests draw with.
#[cfg(test)]
pub(crate) const STRIPS: WideStyle = WideStyle {
    view: crate::view_state::WideView::Strip,
    first_dim: 0,
    scale: 1.0,
};

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::arr1;

    #[test]
    fn heat_glyphs_show_sign_and_size_without_colour() {
        assert_eq!(heat_glyph(1.0), '█');
        assert_eq!(heat_glyph(0.73), '▓');
        assert_eq!(heat_glyph(0.05), '·');
        assert_eq!(heat_glyph(-0.31), '-');
        assert_eq!(heat_glyph(-1.0), '■');
        assert_eq!(heat_glyph(f64::NAN), '?');
    }

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
    fn strip_glyphs_show_sign_and_size_without_colour() {
        assert_eq!(strip_glyph(0.1), '·');
        assert_eq!(strip_glyph(-0.1), '·');
        assert_eq!(strip_glyph(1.0), '▒');
        assert_eq!(strip_glyph(-1.0), '=');
        assert_eq!(strip_glyph(3.0), '█');
        assert_eq!(strip_glyph(-3.0), '■');
        assert_eq!(strip_glyph(f32::NAN), '!');
    }

    #[test]
    fn wide_vectors_fit_one_line() {
        let v = ndarray::Array1::from_shape_fn(768, |i| if i % 2 == 0 { 1.0 } else { -1.0 });
        let strip = WideStyle {
            view: WideView::Strip,
            first_dim: 0,
            scale: 1.0,
        };
        let cells = wide_line(v.view(), 100, strip, Theme::new(false));
        assert_eq!(dims_per_cell(768, 100), 8);
        assert_eq!(cells.len(), 96);
        let window = WideStyle {
            view: WideView::Values,
            first_dim: 760,
            scale: 1.0,
        };
        let values = wide_line(v.view(), 100, window, Theme::new(false));
        assert_eq!(values.len(), 8, "the window stops at the last dimension");
        assert!(wide_legend(768, 100, window).starts_with("d760–d767 of 768"));
        assert!(wide_legend(768, 100, strip).contains("mean of 8 dims"));
    }

    #[test]
    fn shades_darken_with_the_weight() {
        let shades: String = [0.0, 0.04, 0.2, 0.31, 0.6, 1.0]
            .map(shade_glyph)
            .iter()
            .collect();
        assert_eq!(shades, "  ░▒▓█");
        assert_eq!(shade_glyph(f64::NAN), '!');
    }
}
