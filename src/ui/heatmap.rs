//! Heat-map cells shared by the panes (position table, similarity, attention): a value as a
//! cell whose background colour gives its size and sign, with the number in it when the cell is
//! wide enough; without colour, a glyph whose density gives the size, beside the number when it
//! fits.
//!
//! A pane chooses a [`HeatScale`] for what its values are and a width per cell, then asks
//! [`HeatScale::cell`] for each value and [`HeatScale::legend`] for the key. Cells carry their
//! own leading space when they show a number, so a row of cells can be laid edge to edge.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::text::{display_width, pad_left};
use super::vector::{heat_glyph, shade_glyph, strip_glyph};
use crate::theme::{HeatHue, Theme};

/// Where the signed scale's glyphs step to the next density, in units of the scale's unit
/// (the strip's steps, so a position table reads like a strip).
const SIGNED_STEPS: [f32; 4] = [0.25, 0.75, 1.5, 2.5];

/// Columns the number takes after the glyph at most, when there is no colour.
const GLYPH_NUMBER_SLOT: usize = 6;

/// What a heat map's values are, which sets their colours, glyphs and legend.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HeatScale {
    /// A cosine, from −1 (opposite) to 1 (same direction).
    Cosine,
    /// Signed values of any size, measured in `unit` (a table's typical magnitude); colour is
    /// full at 2.5 units, where the strip's darkest glyph starts.
    Signed {
        /// The table's typical magnitude.
        unit: f32,
    },
    /// A weight from 0 to 1, such as an attention weight.
    Weight,
}

impl HeatScale {
    /// How far along its ramp a value is (0 to 1), and which ramp.
    fn place(self, value: f64) -> (f32, HeatHue) {
        #[expect(clippy::cast_possible_truncation, reason = "a display colour")]
        let value = value as f32;
        let hue = if value < 0.0 {
            HeatHue::Negative
        } else {
            HeatHue::Positive
        };
        match self {
            Self::Cosine => (value.abs(), hue),
            Self::Signed { unit } => (value.abs() / (SIGNED_STEPS[3] * unit), hue),
            Self::Weight => (value, HeatHue::Weight),
        }
    }

    /// The glyph a value takes without colour.
    #[must_use]
    pub fn glyph(self, value: f64) -> char {
        match self {
            Self::Cosine => heat_glyph(value),
            #[expect(clippy::cast_possible_truncation, reason = "a display glyph")]
            Self::Signed { unit } => strip_glyph(value as f32 / unit),
            Self::Weight => shade_glyph(value),
        }
    }

    /// A value as a cell `width` columns wide.
    ///
    /// With colour: the background by the value, and the number (`decimals` places) right-
    /// aligned after at least one space when it fits, else the colour alone. Without colour:
    /// a space, the glyph and the number right-aligned when all fit, the number alone when only it fits, else the
    /// glyph repeated. `emphasis` (the highlighted row) makes the text bold; the colours stay,
    /// so the row reads as well as the others.
    #[must_use]
    pub fn cell(
        self,
        value: f64,
        width: usize,
        decimals: usize,
        emphasis: bool,
        theme: Theme,
    ) -> Span<'static> {
        let number = number(value, decimals);
        let room = display_width(&number);
        let (intensity, hue) = self.place(value);
        let (text, style) = match theme.heat(intensity, hue) {
            Some(style) if room < width => (pad_left(&number, width), style),
            Some(style) => (" ".repeat(width), style),
            None => {
                let glyph = self.glyph(value);
                #[expect(clippy::cast_possible_truncation, reason = "a display style")]
                let style = match self {
                    Self::Weight => Style::new(),
                    Self::Cosine | Self::Signed { .. } => theme.value(value as f32),
                };
                let text = if room + 1 < width {
                    // The glyph a space before the number at most, so columns line up.
                    let slot = (width - 2).min(GLYPH_NUMBER_SLOT);
                    pad_left(&format!("{glyph}{}", pad_left(&number, slot)), width)
                } else if room < width {
                    pad_left(&number, width)
                } else {
                    glyph.to_string().repeat(width)
                };
                (text, style)
            }
        };
        let style = if emphasis {
            style.add_modifier(Modifier::BOLD)
        } else {
            style
        };
        Span::styled(text, style)
    }

    /// A value's colour alone, `width` columns of it (its glyph without colour).
    fn swatch(self, value: f64, width: usize, theme: Theme) -> Span<'static> {
        let (intensity, hue) = self.place(value);
        match theme.heat(intensity, hue) {
            Some(style) => Span::styled(" ".repeat(width), style),
            None => Span::raw(self.glyph(value).to_string().repeat(width)),
        }
    }

    /// The key to the cells: a ramp of coloured cells from one end of the scale to the other,
    /// or the glyphs in words without colour.
    #[must_use]
    pub fn legend(self, theme: Theme) -> Line<'static> {
        let muted = |text: String| Span::styled(text, theme.muted());
        let (ends, samples): ((String, String, String), Vec<f64>) = match self {
            Self::Cosine => (
                (
                    "−1 opposite".to_owned(),
                    "0".to_owned(),
                    "1 same".to_owned(),
                ),
                vec![-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0],
            ),
            Self::Signed { unit } => {
                let full = f64::from(SIGNED_STEPS[3] * unit);
                (
                    (format!("−{full:.2}"), "0".to_owned(), format!("+{full:.2}")),
                    [-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0]
                        .into_iter()
                        .map(|part| part * full)
                        .collect(),
                )
            }
            Self::Weight => (
                ("0".to_owned(), String::new(), "1".to_owned()),
                vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0],
            ),
        };
        if !theme.has_color() {
            return Line::from(muted(self.glyph_legend()));
        }
        let (low, middle, high) = ends;
        let mut spans = vec![muted(format!("{low} "))];
        let half = samples.len() / 2;
        for (index, &value) in samples.iter().enumerate() {
            if index == half && !middle.is_empty() {
                spans.push(self.swatch(value, 1, theme));
                spans.push(muted(middle.clone()));
            }
            spans.push(self.swatch(value, 2, theme));
        }
        spans.push(muted(format!(" {high}")));
        Line::from(spans)
    }

    /// The glyphs' key in words, for a screen without colour.
    fn glyph_legend(self) -> String {
        match self {
            Self::Cosine => {
                "░▒▓█ toward 1: same direction · · near 0 · -=≡■ toward −1: opposite".to_owned()
            }
            Self::Signed { unit } => {
                let [faint, light, medium, dark] = SIGNED_STEPS.map(|step| step * unit);
                format!(
                    "· below {faint:.2} · ░ ▒ ▓ █ from {faint:.2} {light:.2} {medium:.2} \
                     {dark:.2} · negative - = ≡ ■"
                )
            }
            Self::Weight => "blank below 0.05 · ░ from 0.05 · ▒ 0.25 · ▓ 0.5 · █ 0.75".to_owned(),
        }
    }
}

