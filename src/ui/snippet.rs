//! The `y` overlay: the Python script for what was on screen, scrolled, with what became of
//! the copy to the clipboard and how to save the script instead.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

use crate::action::{Action, Scope, key_name};
use crate::app::snippet::{Clipboard, SNIPPET_FILE, SnippetOverlay, visible_rows};
use crate::theme::Theme;

/// What the overlay draws from: its state and the styles.
pub(super) struct SnippetView<'a> {
    /// The overlay's state.
    pub overlay: &'a SnippetOverlay,
    /// The styles in use.
    pub theme: Theme,
}

/// The two lines above the script: the copy, then how to save it (or what saving did).
fn status_lines(overlay: &SnippetOverlay, theme: Theme) -> [Line<'static>; 2] {
    let save = key_name(&Action::SaveSnippet, Scope::Snippet);
    let close = key_name(&Action::CloseSnippet, Scope::Snippet);
    let (stem, extension) = SNIPPET_FILE;
    let copy = match &overlay.clipboard {
        Clipboard::Pending => Line::styled("Copying to the clipboard (OSC 52)…", theme.muted()),
        Clipboard::Sent => Line::styled(
            "Copied to the clipboard (OSC 52): paste it into Python with PyTorch.",
            theme.finding(),
        ),
        Clipboard::Failed(why) => Line::styled(format!("Not copied: {why}"), theme.finding()),
        Clipboard::Nothing => Line::styled("Nothing to copy.", theme.muted()),
    };
    let saved = match &overlay.saved {
        None if overlay.script.is_ok() => Line::from(vec![
            Span::raw("Terminal ignores OSC 52? "),
            Span::styled(save, theme.key()),
            Span::raw(format!(" writes {stem}.{extension} (never overwriting).")),
        ]),
        None => Line::from(vec![
            Span::styled(close, theme.key()),
            Span::raw(" closes."),
        ]),
        Some(Ok(path)) => Line::styled(format!("Wrote {}", path.display()), theme.finding()),
        Some(Err(why)) => Line::styled(format!("Not written: {why}"), theme.finding()),
    };
    [copy, saved]
}

impl Widget for SnippetView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let overlay = self.overlay;
        let theme = self.theme;
        let total = overlay.lines();
        let visible = visible_rows(area.height.saturating_add(1)).min(total);
        let first = overlay.scroll.min(total - visible);
        let width = usize::from(area.width.saturating_sub(2));
        let mut lines: Vec<Line> = status_lines(overlay, theme).into();
        match &overlay.script {
            Ok(script) => lines.extend(
                script
                    .lines()
                    .skip(first)
                    .take(visible)
                    .map(|line| code_line(line, width, theme)),
            ),
            Err(why) => lines.push(Line::raw(format!("No script for this view: {why}."))),
        }
        Clear.render(area, buf);
        let block = super::pane(
            " Python snippet · what is on screen, in PyTorch ",
            true,
            theme,
        );
        let block = super::with_lines(block, first, visible, total, theme);
        Paragraph::new(lines).block(block).render(area, buf);
    }
}

/// A line of the script, cut with `…` where the pane is narrower (the copy holds it whole).
fn code_line(line: &str, width: usize, theme: Theme) -> Line<'static> {
    if line.chars().count() <= width {
        return Line::raw(line.to_owned());
    }
    let kept: String = line.chars().take(width.saturating_sub(1)).collect();
    Line::from(vec![Span::raw(kept), Span::styled("…", theme.muted())])
}
