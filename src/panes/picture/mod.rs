//! The picture pane: the sentence's vectors on their top two principal axes, drawn on a braille
//! canvas. Copies of a word are one dot until positions are added; then an arrow leads from
//! each token vector to its input vector. A legend says what the axes are and how much of the
//! vectors' spread the flat picture keeps; the finding below says what it shows, in numbers.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::symbols::Marker;
use ratatui::text::Line;
use ratatui::widgets::canvas::{Canvas, Context, Line as Stroke, Points};
use ratatui::widgets::{Paragraph, Widget};

use crate::action::{Scope, fill_live_keys};
use crate::app::App;
use crate::core::analysis::plane::{DotKind, Plane, Side};
use crate::core::explain::picture;
use crate::core::tables::positional::PositionScheme;
use crate::hit_map::HitMap;
use crate::theme::{PlotInk, Theme};
use crate::ui::pane::Pane;
use crate::ui::room::Room;
use crate::ui::text::{display_width, fit, wrapped};

mod derive;
pub use derive::Memo;

/// Canvas rows the pane asks for.
const CANVAS_ROWS_WANTED: usize = 14;
/// Canvas rows kept before the legend gives way.
const CANVAS_ROWS_LEAST: usize = 6;
/// A token vector's dot.
const TOKEN_DOT: &str = "●";
/// An input vector's dot (compare mode: sentence A's).
const INPUT_DOT: &str = "◆";
/// Compare mode: sentence B's input vector's dot.
const B_DOT: &str = "◇";
/// Below this share of the spread kept, the legend warns that the picture flattens a lot.
const FLAT_WARNING: f64 = 0.8;
/// Braille dots between the dots of the dotted axes.
const AXIS_DOT_STEP: f64 = 4.0;
/// An arrowhead's barbs, in braille dots.
const BARB_DOTS: f64 = 3.0;

/// What the pane draws around the canvas.
struct Content<'a> {
    /// The picture, if there is one.
    plane: Option<&'a Plane>,
    /// The legend above the canvas, a paragraph at a time (the later ones give way first).
    head: Vec<Vec<Line<'static>>>,
    /// The finding, then notes (which give way first), below it.
    foot: Vec<Vec<Line<'static>>>,
}

/// Lines in a list of paragraphs.
fn count(paragraphs: &[Vec<Line<'static>>]) -> usize {
    paragraphs.iter().map(Vec::len).sum()
}

/// What the picture reads, made by [`input`].
pub(crate) struct Scene<'a> {
    /// The picture of the sentence's vectors, when there is one.
    pub(crate) plane: Option<&'a Plane>,
    /// Whether the sentence has tokens at all.
    pub(crate) typed: bool,
    /// The vocabulary's name, for a sentence none of whose tokens has a row.
    pub(crate) vocabulary: &'a str,
    /// The width of the vectors.
    pub(crate) dims: usize,
    /// What kind of table the rows come from, in a few words.
    pub(crate) table_note: &'static str,
    /// The scheme shown, when positions are on but act inside attention.
    pub(crate) inside_attention: Option<PositionScheme>,
    /// What stands in while the tables are being generated.
    pub(crate) generating: Option<Paragraph<'static>>,
    /// Where the keys a hint names must work (the lesson has no `p`).
    pub(crate) hints: Scope,
    /// The styles in use.
    pub(crate) theme: Theme,
}

/// What the picture of the sentence's vectors reads.
pub(crate) fn input(app: &App) -> Scene<'_> {
    let model = app.model();
    Scene {
        plane: app.views().picture.get(),
        typed: !app.tokens().is_empty(),
        vocabulary: model.label(),
        dims: model.dims(),
        table_note: model.table_kind().short_note(),
        inside_attention: (app.overlay() && !app.scheme().is_additive()).then(|| app.scheme()),
        generating: crate::ui::frame::generating(app),
        hints: crate::ui::lesson::hint_scope(app),
        theme: app.theme(),
    }
}

/// The picture pane at a width: its legend and finding built once, the canvas given the rows
/// that are left.
pub(crate) struct Picture<'a> {
    title: &'static str,
    table_note: &'static str,
    generating: Option<Paragraph<'static>>,
    theme: Theme,
    content: Content<'a>,
}

