//! The help bar and the help overlay, both drawn from the key table.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::room::Room;
use super::text::{display_width, pad};
use crate::action::{Action, BarEntry, Keep, Scope};
use crate::app::PromptKind;
use crate::app::prompt::Prompt;
use crate::help::{self, COLUMN_WIDTH, HELP_WIDTH, HelpLine, KEYS_WIDTH};
use crate::hit_map::{HitMap, Scrollable, Target};
use crate::theme::Theme;

/// What the help bar reads, made in `ui.rs`.
pub(super) struct Bar<'a> {
    /// Which keys are live: the bar's mode badge.
    pub(super) scope: Scope,
    /// The open prompt, if any.
    pub(super) prompt: Option<&'a Prompt>,
    /// A short answer to the key just pressed.
    pub(super) status: Option<&'a str>,
    /// The key table's entries for the scope that work now, in table order.
    pub(super) entries: Vec<BarEntry>,
    /// The styles in use.
    pub(super) theme: Theme,
}

pub(super) fn render_bar(bar: Bar, area: Rect, buf: &mut Buffer, hits: &mut HitMap) {
    let Bar {
        scope,
        prompt,
        status,
        entries,
        theme,
    } = bar;
    let mode = match scope {
        Scope::Input => " TYPE ",
        Scope::Help => " HELP ",
        Scope::Prompt => " FIND ",
        Scope::Lesson => " LESSON ",
        Scope::Snippet => " SNIPPET ",
        Scope::Explorer | Scope::Anywhere => " EXPLORE ",
    };
    let mut spans = vec![Span::styled(mode, theme.current()), Span::raw(" ")];
    if let Some(prompt) = prompt {
        let question = match prompt.kind {
            PromptKind::Search => "find token: ",
            PromptKind::GoTo => "go to id: ",
        };
        spans.push(Span::styled(question, theme.title()));
        spans.push(Span::raw(prompt.text.clone()));
        spans.push(Span::styled("█", theme.key()));
        spans.push(Span::raw("  "));
    } else if let Some(status) = status {
        spans.push(Span::styled(status.to_owned(), theme.finding()));
        spans.push(Span::raw("  "));
    }
    let lead: usize = spans.iter().map(Span::width).sum();
    let room = usize::from(area.width);
    let (entries, gap) = fitted(entries, room.saturating_sub(lead), status.is_some());
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

/// The entries kept in `room` columns, and the spaces between them.
///
/// The spare entries go first, from the end, then the spacing tightens, then the useful ones
/// go; help, quit, the lesson and attention are kept however narrow the bar, except that a
/// status (the answer to the key just pressed, gone at the next) may push the lesson and
/// attention out to be read whole.
fn fitted(mut entries: Vec<BarEntry>, room: usize, status: bool) -> (Vec<BarEntry>, usize) {
    for (gap, sure, extra) in [
        (2, Keep::Useful, Keep::Spare),
        (1, Keep::Always, Keep::Useful),
    ] {
        // Each entry takes its width and the gap after it; the last one's gap is not drawn.
        let mut space = Room::new(room + gap);
        if space.all(widths(&entries, gap, |entry| entry.keep >= sure).sum()) {
            let kept = space.leading(widths(&entries, gap, |entry| entry.keep == extra));
            keep_first(&mut entries, kept, |entry| entry.keep == extra);
            entries.retain(|entry| entry.keep >= extra);
            return (entries, gap);
        }
    }
    entries.retain(|entry| entry.keep == Keep::Always);
    let mut space = Room::new(room + 1);
    if status {
        // Help and quit stay even beside a status too long to read whole; the others only
        // where they leave room, so such a status is cut as little as it can be.
        space.some(widths(&entries, 1, help_or_quit).sum());
        let others = |entry: &BarEntry| !help_or_quit(entry);
        let kept = space.leading(widths(&entries, 1, others));
        keep_first(&mut entries, kept, others);
    }
    (entries, 1)
}

/// Whether an entry is help's or quit's, which the bar never gives up.
fn help_or_quit(entry: &BarEntry) -> bool {
    matches!(entry.action, Action::Quit | Action::ToggleHelp)
}

/// The columns each entry `which` picks takes, with `gap` spaces after it.
fn widths<'a>(
    entries: &'a [BarEntry],
    gap: usize,
    which: impl Fn(&BarEntry) -> bool + 'a,
) -> impl Iterator<Item = usize> + 'a {
    entries
        .iter()
        .filter(move |entry| which(entry))
        .map(move |entry| entry_width(entry) + gap)
}

