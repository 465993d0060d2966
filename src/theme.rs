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

/// A colour as red, green and blue.
type Rgb = (u8, u8, u8);

/// Every colour the explorer draws with, for one kind of terminal background. The whole UI
/// reads one of these through [`Theme`]; no pane chooses colours of its own.
#[derive(Debug, PartialEq, Eq)]
struct Palette {
    /// The background the palette is made for: painted behind every cell by the light palette
    /// (so it reads the same on any terminal), left to the terminal by the dark one.
    background: Rgb,
    /// Whether the background and [`Palette::text`] are painted, not left to the terminal.
    paints_background: bool,
    /// Plain text, where it is painted.
    text: Rgb,
    /// Pane borders and secondary text.
    muted: Rgb,
    /// The focused border, keys, the cursor row, an input vector's dot.
    accent: Rgb,
    /// The current token's background (its text is [`Palette::on_current`]).
    current: Rgb,
    /// The current token's text.
    on_current: Rgb,
    /// Other rows and tokens the sentence uses.
    used: Rgb,
    /// Something the learner should notice.
    warning: Rgb,
    /// A finding the screen points out.
    finding: Rgb,
    /// The arrows of the picture.
    arrow: Rgb,
    /// Compare mode's sentence B in the picture.
    side_b: Rgb,
    /// Positive values from large to small (at least 1, at least 0.3, smaller).
    positive: [Rgb; 3],
    /// Negative values from large to small.
    negative: [Rgb; 3],
    /// A heat map's zero: a neutral that still looks filled.
    heat_zero: Rgb,
    /// The stops after zero of positive cells on a signed scale.
    heat_positive: [Rgb; 2],
    /// The stops after zero of negative cells.
    heat_negative: [Rgb; 2],
    /// The stops after zero of a weight from 0 to 1.
    heat_weight: [Rgb; 3],
}

/// For a dark terminal background (held to its contrast on black).
const DARK: Palette = Palette {
    background: (0, 0, 0),
    paints_background: false,
    text: (229, 229, 229),
    muted: (127, 127, 127),
    accent: (0, 205, 205),
    current: (205, 205, 0),
    on_current: (0, 0, 0),
    used: (205, 205, 0),
    warning: (255, 95, 95),
    finding: (0, 205, 0),
    arrow: (190, 190, 190),
    side_b: (225, 80, 225),
    positive: [(90, 160, 255), (140, 185, 235), (175, 190, 210)],
    negative: [(255, 110, 90), (235, 150, 135), (210, 185, 180)],
    heat_zero: (34, 34, 40),
    heat_positive: [(40, 80, 160), (70, 140, 250)],
    heat_negative: [(150, 50, 45), (240, 85, 65)],
    heat_weight: [(45, 95, 130), (50, 165, 120), (245, 215, 70)],
};

/// For a light terminal background (held to its contrast on white, which it paints).
const LIGHT: Palette = Palette {
    background: (255, 255, 255),
    paints_background: true,
    text: (30, 30, 30),
    muted: (100, 100, 100),
    accent: (0, 95, 170),
    current: (255, 205, 50),
    on_current: (0, 0, 0),
    used: (150, 85, 0),
    warning: (190, 20, 20),
    finding: (0, 120, 50),
    arrow: (90, 90, 90),
    side_b: (150, 20, 150),
    positive: [(0, 70, 200), (30, 100, 180), (70, 95, 130)],
    negative: [(200, 30, 0), (170, 70, 50), (125, 85, 80)],
    heat_zero: (236, 236, 240),
    heat_positive: [(150, 185, 240), (30, 80, 190)],
    heat_negative: [(240, 160, 145), (190, 40, 30)],
    heat_weight: [(170, 210, 235), (70, 160, 120), (150, 60, 0)],
};