/// The pane at a width, borders included.
pub(crate) fn build(scene: Scene<'_>, width: u16) -> Picture<'_> {
    let inputs = scene
        .plane
        .is_some_and(|plane| plane.dots.iter().any(|dot| dot.kind == DotKind::Input));
    let title = if inputs {
        " Picture · token → input vectors on their top two axes (PCA) "
    } else {
        " Picture · token vectors on their top two axes (PCA) "
    };
    let title = if display_width(title) + 2 <= usize::from(width) {
        title
    } else {
        " Picture · PCA "
    };
    Picture {
        title,
        table_note: scene.table_note,
        theme: scene.theme,
        content: content(&scene, usize::from(width.saturating_sub(2))),
        generating: scene.generating,
    }
}

impl Pane for Picture<'_> {
    fn height(&self) -> usize {
        let content = &self.content;
        let canvas = if content.plane.is_some() {
            CANVAS_ROWS_WANTED
        } else {
            0
        };
        2 + count(&content.head) + canvas + count(&content.foot)
    }

    fn render(&self, area: Rect, buf: &mut Buffer, _hits: &mut HitMap) {
        let theme = self.theme;
        let block = crate::ui::frame::pane(self.title, false, theme);
        let inner = block.inner(area);
        if let Some(message) = &self.generating {
            block.render(area, buf);
            message.render(inner, buf);
            return;
        }
        // Said on the border, so a cut-off pane never shows a random table's layout bare.
        let kind = fit(self.table_note, usize::from(area.width).saturating_sub(4));
        let block = block.title_bottom(Line::styled(format!(" {kind} "), theme.muted()));
        block.render(area, buf);
        let height = usize::from(inner.height);
        let Some(plane) = self.content.plane else {
            Paragraph::new(self.content.foot.concat()).render(inner, buf);
            return;
        };
        let (head, foot) = (&self.content.head, &self.content.foot);
        // The canvas keeps a few rows. The legend's first paragraph and the finding stay; the
        // notes under the finding come next, then the legend's later paragraphs; each whole,
        // never cut mid-sentence.
        let mut room = Room::new(height.saturating_sub(CANVAS_ROWS_LEAST));
        let first = |paragraphs: &[Vec<Line<'static>>]| paragraphs.first().map_or(0, Vec::len);
        room.some(first(head) + first(foot));
        let notes = room.leading(foot.iter().skip(1).map(Vec::len));
        let later = if notes + 1 >= foot.len() {
            room.leading(head.iter().skip(1).map(Vec::len))
        } else {
            0
        };
        let head_lines = head[..(1 + later).min(head.len())].concat();
        let foot_lines = foot[..(1 + notes).min(foot.len())].concat();
        let head = u16::try_from(head_lines.len()).unwrap_or(u16::MAX);
        let foot = u16::try_from(foot_lines.len()).unwrap_or(u16::MAX);
        let canvas_height = inner.height.saturating_sub(head + foot);
        let head_area = Rect {
            height: head.min(inner.height),
            ..inner
        };
        let canvas_area = Rect {
            y: inner.y + head_area.height,
            height: canvas_height,
            ..inner
        };
        let foot_area = Rect {
            y: canvas_area.y + canvas_height,
            height: inner
                .height
                .saturating_sub(head_area.height + canvas_height),
            ..inner
        };
        Paragraph::new(head_lines).render(head_area, buf);
        draw_plane(plane, canvas_area, buf, theme);
        Paragraph::new(foot_lines).render(foot_area, buf);
    }
}

fn content<'a>(scene: &Scene<'a>, width: usize) -> Content<'a> {
    let theme = scene.theme;
    let Some(plane) = scene.plane else {
        let text = if scene.typed {
            format!(
                "No token of this sentence has a row in the {} vocabulary: nothing to draw.",
                scene.vocabulary
            )
        } else {
            "Type a sentence: its vectors are drawn here, flattened onto the two directions \
             along which they spread the most."
                .to_owned()
        };
        return Content {
            plane: None,
            head: Vec::new(),
            foot: vec![wrapped(&text, width, theme.muted())],
        };
    };
    let compare = plane.dots.iter().any(|dot| dot.sides.contains(&Side::B));
    let inputs = plane.dots.iter().any(|dot| dot.kind == DotKind::Input);
    let [first, second] = plane.explained.map(|share| share * 100.0);
    let mut head = vec![wrapped(
        &format!("axes: PC1 ({first:.0}% of the spread), PC2 ({second:.0}%)"),
        width,
        theme.muted(),
    )];
    let key_text = match (compare, inputs) {
        (false, false) => format!("{TOKEN_DOT} token vector: a row, with no position"),
        (false, true) => format!("{TOKEN_DOT} token vector → {INPUT_DOT} token + position"),
        (true, false) => format!("{TOKEN_DOT} token vectors of A and B"),
        (true, true) => format!(
            "{TOKEN_DOT} token vectors of A and B → {INPUT_DOT} A's input vectors, {B_DOT} B's"
        ),
    };
    head.push(wrapped(&key_text, width, theme.muted()));
    // Given up first when the pane is short.
    head.push(wrapped(
        &format!(
            "fitted to the {} distinct vectors shown; one scale on both axes, so distances \
             and angles in the plane are true",
            plane.distinct
        ),
        width,
        theme.muted(),
    ));
    let finding = fill_live_keys(
        &picture::sentence(&plane.finding, scene.dims, scene.inside_attention),
        scene.hints,
    );
    let mut foot = vec![wrapped(&finding, width, theme.finding())];
    let kept = plane.explained[0] + plane.explained[1];
    if kept < FLAT_WARNING {
        foot.push(wrapped(
            &format!(
                "The picture keeps {:.0}% of the spread: dots near each other here may be far \
                 apart in the other {} dimensions (the distances above are over all of them).",
                kept * 100.0,
                scene.dims.saturating_sub(2)
            ),
            width,
            theme.muted(),
        ));
    }
    Content {
        plane: Some(plane),
        head,
        foot,
    }
}