/// Keeps the first `count` of the entries `which` picks, and every entry it does not.
fn keep_first(entries: &mut Vec<BarEntry>, count: usize, which: impl Fn(&BarEntry) -> bool) {
    let mut seen = 0;
    entries.retain(|entry| {
        if !which(entry) {
            return true;
        }
        seen += 1;
        seen <= count
    });
}

/// Columns an entry takes: its keys, a space and its words.
fn entry_width(entry: &BarEntry) -> usize {
    display_width(&entry.keys) + 1 + entry.words.len()
}

/// Records where each entry was drawn in `area` (as [`entry_spans`] lays them out), so a click
/// on it takes its action; in `←/→ step` the `→` takes the other action.
fn record_entries(entries: &[BarEntry], gap: usize, area: Rect, hits: &mut HitMap) {
    let mut x = usize::from(area.x);
    for entry in entries {
        let width = entry_width(entry);
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
    let words: usize = entries.iter().map(entry_width).sum();
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
    let block = super::frame::pane(" Help · what the explorer shows ", true, theme);
    let block = super::frame::with_lines(block, first, visible, total, theme);
    Paragraph::new(lines).block(block).render(popup, buf);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::bar_entries;
    use crate::ui::pane::drawn;

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

    fn bar_line(status: Option<&str>, width: u16) -> String {
        let bar = Bar {
            scope: Scope::Explorer,
            prompt: None,
            status,
            entries: bar_entries(Scope::Explorer),
            theme: Theme::new(false),
        };
        drawn(width, 1, |area, buf, hits| render_bar(bar, area, buf, hits)).remove(0)
    }

    #[test]
    fn the_spare_entries_go_first_and_help_and_quit_stay() {
        let wide = bar_line(None, 200);
        let narrow = bar_line(None, 80);
        assert!(wide.contains("v vocab"), "{wide}");
        assert!(!narrow.contains("v vocab"), "{narrow}");
        for bar in [wide, narrow, bar_line(None, 50)] {
            assert!(bar.contains("? help") && bar.contains("q quit"), "{bar}");
        }
    }

    #[test]
    fn a_status_is_read_whole_at_80_columns() {
        // What `e` says when it writes into the folder it was started in.
        let status = "wrote fox-bites-the-fox.svg, .html, .txt";
        let bar = bar_line(Some(status), 80);
        assert!(bar.contains(status), "{bar}");
        assert!(bar.contains("? help") && bar.contains("q quit"), "{bar}");
        // Too long even beside help and quit alone: it is cut with a mark, and only help and
        // quit stay beside it.
        let long = format!("{status} in /tmp/embedlens-pty-export-1234");
        let bar = bar_line(Some(&long), 80);
        assert!(bar.contains('…') && bar.contains("q quit"), "{bar}");
        assert!(bar.contains(&long[..50]), "{bar}");
        assert!(!bar.contains("a attention"), "{bar}");
    }

    #[test]
    fn a_long_sentences_export_status_keeps_its_file_names_at_80_columns() {
        // What `e` says after a nine-word sentence: 62 columns, more than help and quit leave.
        let status = "wrote the-quick-fox-bites-the-dog-man-the-fox.svg, .html, .txt";
        let bar = bar_line(Some(status), 80);
        assert!(
            bar.contains("wrote the-quick-fox-bites-the-dog-man-the-fox.svg, .htm…"),
            "{bar}"
        );
        assert!(bar.ends_with("? help q quit"), "{bar}");
    }
}