/// The colour at `t` (0 to 1) along evenly spaced stops.
fn ramp(stops: &[Rgb], t: f32) -> Rgb {
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

/// A colour's relative luminance (WCAG 2), from 0 for black to 1 for white.
fn relative_luminance((r, g, b): Rgb) -> f64 {
    let linear = |channel: u8| {
        let c = f64::from(channel) / 255.0;
        if c <= 0.039_28 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
}

/// The contrast ratio of two colours (WCAG 2): 1 for the same, 21 for black on white.
fn contrast(a: Rgb, b: Rgb) -> f64 {
    let (la, lb) = (relative_luminance(a), relative_luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// Which terminal background the colours are made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Light text on a dark background.
    Dark,
    /// Dark text on a light background.
    Light,
}

/// What `--theme` and `EMBEDLENS_THEME` ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ThemeChoice {
    /// Ask the terminal for its background colour; dark when it does not say.
    Auto,
    /// Colours for a dark background.
    Dark,
    /// Colours for a light background (painted behind the whole screen).
    Light,
}

/// How long `auto` waits for the terminal to tell its background colour.
pub const ASK_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(200);

impl ThemeChoice {
    /// The mode chosen: `auto` calls `ask` only when the screen has colour and is a terminal,
    /// and is dark when it is not asked or gets no answer.
    pub fn mode(self, color: bool, terminal: bool, ask: impl FnOnce() -> Option<Mode>) -> Mode {
        match self {
            Self::Light => Mode::Light,
            Self::Auto if color && terminal => ask().unwrap_or(Mode::Dark),
            Self::Dark | Self::Auto => Mode::Dark,
        }
    }
}

/// Asks the terminal for its background colour (OSC 11, answered within [`ASK_TIMEOUT`]).
///
/// Call it only while the terminal is not yet taken over: it reads the answer in raw mode.
#[must_use]
pub fn ask_terminal() -> Option<Mode> {
    let mut options = terminal_colorsaurus::QueryOptions::default();
    options.timeout = ASK_TIMEOUT;
    match terminal_colorsaurus::theme_mode(options).ok()? {
        terminal_colorsaurus::ThemeMode::Dark => Some(Mode::Dark),
        terminal_colorsaurus::ThemeMode::Light => Some(Mode::Light),
    }
}

/// The explorer's styles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Theme {
    color: bool,
    palette: &'static Palette,
}

/// Whether to colour the screen, given the values of `NO_COLOR` and `TERM`.
fn wants_color(no_color: Option<&OsStr>, term: Option<&OsStr>) -> bool {
    no_color.is_none_or(OsStr::is_empty) && term.is_none_or(|term| term != "dumb")
}

/// A palette colour as ratatui's.
fn rgb((r, g, b): Rgb) -> Color {
    Color::Rgb(r, g, b)
}

impl Theme {
    /// The dark theme with colour, or without colour for monochrome terminals.
    #[must_use]
    pub fn new(color: bool) -> Self {
        Self::of(Mode::Dark, color)
    }

    /// The theme for a terminal background, with colour or without.
    #[must_use]
    pub fn of(mode: Mode, color: bool) -> Self {
        let palette = match mode {
            Mode::Dark => &DARK,
            Mode::Light => &LIGHT,
        };
        Self { color, palette }
    }

    /// The theme `choice` names, with colour unless the `NO_COLOR` environment variable is set
    /// to something or `TERM` is `dumb` (a terminal that cannot show it). `auto` asks the
    /// terminal only when `terminal` says the screen is one, and never without colour.
    #[must_use]
    pub fn from_env(choice: ThemeChoice, terminal: bool) -> Self {
        let color = wants_color(
            std::env::var_os("NO_COLOR").as_deref(),
            std::env::var_os("TERM").as_deref(),
        );
        Self::of(choice.mode(color, terminal, ask_terminal), color)
    }

    fn paint(self, style: Style, color: Rgb) -> Style {
        if self.color {
            style.fg(rgb(color))
        } else {
            style
        }
    }

    /// What every cell starts as: the light theme's text on its white, or the terminal's own.
    #[must_use]
    pub fn base(self) -> Style {
        if self.color && self.palette.paints_background {
            Style::new()
                .fg(rgb(self.palette.text))
                .bg(rgb(self.palette.background))
        } else {
            Style::new()
        }
    }

    /// Pane borders.
    #[must_use]
    pub fn border(self) -> Style {
        self.paint(Style::new(), self.palette.muted)
    }

    /// The border of the pane that has the keyboard.
    #[must_use]
    pub fn focused_border(self) -> Style {
        self.paint(
            Style::new().add_modifier(Modifier::BOLD),
            self.palette.accent,
        )
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
                .fg(rgb(self.palette.on_current))
                .bg(rgb(self.palette.current))
                .add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED)
        }
    }

    /// Other rows and tokens the sentence uses, and copies of the current token.
    #[must_use]
    pub fn used(self) -> Style {
        self.paint(Style::new().add_modifier(Modifier::BOLD), self.palette.used)
    }

    /// A row the user moved to, which is not the one being looked up.
    #[must_use]
    pub fn cursor(self) -> Style {
        self.paint(
            Style::new().add_modifier(Modifier::UNDERLINED),
            self.palette.accent,
        )
    }

    /// Secondary text: headers, hints, ids.
    #[must_use]
    pub fn muted(self) -> Style {
        self.paint(Style::new(), self.palette.muted)
    }

    /// Something the learner should notice: no row, beyond the context length.
    #[must_use]
    pub fn warning(self) -> Style {
        self.paint(
            Style::new().add_modifier(Modifier::BOLD),
            self.palette.warning,
        )
    }

    /// A finding the screen wants to point out: identical vectors, a distance.
    #[must_use]
    pub fn finding(self) -> Style {
        self.paint(
            Style::new().add_modifier(Modifier::BOLD),
            self.palette.finding,
        )
    }

    /// Keys in the help bar.
    #[must_use]
    pub fn key(self) -> Style {
        self.paint(
            Style::new().add_modifier(Modifier::BOLD),
            self.palette.accent,
        )
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
            PlotInk::Axis => self.paint(Style::new(), self.palette.muted),
            PlotInk::Arrow => self.paint(Style::new(), self.palette.arrow),
            PlotInk::Token => bold,
            PlotInk::Input => self.paint(bold, self.palette.accent),
            PlotInk::SideB => self.paint(bold, self.palette.side_b),
        }
    }

    /// A heat-map cell: the background by where the value sits on its scale, the text black or
    /// white, whichever contrasts more with that background; `None` without colour.
    ///
    /// `intensity` runs from 0 (the scale's zero, a neutral) to 1 (full colour); the hue is
    /// blue for positive, red for negative, and its own ramp for weights.
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
        let palette = self.palette;
        let zero = palette.heat_zero;
        let cell = match hue {
            HeatHue::Positive => ramp(
                &[zero, palette.heat_positive[0], palette.heat_positive[1]],
                t,
            ),
            HeatHue::Negative => ramp(
                &[zero, palette.heat_negative[0], palette.heat_negative[1]],
                t,
            ),
            HeatHue::Weight => ramp(
                &[
                    zero,
                    palette.heat_weight[0],
                    palette.heat_weight[1],
                    palette.heat_weight[2],
                ],
                t,
            ),
        };
        let (black, white) = ((0, 0, 0), (255, 255, 255));
        let text = if contrast(cell, black) >= contrast(cell, white) {
            Color::Black
        } else {
            Color::White
        };
        Some(Style::new().bg(rgb(cell)).fg(text))
    }

    /// A value on a diverging scale: blue for positive, red for negative, stronger when larger.
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
        let shades = if value >= 0.0 {
            &self.palette.positive
        } else {
            &self.palette.negative
        };
        let shade = match magnitude {
            m if m >= 1.0 => shades[0],
            m if m >= 0.3 => shades[1],
            _ => shades[2],
        };
        style.fg(rgb(shade))
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

    /// A style's colour as red, green and blue (the palettes use only these and black/white).
    fn channels(color: Option<Color>) -> Rgb {
        match color {
            Some(Color::Rgb(r, g, b)) => (r, g, b),
            Some(Color::Black) => (0, 0, 0),
            Some(Color::White) => (255, 255, 255),
            other => panic!("not a colour of the palettes: {other:?}"),
        }
    }

    /// Every named style with a colour of its own, by name.
    fn named_styles(theme: Theme) -> Vec<(String, Style)> {
        let mut styles = vec![
            ("border".to_owned(), theme.border()),
            ("focused border".to_owned(), theme.focused_border()),
            ("used".to_owned(), theme.used()),
            ("cursor".to_owned(), theme.cursor()),
            ("muted".to_owned(), theme.muted()),
            ("warning".to_owned(), theme.warning()),
            ("finding".to_owned(), theme.finding()),
            ("key".to_owned(), theme.key()),
        ];
        for ink in [
            PlotInk::Axis,
            PlotInk::Arrow,
            PlotInk::Input,
            PlotInk::SideB,
        ] {
            styles.push((format!("{ink:?}"), theme.plot(ink)));
        }
        for value in [-2.0, -0.5, -0.1, 0.0, 0.1, 0.5, 2.0] {
            styles.push((format!("value {value}"), theme.value(value)));
        }
        styles
    }

    #[test]
    fn every_foreground_reads_on_its_background_in_both_palettes() {
        for (mode, background) in [(Mode::Dark, (0, 0, 0)), (Mode::Light, (255, 255, 255))] {
            let theme = Theme::of(mode, true);
            assert_eq!(theme.palette.background, background);
            for (name, style) in named_styles(theme) {
                let ratio = contrast(channels(style.fg), background);
                assert!(ratio >= 4.5, "{mode:?} {name}: {ratio:.2}:1");
            }
            let current = theme.current();
            let ratio = contrast(channels(current.fg), channels(current.bg));
            assert!(ratio >= 4.5, "{mode:?} current: {ratio:.2}:1");
            let base = theme.base();
            if mode == Mode::Light {
                assert_eq!(channels(base.bg), background, "light paints its white");
                assert!(contrast(channels(base.fg), background) >= 4.5);
            } else {
                assert_eq!(base, Style::new(), "dark leaves the terminal's own colours");
            }
        }
    }

    #[test]
    fn every_heat_cell_text_reads_on_its_cell_in_both_palettes() {
        for mode in [Mode::Dark, Mode::Light] {
            let theme = Theme::of(mode, true);
            for hue in [HeatHue::Positive, HeatHue::Negative, HeatHue::Weight] {
                for step in 0..=200_u8 {
                    let intensity = f32::from(step) / 200.0;
                    let cell = theme.heat(intensity, hue).unwrap();
                    let ratio = contrast(channels(cell.fg), channels(cell.bg));
                    assert!(
                        ratio >= 3.0,
                        "{mode:?} {hue:?} at {intensity}: {ratio:.2}:1"
                    );
                }
            }
        }
    }

    #[test]
    fn contrast_is_the_wcag_ratio() {
        assert!((contrast((0, 0, 0), (255, 255, 255)) - 21.0).abs() < 1e-9);
        assert!((contrast((119, 119, 119), (255, 255, 255)) - 4.48).abs() < 0.01);
        assert!((contrast((40, 90, 200), (40, 90, 200)) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn auto_asks_only_a_colour_terminal_and_falls_back_to_dark() {
        let never = || -> Option<Mode> { panic!("asked the terminal") };
        assert_eq!(
            ThemeChoice::Auto.mode(true, false, never),
            Mode::Dark,
            "no terminal"
        );
        assert_eq!(
            ThemeChoice::Auto.mode(false, true, never),
            Mode::Dark,
            "NO_COLOR, dumb"
        );
        assert_eq!(ThemeChoice::Light.mode(true, true, never), Mode::Light);
        assert_eq!(ThemeChoice::Dark.mode(true, true, never), Mode::Dark);
        assert_eq!(
            ThemeChoice::Auto.mode(true, true, || Some(Mode::Light)),
            Mode::Light
        );
        assert_eq!(
            ThemeChoice::Auto.mode(true, true, || None),
            Mode::Dark,
            "no answer"
        );
    }

    #[test]
    fn colour_shows_the_sign() {
        let theme = Theme::new(true);
        assert_ne!(theme.value(1.0).fg, theme.value(-1.0).fg);
    }
}
