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
    fn colour_shows_the_sign() {
        let theme = Theme::new(true);
        assert_ne!(theme.value(1.0).fg, theme.value(-1.0).fg);
    }
}
