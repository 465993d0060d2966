//! The `y` overlay: the Python script for what was on screen, scrolled, with what became of
//! the copy to the clipboard and how to save the script instead.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

use super::text::{display_width, fit};
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
        let block = super::frame::pane(
            " Python snippet · what is on screen, in PyTorch ",
            true,
            theme,
        );
        let block = super::frame::with_lines(block, first, visible, total, theme);
        Paragraph::new(lines).block(block).render(area, buf);
    }
}

/// A line of the script, cut with `…` where the pane is narrower (the copy holds it whole),
/// its columns counted as the screen draws them.
fn code_line(line: &str, width: usize, theme: Theme) -> Line<'static> {
    if display_width(line) <= width {
        return Line::raw(line.to_owned());
    }
    let cut = fit(line, width);
    let kept = cut.strip_suffix('…').unwrap_or(&cut).to_owned();
    Line::from(vec![Span::raw(kept), Span::styled("…", theme.muted())])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn screen(overlay: &SnippetOverlay, width: u16, height: u16) -> Vec<String> {
        let area = Rect::new(0, 0, width, height);
        let mut buf = Buffer::empty(area);
        SnippetView {
            overlay,
            theme: Theme::new(false),
        }
        .render(area, &mut buf);
        (0..height)
            .map(|y| (0..width).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .collect()
    }

    #[test]
    fn the_script_is_shown_under_what_became_of_its_copy() {
        let mut overlay = SnippetOverlay::new(Ok(
            "import torch\nweights = torch.randn(6, 3)  # a long comment that goes on\n".to_owned(),
        ));
        overlay.clipboard = Clipboard::Sent;
        let lines = screen(&overlay, 40, 10);
        assert!(lines[0].contains("Python snippet"), "{lines:?}");
        assert!(
            lines[1].contains("Copied to the clipboard (OSC 52)"),
            "{lines:?}"
        );
        assert!(lines[2].contains("writes"), "{lines:?}");
        assert!(lines[3].starts_with("┃import torch"), "{lines:?}");
        // Cut where the pane ends, with a mark; the copy keeps it whole.
        assert!(
            lines[4].contains("weights = torch.randn(6, 3)  # a long…"),
            "{lines:?}"
        );
        let none = screen(&SnippetOverlay::new(Err("nothing shown".to_owned())), 40, 8);
        assert!(
            none.iter()
                .any(|line| line.contains("No script for this view: nothing"))
        );
    }

    #[test]
    fn a_line_is_cut_by_the_columns_it_takes() {
        let theme = Theme::new(false);
        assert_eq!(code_line("abcdef", 6, theme).to_string(), "abcdef");
        assert_eq!(code_line("abcdefg", 6, theme).to_string(), "abcde…");
        // Wide characters take two columns each: the cut line fits the pane.
        let wide = code_line("# 東京都の地図", 8, theme).to_string();
        assert_eq!(wide, "# 東京…");
        assert!(display_width(&wide) <= 8);
    }
}
