//! The top-level layout: which pane goes where, and the guard for terminals too small to use.

mod attention;
mod compare;
mod head_overview;
mod heatmap;
mod help;
mod input;
mod layer0;
mod lesson;
mod lookups;
mod matrix;
mod one_hot;
mod picture;
mod position_table;
mod readout;
mod signature;
mod similarity;
mod tokens;
pub mod vector;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, BorderType, Paragraph, Widget, Wrap};

use crate::action::{Action, Scope, key_name};
use crate::app::App;
use crate::theme::Theme;
use crate::view_state::Detail;

/// The smallest terminal the explorer draws its panes in.
pub const MIN_WIDTH: u16 = 50;
/// The smallest terminal height the explorer draws its panes in.
pub const MIN_HEIGHT: u16 = 16;

/// Rows the stacked matrix keeps before the lookups may take more: a header and five rows.
const MATRIX_MIN_HEIGHT: usize = 8;

/// Rows the lesson panel takes at the bottom.
const LESSON_HEIGHT: u16 = 11;

/// Rows the readout keeps however tall the panes above would like to be.
const READOUT_MIN_HEIGHT: u16 = 8;

/// Room the lookups pane needs beside the matrix before the two are stacked instead.
const LOOKUPS_MIN_WIDTH: u16 = 43;

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
            render_too_small(area, buf);
            return;
        }
        // On short terminals the token strip keeps one line.
        let tokens_height = if area.height < 30 { 3 } else { 4 };
        let input_height = if self.compare().is_some() { 4 } else { 3 };
        let layout = Layout::vertical([
            Constraint::Length(input_height),
            Constraint::Length(tokens_height),
            Constraint::Fill(1),
            Constraint::Length(1),
        ]);
        let [input_area, tokens_area, middle, bar_area] = area.layout(&layout);
        let (side_by_side, wanted) = body_shape(self, middle.width);
        // The panes take what they need; the readout gets the rest, and at least its minimum.
        // The readout keeps room for its finding and explanation; more on taller terminals.
        let readout_least = match (self.lesson().is_some(), area.height < 30) {
            (true, _) => u16::try_from(lesson::natural_height(self, area.width))
                .unwrap_or(LESSON_HEIGHT)
                .clamp(4, LESSON_HEIGHT),
            // On a short terminal compare mode's own findings need the room more than the
            // readout's introduction to them.
            (false, true) if self.compare().is_some() => 0,
            (false, true) => 4,
            (false, false) => READOUT_MIN_HEIGHT,
        };
        let body_height = u16::try_from(wanted)
            .unwrap_or(u16::MAX)
            .min(middle.height.saturating_sub(readout_least));
        let [body, readout_area] = middle.layout(&Layout::vertical([
            Constraint::Length(body_height),
            Constraint::Fill(1),
        ]));
        input::render(self, input_area, buf);
        tokens::render(self, tokens_area, buf);
        let hidden = self.lesson().is_some_and(|progress| !progress.revealed());
        if self.compare().is_some() {
            if hidden {
                lesson::render_guess_first(self, body, buf);
            } else if self.detail() == Detail::Picture {
                // Both sentences' dots in the picture, in place of the table while it is open.
                picture::render(self, body, buf);
            } else {
                compare::render(self, body, buf);
            }
        } else if self.head_overview() && !hidden {
            // Every head's map needs the room more than the matrix does.
            attention::render(self, body, buf);
        } else {
            let [matrix_area, detail_area] = split_body(self, body, side_by_side);
            matrix::render(self, matrix_area, buf);
            if hidden {
                lesson::render_guess_first(self, detail_area, buf);
            } else if lesson::shows_signature(self) {
                signature::render(self, detail_area, buf);
            } else {
                render_detail(self, detail_area, buf);
            }
        }
        if self.lesson().is_some() {
            lesson::render(self, readout_area, buf);
        } else {
            readout::render(self, readout_area, buf);
        }
        help::render_bar(self, bar_area, buf);
        if self.help_open() {
            // Over everything but the help bar, which keeps saying how to scroll and close it.
            let [above_bar, _] = area.layout(&Layout::vertical([
                Constraint::Fill(1),
                Constraint::Length(1),
            ]));
            help::render_overlay(self, above_bar, buf);
        }
    }
}

/// The pane beside the matrix: the lookups, or the lesson pane chosen.
fn render_detail(app: &App, area: Rect, buf: &mut Buffer) {
    match app.detail() {
        Detail::Lookups => lookups::render(app, area, buf),
        Detail::Attention => attention::render(app, area, buf),
        Detail::Similarity => similarity::render(app, area, buf),
        Detail::OneHot => one_hot::render(app, area, buf),
        Detail::PositionTable => position_table::render(app, area, buf),
        Detail::Picture => picture::render(app, area, buf),
    }
}

