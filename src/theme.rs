//! Named styles. Every highlight also carries a symbol or bold/reversed, so the screen says
//! everything on a monochrome terminal or with `NO_COLOR` set.

use std::ffi::OsStr;

use ratatui::style::{Color, Modifier, Style};

/// The marker before the row or token being looked up.
pub const CURRENT_MARKER: &str = "▶";
/// The marker before a row the user moved to (a search, a go-to, scrolling).
pub const CURSOR_MARKER: &str = "›";
/// The marker before other rows the sentence uses.
pub const USED_MARKER: &str = "•";
/// The marker before the other copies of the current token in the token strip.
pub const COPY_MARKER: &str = "◇";

/// What a mark in the picture of the vectors stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlotInk {
    /// The axes through the mean.
    Axis,
    /// An arrow from a token vector to its input vector.
    Arrow,
    /// A token vector's dot and label.
    Token,
    /// An input vector's dot and label (compare mode: sentence A's).
    Input,
    /// Compare mode: sentence B's input vectors.
    SideB,
}

/// Which colours a heat-map cell takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeatHue {
    /// A positive value on a signed scale.
    Positive,
    /// A negative value on a signed scale.
    Negative,
    /// A weight from 0 to 1.
    Weight,
}

/// The colour of a heat map's zero: a dark neutral, so a cell with colour never looks empty.
const HEAT_ZERO: (u8, u8, u8) = (34, 34, 40);

/// The colour at `t` (0 to 1) along evenly spaced stops.
fn ramp(stops: &[(u8, u8, u8)], t: f32) -> (u8, u8, u8) {
    #[expect(clippy::cast_precision_loss, reason = "a handful of stops")]
    let segments = (stops.len() - 1) as f32;
    let at = t * segments;
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "at is between 0 and the number of segments"
    )]
    let index = (at.floor() as usize).min(stops.len() - 2);
    #[expect(clippy::cast_precision_loss, reason = "a handful of stops")]
    let within = at - index as f32;
    let (from, to) = (stops[index], stops[index + 1]);
    let mix = |a: u8, b: u8| {
        let value = f32::from(a) + (f32::from(b) - f32::from(a)) * within;
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "between two u8 values"
        )]
        let value = value.round().clamp(0.0, 255.0) as u8;
        value
    };
    (mix(from.0, to.0), mix(from.1, to.1), mix(from.2, to.2))
}

/// The explorer's styles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Theme {
    color: bool,
}

/// Whether to colour the screen, given the values of `NO_COLOR` and `TERM`.
fn wants_color(no_color: Option<&OsStr>, term: Option<&OsStr>) -> bool {
    no_color.is_none_or(OsStr::is_empty) && term.is_none_or(|term| term != "dumb")
}

impl Theme {
    /// A theme with colour, or without it for monochrome terminals.
    #[must_use]
    pub fn new(color: bool) -> Self {
        Self { color }
    }

    /// Colour unless the `NO_COLOR` environment variable is set to something, or `TERM` is
    /// `dumb` (a terminal that cannot show it).
    #[must_use]
    pub fn from_env() -> Self {
        Self::new(wants_color(
            std::env::var_os("NO_COLOR").as_deref(),
            std::env::var_os("TERM").as_deref(),
        ))
    }

    fn paint(self, style: Style, color: Color) -> Style {
        if self.color { style.fg(color) } else { style }
    }

    /// Pane borders.
    #[must_use]
    pub fn border(self) -> Style {
        self.paint(Style::new(), Color::DarkGray)
    }

    /// The border of the pane that has the keyboard.
    #[must_use]
    pub fn focused_border(self) -> Style {
        self.paint(Style::new().add_modifier(Modifier::BOLD), Color::Cyan)
    }

    /// Pane titles.
    #[must_use]
    pub fn title(self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    /// The token or row being looked up now.
    #[must_use]
    pub fn current(self) -> Style {
        if self.color {
            Style::new()
                .fg(Color::Black)
                .bg(Color::Yellow)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED)
        }
    }

    /// Other rows and tokens the sentence uses, and copies of the current token.
    #[must_use]
    pub fn used(self) -> Style {
        self.paint(Style::new().add_modifier(Modifier::BOLD), Color::Yellow)
    }

    /// A row the user moved to, which is not the one being looked up.
    #[must_use]
    pub fn cursor(self) -> Style {
        self.paint(Style::new().add_modifier(Modifier::UNDERLINED), Color::Cyan)
    }

    /// Secondary text: headers, hints, ids.
    #[must_use]
    pub fn muted(self) -> Style {
        self.paint(Style::new(), Color::DarkGray)
    }

    /// Something the learner should notice: no row, beyond the context length.
    #[must_use]
    pub fn warning(self) -> Style {
        self.paint(Style::new().add_modifier(Modifier::BOLD), Color::Red)
    }

    /// A finding the screen wants to point out: identical vectors, a distance.
    #[must_use]
    pub fn finding(self) -> Style {
        self.paint(Style::new().add_modifier(Modifier::BOLD), Color::Green)
    }

    /// Keys in the help bar.
    #[must_use]
    pub fn key(self) -> Style {
        self.paint(Style::new().add_modifier(Modifier::BOLD), Color::Cyan)
    }

