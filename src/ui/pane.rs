//! How a pane hands its content to the layout.
//!
//! Each frame a pane is built once, at the width the layout gives it. The built pane says how
//! many rows it would like (its natural height, borders included) and draws that same content
//! into the rows it is given, fitting it to them. The layout in `ui.rs` measures and draws the
//! one value, so a height can never be worked out one way and drawn another.
//!
//! A new pane: a `build(app, width) -> impl Pane` in its own file (or a [`TextPane`] when it is
//! a block of text), and one arm in `ui.rs`'s dispatch.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

use crate::hit_map::HitMap;

/// Rows a pane keeps, unless it says otherwise, when the layout is short of room.
const LEAST_HEIGHT: usize = 4;

/// A pane's content for this frame, built at the width it will be drawn at.
pub(crate) trait Pane {
    /// The rows the pane would like, borders included.
    fn height(&self) -> usize;

    /// The fewest rows the pane keeps when the layout is short of room, borders included: by
    /// default its borders and two lines, fitted as its `render` fits them.
    fn least_height(&self) -> usize {
        LEAST_HEIGHT.min(self.height())
    }

    /// Draws the pane into `area`, fitting its content to the rows there are.
    fn render(&self, area: Rect, buf: &mut Buffer, hits: &mut HitMap);
}

/// A pane of text in a bordered block, measured by the very paragraph it draws.
pub(super) struct TextPane<'a> {
    block: Block<'a>,
    paragraph: Paragraph<'a>,
    height: usize,
}

impl<'a> TextPane<'a> {
    /// Lines in `block`, wrapped (or not) as they will be drawn in a pane `width` columns wide.
    pub(super) fn new(
        block: Block<'a>,
        lines: Vec<Line<'a>>,
        wrap: Option<Wrap>,
        width: u16,
    ) -> Self {
        let paragraph = Paragraph::new(lines);
        let paragraph = match wrap {
            Some(wrap) => paragraph.wrap(wrap),
            None => paragraph,
        };
        let inner = block.inner(Rect::new(0, 0, width, u16::MAX));
        let borders = usize::from(u16::MAX - inner.height);
        let height = paragraph.line_count(inner.width) + borders;
        Self {
            block,
            paragraph,
            height,
        }
    }
}

impl Pane for TextPane<'_> {
    fn height(&self) -> usize {
        self.height
    }

    fn render(&self, area: Rect, buf: &mut Buffer, _hits: &mut HitMap) {
        (&self.block).render(area, buf);
        (&self.paragraph).render(self.block.inner(area), buf);
    }
}

/// Stands in for a pane that would give a lesson's answer away, at that pane's size, so the
/// layout does not move when the answer is shown.
pub(super) struct Hidden<'a> {
    /// The pane the answer is in.
    pub(super) hidden: Box<dyn Pane + 'a>,
    /// What is drawn in its place.
    pub(super) shown: TextPane<'a>,
}

impl Pane for Hidden<'_> {
    fn height(&self) -> usize {
        self.hidden.height()
    }

    fn least_height(&self) -> usize {
        self.hidden.least_height()
    }

    fn render(&self, area: Rect, buf: &mut Buffer, hits: &mut HitMap) {
        self.shown.render(area, buf, hits);
    }
}

/// A pane drawn alone into a `width`×`height` buffer, as the rows of text on screen.
#[cfg(test)]
pub(crate) fn screen(pane: &dyn Pane, width: u16, height: u16) -> Vec<String> {
    drawn(width, height, |area, buf, hits| {
        pane.render(area, buf, hits);
    })
}

/// Lines as the plain text they show, a string a line: what a pane's line tests compare.
#[cfg(test)]
pub(crate) fn texts(lines: &[Line]) -> Vec<String> {
    lines.iter().map(ToString::to_string).collect()
}

/// What `draw` draws into a `width`×`height` buffer, as the rows of text on screen.
#[cfg(test)]
pub(crate) fn drawn(
    width: u16,
    height: u16,
    draw: impl FnOnce(Rect, &mut Buffer, &mut HitMap),
) -> Vec<String> {
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    draw(area, &mut buf, &mut HitMap::default());
    (0..height)
        .map(|y| (0..width).map(|x| buf[(x, y)].symbol()).collect::<String>())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_pane_is_as_tall_as_its_wrapped_lines_and_borders() {
        let lines = vec![Line::raw("one two three four"), Line::raw("five")];
        let wrapped = TextPane::new(
            Block::bordered(),
            lines.clone(),
            Some(Wrap { trim: true }),
            11,
        );
        // Nine columns inside the borders: "one two", "three", "four", "five".
        assert_eq!(wrapped.height(), 4 + 2);
        let unwrapped = TextPane::new(Block::bordered(), lines, None, 11);
        assert_eq!(unwrapped.height(), 2 + 2);
        let mut buf = Buffer::empty(Rect::new(0, 0, 11, 6));
        wrapped.render(buf.area, &mut buf, &mut HitMap::default());
        assert_eq!(buf[(1, 3)].symbol(), "f");
    }
}