/// The rows the pane beside the matrix would like at a width, borders included.
fn detail_height(app: &App, width: u16) -> usize {
    if lesson::shows_signature(app) {
        return signature::natural_height(app);
    }
    match app.detail() {
        Detail::Lookups => lookups::natural_height(app, width),
        Detail::Attention => attention::natural_height(app, width),
        Detail::Similarity => similarity::natural_height(app, width),
        Detail::OneHot => one_hot::natural_height(app, width),
        Detail::PositionTable => position_table::natural_height(app, width),
        Detail::Picture => picture::natural_height(app, width),
    }
}

/// Whether the matrix fits beside the lookups, and the height the two panes would like.
fn body_shape(app: &App, width: u16) -> (bool, usize) {
    if app.compare().is_some() {
        let height = if app.detail() == Detail::Picture {
            picture::natural_height(app, width)
        } else {
            compare::natural_height(app, width)
        };
        return (false, height);
    }
    if app.head_overview() {
        return (false, attention::natural_height(app, width));
    }
    let matrix_width = u16::try_from(matrix::natural_width(app)).unwrap_or(u16::MAX);
    let side_by_side = width >= matrix_width.saturating_add(LOOKUPS_MIN_WIDTH);
    let matrix_height = matrix::natural_height(app);
    if side_by_side {
        let lookups_height = detail_height(app, width - matrix_width);
        (true, matrix_height.max(lookups_height))
    } else {
        (false, matrix_height + detail_height(app, width))
    }
}

/// Matrix beside lookups when both fit, else the matrix above the lookups.
///
/// Stacked, each pane gets what it needs when both fit; when they do not, the lookups get
/// what they need as long as the matrix keeps a few rows, and the matrix scrolls in the rest.
fn split_body(app: &App, body: Rect, side_by_side: bool) -> [Rect; 2] {
    if side_by_side {
        let matrix_width = u16::try_from(matrix::natural_width(app)).unwrap_or(u16::MAX);
        return body.layout(&Layout::horizontal([
            Constraint::Length(matrix_width),
            Constraint::Fill(1),
        ]));
    }
    let matrix_need = matrix::natural_height(app);
    let lookups_need = detail_height(app, body.width);
    let height = usize::from(body.height);
    let matrix_height = if matrix_need + lookups_need <= height {
        matrix_need
    } else {
        let lookups_least = lookups::single_token_height(app, body.width);
        height
            .saturating_sub(lookups_need)
            .max(MATRIX_MIN_HEIGHT)
            .min(height.saturating_sub(lookups_least))
    };
    body.layout(&Layout::vertical([
        Constraint::Length(u16::try_from(matrix_height).unwrap_or(u16::MAX)),
        Constraint::Fill(1),
    ]))
}

/// What to say while the tables are still being generated, if they are.
fn generating(app: &App) -> Option<Paragraph<'static>> {
    if app.model().is_ready() {
        return None;
    }
    let model = app.model();
    let seed = model
        .seed()
        .map(|seed| format!("torch.manual_seed({seed}); "))
        .unwrap_or_default();
    let text = format!(
        "Generating the tables as PyTorch would: {seed}nn.Embedding({}, {}), then \
         nn.Embedding({}, {}) for the positions…",
        model.rows(),
        model.dims(),
        model.context_length(),
        model.dims()
    );
    Some(Paragraph::new(Line::styled(text, app.theme().muted())).wrap(Wrap { trim: true }))
}

/// A pane that shows only part of a list says which part, in its bottom border.
fn with_range<'a>(
    block: Block<'a>,
    what: &str,
    shown: &std::ops::Range<usize>,
    total: usize,
    theme: Theme,
) -> Block<'a> {
    if shown.len() >= total {
        return block;
    }
    let range = format!(
        " {what} {}–{} of {total} ",
        shown.start,
        shown.end.saturating_sub(1)
    );
    block.title_bottom(Line::styled(range, theme.muted()).right_aligned())
}

/// A bordered pane whose border shows whether it has the keyboard.
fn pane<'a>(title: impl Into<Line<'a>>, focused: bool, theme: Theme) -> Block<'a> {
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .title(title.into().style(theme.title()));
    if focused {
        block
            .border_type(BorderType::Thick)
            .border_style(theme.focused_border())
    } else {
        block.border_style(theme.border())
    }
}

fn render_too_small(area: Rect, buf: &mut Buffer) {
    let message = format!(
        "Terminal too small ({}×{}): embedlens needs {MIN_WIDTH}×{MIN_HEIGHT}. \
         Enlarge it; your sentence is kept. {} quits.",
        area.width,
        area.height,
        key_name(&Action::Quit, Scope::Anywhere)
    );
    Paragraph::new(message)
        .wrap(Wrap { trim: true })
        .render(area, buf);
}