/// Where the picture's data coordinates map on the canvas, with one scale on both axes.
struct Frame {
    x: [f64; 2],
    y: [f64; 2],
    area: Rect,
}

impl Frame {
    fn new(plane: &Plane, area: Rect) -> Self {
        let points = plane.dots.iter().map(|dot| dot.at);
        let (mut low, mut high) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for point in points {
            for axis in 0..2 {
                low[axis] = low[axis].min(point[axis]);
                high[axis] = high[axis].max(point[axis]);
            }
        }
        let centre = [0.5 * (low[0] + high[0]), 0.5 * (low[1] + high[1])];
        let (columns, rows) = (f64::from(area.width.max(1)), f64::from(area.height.max(1)));
        // Braille dots are about square: 2 a column, 4 a row. Leave room for a label on the
        // right of the rightmost dot and a margin elsewhere.
        let span_x = (high[0] - low[0]).max(0.0);
        let span_y = (high[1] - low[1]).max(0.0);
        let per_dot = (span_x / (2.0 * columns * 0.6))
            .max(span_y / (4.0 * rows * 0.8))
            .max(f64::MIN_POSITIVE);
        let per_dot = if span_x == 0.0 && span_y == 0.0 {
            1.0
        } else {
            per_dot
        };
        let half_x = per_dot * columns;
        let half_y = per_dot * 2.0 * rows;
        // Shift left so the labels on the right have room.
        let shift = 0.15 * 2.0 * half_x;
        Self {
            x: [centre[0] - half_x + shift, centre[0] + half_x + shift],
            y: [centre[1] - half_y, centre[1] + half_y],
            area,
        }
    }

    /// The cell a point falls in, as the canvas places its labels.
    fn cell(&self, point: [f64; 2]) -> Option<(u16, u16)> {
        let width = self.x[1] - self.x[0];
        let height = self.y[1] - self.y[0];
        if !(self.x[0]..=self.x[1]).contains(&point[0])
            || !(self.y[0]..=self.y[1]).contains(&point[1])
        {
            return None;
        }
        let columns = f64::from(self.area.width.saturating_sub(1));
        let rows = f64::from(self.area.height.saturating_sub(1));
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "inside the area, checked above"
        )]
        let (x, y) = (
            ((point[0] - self.x[0]) * columns / width).round() as u16,
            ((self.y[1] - point[1]) * rows / height).round() as u16,
        );
        Some((self.area.x + x, self.area.y + y))
    }

    /// Data units per braille dot.
    fn per_dot(&self) -> f64 {
        (self.x[1] - self.x[0]) / (2.0 * f64::from(self.area.width.max(1)))
    }
}

/// A style's colour for the canvas's strokes (the terminal's own without colour).
fn ink(style: Style) -> Color {
    style.fg.unwrap_or(Color::Reset)
}

