//! The help bar and the help overlay, both drawn from the key table.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::text::{display_width, pad};
use crate::action::{BarEntry, Keep, Scope, bar_entries};
use crate::app::{App, PromptKind};
use crate::help::{self, COLUMN_WIDTH, HELP_WIDTH, HelpLine, KEYS_WIDTH};
use crate::hit_map::{HitMap, Scrollable, Target};
use crate::theme::Theme;

pub(super) fn render_bar(app: &App, area: Rect, buf: &mut Buffer, hits: &mut HitMap) {
    let theme = app.theme();
    let mode = match app.scope() {
        Scope::Input => " TYPE ",
        Scope::Help => " HELP ",
        Scope::Prompt => " FIND ",
        Scope::Lesson => " LESSON ",
        Scope::Snippet => " SNIPPET ",
        Scope::Explorer | Scope::Anywhere => " EXPLORE ",
    };
    let mut spans = vec![Span::styled(mode, theme.current()), Span::raw(" ")];
    if let Some(prompt) = app.prompt() {
        let question = match prompt.kind {
            PromptKind::Search => "find token: ",
            PromptKind::GoTo => "go to id: ",
        };
        spans.push(Span::styled(question, theme.title()));
        spans.push(Span::raw(prompt.text.clone()));
        spans.push(Span::styled("█", theme.key()));
        spans.push(Span::raw("  "));
    } else if let Some(status) = app.status() {
        spans.push(Span::styled(status.to_owned(), theme.finding()));
        spans.push(Span::raw("  "));
    }
    // Help, quit, the lesson and attention are kept however narrow the bar; the spare entries
    // go first, from the end, then the spacing tightens, then the useful ones go.
    let mut entries = bar_entries(app.scope());
    entries.retain(|entry| super::lesson::works_now(app, &entry.action));
    let lead: usize = spans.iter().map(Span::width).sum();
    let room = usize::from(area.width);
    let mut gap = 2;
    while lead + bar_width(&entries, gap) > room {
        let droppable = |keep| entries.iter().rposition(|entry| entry.keep == keep);
        if let Some(index) = droppable(Keep::Spare) {
            entries.remove(index);
        } else if gap == 2 {
            gap = 1;
        } else if let Some(index) = droppable(Keep::Useful) {
            entries.remove(index);
        } else {
            break;
        }
    }
    let essentials = bar_width(&entries, gap);
    if lead + essentials > room {
        // Still too wide: the status gives way, cut with a mark a space before the keys, and
        // the keys go to the right-hand end.
        let keys_width = u16::try_from(essentials.min(room)).unwrap_or(u16::MAX);
        let left_area = Rect {
            width: area.width.saturating_sub(keys_width.saturating_add(1)),
            ..area
        };
        let left = Line::from(spans);
        let cut = left.width() > usize::from(left_area.width);
        left.render(left_area, buf);
        if cut && left_area.width > 0 {
            buf[(left_area.right() - 1, area.y)].set_symbol("…");
        }
        let right = Rect {
            x: area.right().saturating_sub(keys_width),
            width: keys_width,
            ..area
        };
        super::clear(right, buf, theme);
        Line::from(entry_spans(&entries, gap, theme)).render(right, buf);
        record_entries(&entries, gap, right, hits);
        return;
    }
    let lead_width = u16::try_from(lead).unwrap_or(u16::MAX);
    spans.extend(entry_spans(&entries, gap, theme));
    Line::from(spans).render(area, buf);
    let entries_area = Rect {
        x: area.x.saturating_add(lead_width),
        width: area.width.saturating_sub(lead_width),
        ..area
    };
    record_entries(&entries, gap, entries_area, hits);
}

/// Records where each entry was drawn in `area` (as [`entry_spans`] lays them out), so a click
/// on it takes its action; in `←/→ step` the `→` takes the other action.
fn record_entries(entries: &[BarEntry], gap: usize, area: Rect, hits: &mut HitMap) {
    let mut x = usize::from(area.x);
    for entry in entries {
        let width = display_width(&entry.keys) + 1 + entry.words.len();
        let spot = |from: usize, columns: usize| {
            let from = u16::try_from(from).unwrap_or(u16::MAX);
            let columns = u16::try_from(columns).unwrap_or(u16::MAX);
            Rect::new(from, area.y, columns, 1).intersection(area)
        };
        hits.record(spot(x, width), Target::Entry(entry.action.clone()));
        if let (Some(then), Some((first, other))) = (&entry.then, entry.keys.split_once('/')) {
            let other_x = x + display_width(first) + 1;
            hits.record(
                spot(other_x, display_width(other)),
                Target::Entry(then.clone()),
            );
        }
        x += width + gap;
    }
}