/// A masked cell (a weight the mask forbids): `·`, uncoloured, so it never reads as a small
/// weight.
#[must_use]
pub fn masked_cell(width: usize, theme: Theme) -> Span<'static> {
    Span::styled(pad_left("·", width), theme.muted())
}

fn number(value: f64, decimals: usize) -> String {
    if value.is_finite() {
        // Print −0 as 0.
        format!("{:.decimals$}", value + 0.0)
    } else {
        "n/a".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Color;

    #[test]
    fn with_colour_the_number_sits_on_its_colour() {
        let theme = Theme::new(true);
        let cell = HeatScale::Weight.cell(0.3, 6, 2, false, theme);
        assert_eq!(cell.content, "  0.30");
        assert!(matches!(cell.style.bg, Some(Color::Rgb(..))));
        let narrow = HeatScale::Weight.cell(0.3, 2, 2, false, theme);
        assert_eq!(
            narrow.content, "  ",
            "too narrow for the number: colour alone"
        );
        assert!(narrow.style.bg.is_some());
    }

    #[test]
    fn without_colour_glyphs_carry_the_size() {
        let theme = Theme::new(false);
        let scale = HeatScale::Cosine;
        assert_eq!(scale.cell(-0.82, 7, 2, false, theme).content, " ≡-0.82");
        assert_eq!(scale.cell(0.5, 9, 2, false, theme).content, "  ▒  0.50");
        assert_eq!(scale.cell(-0.82, 6, 2, false, theme).content, " -0.82");
        assert_eq!(scale.cell(-0.82, 3, 2, false, theme).content, "≡≡≡");
        assert_eq!(scale.cell(-0.82, 6, 2, false, theme).style.bg, None);
        let signed = HeatScale::Signed { unit: 1.0 };
        assert_eq!(signed.cell(2.0, 2, 2, false, theme).content, "▓▓");
        assert_eq!(HeatScale::Weight.cell(0.9, 1, 2, false, theme).content, "█");
    }

    #[test]
    fn the_highlighted_row_keeps_its_colours() {
        let theme = Theme::new(true);
        let plain = HeatScale::Cosine.cell(0.5, 6, 2, false, theme);
        let bold = HeatScale::Cosine.cell(0.5, 6, 2, true, theme);
        assert_eq!(plain.style.bg, bold.style.bg);
        assert!(bold.style.add_modifier.contains(Modifier::BOLD));
    }

    #[test]
    fn minus_zero_prints_as_zero_and_masked_cells_are_dots() {
        let theme = Theme::new(false);
        assert_eq!(
            HeatScale::Signed { unit: 1.0 }
                .cell(-0.0, 6, 2, false, theme)
                .content,
            " ·0.00"
        );
        assert_eq!(masked_cell(3, theme).content, "  ·");
    }

    #[test]
    fn legends_name_the_scale() {
        let text = |line: Line| {
            line.spans
                .iter()
                .map(|s| s.content.to_string())
                .collect::<String>()
        };
        let mono = Theme::new(false);
        assert!(text(HeatScale::Cosine.legend(mono)).contains("toward −1"));
        let colour = text(HeatScale::Signed { unit: 0.4 }.legend(Theme::new(true)));
        assert!(colour.starts_with("−1.00 "), "{colour}");
        assert!(colour.ends_with(" +1.00"), "{colour}");
    }
}