/// The strokes, then the dots and labels; a line under the canvas says how many labels were
/// left out where dots crowd, if any.
fn draw_plane(plane: &Plane, area: Rect, buf: &mut Buffer, theme: Theme) {
    if area.width < 2 || area.height < 3 {
        return;
    }
    let mut frame = Frame::new(plane, area);
    let (mut marks, mut left_out) = marks(plane, &frame, theme);
    if left_out > 0 {
        // Room for the note: the canvas gives up its last row.
        frame = Frame::new(
            plane,
            Rect {
                height: area.height - 1,
                ..area
            },
        );
        (marks, left_out) = self::marks(plane, &frame, theme);
    }
    draw_strokes(plane, &frame, buf, theme);
    for mark in marks {
        buf.set_string(mark.x, mark.y, mark.text, mark.style);
    }
    if left_out > 0 {
        let labels = if left_out == 1 { "label" } else { "labels" };
        let note = fit(
            &format!("{left_out} {labels} left out where dots crowd"),
            usize::from(area.width),
        );
        buf.set_string(area.x, area.bottom() - 1, note, theme.muted());
    }
}

fn draw_strokes(plane: &Plane, frame: &Frame, buf: &mut Buffer, theme: Theme) {
    let barb = BARB_DOTS * frame.per_dot();
    let axis = ink(theme.plot(PlotInk::Axis));
    let arrow = ink(theme.plot(PlotInk::Arrow));
    let current = ink(theme.used());
    Canvas::default()
        .marker(Marker::Braille)
        .x_bounds(frame.x)
        .y_bounds(frame.y)
        .paint(|context: &mut Context| {
            // The axes through the vectors' mean, dotted so they stay behind the arrows.
            let step = AXIS_DOT_STEP * frame.per_dot();
            let ticks = |low: f64, high: f64| {
                #[expect(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "a few hundred ticks across a pane"
                )]
                let count = ((high - low) / step).floor().max(0.0) as usize;
                #[expect(clippy::cast_precision_loss, reason = "a few hundred ticks")]
                (0..=count).map(move |tick| low + tick as f64 * step)
            };
            let mut dots: Vec<(f64, f64)> =
                ticks(frame.x[0], frame.x[1]).map(|x| (x, 0.0)).collect();
            dots.extend(ticks(frame.y[0], frame.y[1]).map(|y| (0.0, y)));
            context.draw(&Points {
                coords: &dots,
                color: axis,
            });
            context.layer();
            for shaft in &plane.arrows {
                let color = if shaft.current { current } else { arrow };
                let [x1, y1] = shaft.from;
                let [x2, y2] = shaft.to;
                context.draw(&Stroke::new(x1, y1, x2, y2, color));
                let (dx, dy) = (x2 - x1, y2 - y1);
                let length = dx.hypot(dy);
                if length > 3.0 * barb {
                    let (ux, uy) = (dx / length, dy / length);
                    let (cos, sin) = (0.9f64, 0.436f64); // about 26°
                    for turn in [sin, -sin] {
                        let bx = -(ux * cos - uy * turn) * barb;
                        let by = -(uy * cos + ux * turn) * barb;
                        context.draw(&Stroke::new(x2, y2, x2 + bx, y2 + by, color));
                    }
                }
            }
        })
        .render(frame.area, buf);
}

/// A dot's or label's text where it goes.
struct Mark {
    x: u16,
    y: u16,
    text: String,
    style: Style,
}