/// Columns the entries take with `gap` spaces between them (none after the last).
fn bar_width(entries: &[BarEntry], gap: usize) -> usize {
    let words: usize = entries
        .iter()
        .map(|entry| display_width(&entry.keys) + 1 + entry.words.len())
        .sum();
    words + gap * entries.len().saturating_sub(1)
}

/// The bar's entries as styled keys and words, `gap` spaces apart.
fn entry_spans(entries: &[BarEntry], gap: usize, theme: Theme) -> Vec<Span<'static>> {
    let gap = " ".repeat(gap);
    entries
        .iter()
        .flat_map(|entry| {
            [
                Span::styled(entry.keys.clone(), theme.key()),
                Span::raw(format!(" {}{gap}", entry.words)),
            ]
        })
        .collect()
}

/// What the help overlay reads: how far it is scrolled, and the styles.
pub(super) struct Overlay {
    /// The first line shown (kept within the help's length when drawn).
    pub(super) scroll: usize,
    /// The styles in use.
    pub(super) theme: Theme,
}

/// The help overlay over `area`: it covers what lies under it, and the wheel scrolls it.
pub(super) fn render_overlay(overlay: &Overlay, area: Rect, buf: &mut Buffer, hits: &mut HitMap) {
    let theme = overlay.theme;
    let popup_width = area.width.min(HELP_WIDTH);
    let width = help::inner_width(area.width);
    let help_lines = help::help_lines(width);
    let total = help_lines.len();
    let visible = help::visible_rows(area.height + 1, total);
    let first = overlay.scroll.min(total - visible);
    let lines: Vec<Line> = help_lines[first..first + visible]
        .iter()
        .map(|line| match line {
            HelpLine::Text(text) => Line::raw(text.clone()),
            HelpLine::Blank => Line::default(),
            HelpLine::Heading(heading) => Line::styled(*heading, theme.title()),
            HelpLine::Entries(entries) => Line::from(
                entries
                    .iter()
                    .flat_map(|(keys, description)| {
                        [
                            Span::styled(format!("  {}", pad(keys, KEYS_WIDTH - 2)), theme.key()),
                            Span::raw(pad(description, COLUMN_WIDTH - KEYS_WIDTH)),
                        ]
                    })
                    .collect::<Vec<_>>(),
            ),
            HelpLine::Footer(text) => Line::styled(text.clone(), theme.muted()),
        })
        .collect();
    let height = u16::try_from(visible + 2).unwrap_or(u16::MAX);
    let popup = area.centered(Constraint::Length(popup_width), Constraint::Length(height));
    super::clear(popup, buf, theme);
    hits.record(area, Target::Cover);
    hits.record(popup, Target::Pane(Scrollable::Help));
    let block = super::pane(" Help · what the explorer shows ", true, theme);
    let block = super::with_lines(block, first, visible, total, theme);
    Paragraph::new(lines).block(block).render(popup, buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_overlay_covers_the_panes_and_the_wheel_scrolls_it() {
        let area = Rect::new(0, 0, 80, 23);
        let mut buf = Buffer::empty(area);
        let mut hits = HitMap::default();
        let overlay = Overlay {
            scroll: 0,
            theme: Theme::new(false),
        };
        render_overlay(&overlay, area, &mut buf, &mut hits);
        let top: String = (0..area.width).map(|x| buf[(x, 0)].symbol()).collect();
        assert!(top.contains("Help · what the explorer shows"), "{top}");
        assert_eq!(hits.pane_at(40, 10), Some(Scrollable::Help));
        assert_eq!(
            hits.click_at(40, 10),
            None,
            "nothing under the overlay takes a click"
        );
        // Scrolled far past the end, it shows the last page.
        let mut last = Buffer::empty(area);
        let far = Overlay {
            scroll: usize::MAX,
            theme: Theme::new(false),
        };
        render_overlay(&far, area, &mut last, &mut HitMap::default());
        assert_ne!(buf, last);
    }
}