    /// Whether the theme colours the screen (heat maps then fill their cells with colour;
    /// without it they use glyphs whose density gives the size).
    #[must_use]
    pub fn has_color(self) -> bool {
        self.color
    }

    /// A mark in the picture of the vectors; every kind also has its own glyph, so nothing
    /// depends on the colour.
    #[must_use]
    pub fn plot(self, ink: PlotInk) -> Style {
        let bold = Style::new().add_modifier(Modifier::BOLD);
        match ink {
            PlotInk::Axis => self.paint(Style::new(), Color::DarkGray),
            PlotInk::Arrow => self.paint(Style::new(), Color::Gray),
            PlotInk::Token => bold,
            PlotInk::Input => self.paint(bold, Color::Cyan),
            PlotInk::SideB => self.paint(bold, Color::Magenta),
        }
    }

    /// A heat-map cell: the background by where the value sits on its scale, the text black or
    /// white, whichever reads on that background; `None` without colour.
    ///
    /// `intensity` runs from 0 (the scale's zero, a dark neutral) to 1 (full colour); the hue
    /// is blue for positive, red for negative, and a dark-to-yellow ramp for weights.
    #[must_use]
    pub fn heat(self, intensity: f32, hue: HeatHue) -> Option<Style> {
        if !self.color {
            return None;
        }
        let t = if intensity.is_finite() {
            intensity.clamp(0.0, 1.0)
        } else {
            return Some(self.warning());
        };
        let stops: &[(u8, u8, u8)] = match hue {
            HeatHue::Positive => &[HEAT_ZERO, (40, 80, 160), (70, 140, 250)],
            HeatHue::Negative => &[HEAT_ZERO, (150, 50, 45), (240, 85, 65)],
            HeatHue::Weight => &[HEAT_ZERO, (45, 95, 130), (50, 165, 120), (245, 215, 70)],
        };
        let (r, g, b) = ramp(stops, t);
        let luminance = 0.2126 * f32::from(r) + 0.7152 * f32::from(g) + 0.0722 * f32::from(b);
        let text = if luminance > 140.0 {
            Color::Black
        } else {
            Color::White
        };
        Some(Style::new().bg(Color::Rgb(r, g, b)).fg(text))
    }

    /// A value on a diverging scale: blue for positive, red for negative, brighter when larger.
    ///
    /// The sign is also in the digits and the size in bold, so nothing depends on colour.
    #[must_use]
    pub fn value(self, value: f32) -> Style {
        let magnitude = value.abs();
        let style = if magnitude >= 1.5 {
            Style::new().add_modifier(Modifier::BOLD)
        } else {
            Style::new()
        };
        if !self.color || !value.is_finite() {
            return if value.is_finite() {
                style
            } else {
                self.warning()
            };
        }
        let color = match (value >= 0.0, magnitude) {
            (true, m) if m >= 1.0 => Color::Rgb(90, 160, 255),
            (true, m) if m >= 0.3 => Color::Rgb(140, 185, 235),
            (true, _) => Color::Rgb(175, 190, 210),
            (false, m) if m >= 1.0 => Color::Rgb(255, 110, 90),
            (false, m) if m >= 0.3 => Color::Rgb(235, 150, 135),
            (false, _) => Color::Rgb(210, 185, 180),
        };
        style.fg(color)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monochrome_highlights_still_stand_out() {
        let mono = Theme::new(false);
        assert!(mono.current().add_modifier.contains(Modifier::REVERSED));
        assert_eq!(mono.current().fg, None);
        assert_eq!(mono.value(-0.2).fg, None);
        assert!(mono.value(2.0).add_modifier.contains(Modifier::BOLD));
    }

    #[test]
    fn no_color_and_a_dumb_terminal_turn_colour_off() {
        let os = |text: &'static str| Some(OsStr::new(text));
        assert!(wants_color(None, None));
        assert!(wants_color(None, os("xterm-256color")));
        assert!(
            wants_color(os(""), os("xterm")),
            "an empty NO_COLOR is unset"
        );
        assert!(!wants_color(os("1"), os("xterm-256color")));
        assert!(!wants_color(None, os("dumb")));
        assert!(!wants_color(os(""), os("dumb")));
    }

    #[test]
    fn heat_cells_are_coloured_only_with_colour_and_their_text_reads() {
        assert_eq!(Theme::new(false).heat(0.5, HeatHue::Positive), None);
        let theme = Theme::new(true);
        let zero = theme.heat(0.0, HeatHue::Weight).unwrap();
        assert_eq!(zero.bg, Some(Color::Rgb(34, 34, 40)));
        assert_eq!(zero.fg, Some(Color::White));
        let full = theme.heat(1.0, HeatHue::Weight).unwrap();
        assert_eq!(full.bg, Some(Color::Rgb(245, 215, 70)));
        assert_eq!(full.fg, Some(Color::Black), "dark text on the bright end");
        assert_ne!(
            theme.heat(0.8, HeatHue::Positive).unwrap().bg,
            theme.heat(0.8, HeatHue::Negative).unwrap().bg
        );
        assert_eq!(
            theme.heat(7.0, HeatHue::Negative),
            theme.heat(1.0, HeatHue::Negative)
        );
    }

    #[test]
    fn colour_shows_the_sign() {
        let theme = Theme::new(true);
        assert_ne!(theme.value(1.0).fg, theme.value(-1.0).fg);
    }
}