/// The dots and their labels, to draw on top of the strokes: the current token's first, then
/// token vectors, then input vectors. Every dot is placed before any label, so no label
/// covers a dot; a label that would cover another is left out and counted.
fn marks(plane: &Plane, frame: &Frame, theme: Theme) -> (Vec<Mark>, usize) {
    let area = frame.area;
    let mut taken = vec![false; usize::from(area.width) * usize::from(area.height)];
    let index = |x: u16, y: u16| {
        usize::from(y - area.y) * usize::from(area.width) + usize::from(x - area.x)
    };
    let mut order: Vec<usize> = (0..plane.dots.len()).collect();
    order.sort_by_key(|&dot| {
        (
            !plane.dots[dot].current,
            plane.dots[dot].kind == DotKind::Input,
        )
    });
    let mut marks = Vec::new();
    let mut placed = Vec::new();
    for &dot_index in &order {
        let dot = &plane.dots[dot_index];
        let Some((x, y)) = frame.cell(dot.at) else {
            continue;
        };
        let (glyph, style) = match (dot.kind, dot.sides.as_slice()) {
            (DotKind::Token, _) => (TOKEN_DOT, theme.plot(PlotInk::Token)),
            (DotKind::Input, [Side::B]) => (B_DOT, theme.plot(PlotInk::SideB)),
            (DotKind::Input, _) => (INPUT_DOT, theme.plot(PlotInk::Input)),
        };
        let style = if dot.current { theme.current() } else { style };
        marks.push(Mark {
            x,
            y,
            text: glyph.to_owned(),
            style,
        });
        taken[index(x, y)] = true;
        placed.push((dot_index, x, y, style));
    }
    let mut left_out = plane.dots.len() - placed.len();
    for (dot_index, x, y, style) in placed {
        let label = &plane.dots[dot_index].label;
        let columns = u16::try_from(display_width(label)).unwrap_or(u16::MAX);
        let right = x.saturating_add(1);
        let left = x.saturating_sub(columns.saturating_add(1));
        let fits = |start: u16| {
            start >= area.x
                && start.saturating_add(columns) <= area.right()
                && (start..start + columns).all(|column| !taken[index(column, y)])
        };
        let Some(start) = [right, left].into_iter().find(|&start| fits(start)) else {
            left_out += 1;
            continue;
        };
        // The label and a column either side, so no two labels run together.
        let before = start.saturating_sub(1).max(area.x);
        let after = start.saturating_add(columns).min(area.right() - 1);
        for column in before..=after {
            taken[index(column, y)] = true;
        }
        marks.push(Mark {
            x: start,
            y,
            text: label.clone(),
            style,
        });
    }
    (marks, left_out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::analysis::plane::{Sentence, plane};
    use crate::core::tables::weights::{DEFAULT_SEED, EmbeddingModel};
    use crate::core::text::vocabulary::VocabKind;
    use crate::ui::pane::screen;

    fn scene(plane: Option<&Plane>, typed: bool) -> Scene<'_> {
        Scene {
            plane,
            typed,
            vocabulary: "words",
            dims: 8,
            table_note: "untrained random table: nearness is chance",
            inside_attention: None,
            generating: None,
            hints: Scope::Explorer,
            theme: Theme::new(false),
        }
    }

    /// The picture of "the fox saw the dog" without positions, at its first word.
    fn the_fox_saw_the_dog() -> Plane {
        let model = EmbeddingModel::builtin(VocabKind::Words, DEFAULT_SEED);
        let tokens = model.tokenize("the fox saw the dog").unwrap();
        let lookups = model.embed(&tokens, PositionScheme::None);
        let sentence = Sentence {
            side: Side::A,
            lookups: &lookups,
            current: Some(0),
        };
        plane(&[sentence], false).unwrap()
    }

    #[test]
    fn a_repeated_word_is_one_dot_and_the_finding_says_so() {
        let plane = the_fox_saw_the_dog();
        let picture = build(scene(Some(&plane), true), 70);
        assert_eq!(
            picture.title,
            " Picture · token vectors on their top two axes (PCA) "
        );
        let lines = screen(&picture, 70, 24);
        let text = lines.join("\n");
        assert!(text.contains("axes: PC1 ("), "{text}");
        assert!(text.contains("'the' at 0 and 3: one dot."), "{text}");
        assert!(text.contains("untrained random table"), "{text}");
        // Narrow, the title is short.
        assert_eq!(
            build(scene(Some(&plane), true), 30).title,
            " Picture · PCA "
        );
    }

    #[test]
    fn a_short_pane_keeps_the_canvas_the_legends_first_line_and_the_finding() {
        let plane = the_fox_saw_the_dog();
        let picture = build(scene(Some(&plane), true), 70);
        let tall = screen(&picture, 70, 30).join("\n");
        let short = screen(&picture, 70, 12).join("\n");
        // The later paragraphs of the legend give way; its first line and the finding stay,
        // and the canvas keeps its rows.
        assert!(tall.contains("● token vector: a row"), "{tall}");
        assert!(!short.contains("● token vector: a row"), "{short}");
        assert!(
            !short.contains("fitted to the 4 distinct vectors"),
            "{short}"
        );
        assert!(short.contains("axes: PC1 ("), "{short}");
        assert!(short.contains("'the' at 0 and 3: one dot."), "{short}");
        assert!(
            short.contains("●the ×2") && short.contains("●fox"),
            "{short}"
        );
    }

    #[test]
    fn with_no_vector_the_pane_says_why() {
        let empty = screen(&build(scene(None, false), 60), 60, 6).join("\n");
        assert!(empty.contains("Type a sentence: its vectors"), "{empty}");
        let no_row = screen(&build(scene(None, true), 60), 60, 6).join("\n");
        assert!(
            no_row.contains("No token of this sentence has a row in the words"),
            "{no_row}"
        );
    }
}
