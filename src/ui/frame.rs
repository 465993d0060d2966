//! What every pane's frame shares: the bordered block, the notes in its bottom border on
//! which part of a list shows, and the note while the tables are generated. Beside the panes
//! (`ui/` and `panes/` alike), so a pane needs nothing from `ui.rs` itself.

use ratatui::text::Line;
use ratatui::widgets::{Block, BorderType, Paragraph, Wrap};

use crate::app::App;
use crate::theme::Theme;

/// What to say while the tables are still being generated, if they are.
pub fn generating(app: &App) -> Option<Paragraph<'static>> {
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
pub fn with_range<'a>(
    block: Block<'a>,
    what: &str,
    shown: &std::ops::Range<usize>,
    total: usize,
    theme: Theme,
) -> Block<'a> {
    if shown.len() >= total {
        return block;
    }
    // A pane with no room for one item claims none.
    if shown.is_empty() {
        let none = format!(" none of {total} {what} shown ");
        return block.title_bottom(Line::styled(none, theme.muted()).right_aligned());
    }
    let range = format!(
        " {what} {}–{} of {total} ",
        shown.start,
        shown.end.saturating_sub(1)
    );
    block.title_bottom(Line::styled(range, theme.muted()).right_aligned())
}

/// A scrolled text's frame saying which of its lines show: `visible` from index `first`,
/// counted from 1 as a reader counts them (rows and positions keep their ids).
pub fn with_lines(
    block: Block<'_>,
    first: usize,
    visible: usize,
    total: usize,
    theme: Theme,
) -> Block<'_> {
    with_range(
        block,
        "lines",
        &(first + 1..first + visible + 1),
        total,
        theme,
    )
}

/// A bordered pane whose border shows whether it has the keyboard.
pub fn pane<'a>(title: impl Into<Line<'a>>, focused: bool, theme: Theme) -> Block<'a> {
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
