//! The position-table pane: the position vectors of the scheme in use, positions × dimensions,
//! as a heat map, and the exact values of the current position's row.

use ndarray::Array1;
use std::fmt::Write as _;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use crate::action::{Action, key};
use crate::app::App;
use crate::core::tables::positional::{PositionScheme, sinusoidal};
use crate::core::tables::table::Table;
use crate::core::tables::weights::EmbeddingModel;
use crate::hit_map::HitMap;
use crate::theme::{CURRENT_MARKER, Theme};
use crate::ui::heatmap::HeatScale;
use crate::ui::pane::Pane;
use crate::ui::room::Room;
use crate::ui::text::{fit, fit_line, wrapped};
use crate::ui::vector::{
    WideStyle, WideView, dims_per_cell, is_wide, values_per_line, vector_lines, wide_line, window,
};

/// The pane derives nothing of its own: it draws what the explorer shares.
pub type Memo = ();

/// Position rows the pane asks for at most; longer tables scroll with the current token.
const POSITION_ROWS_WANTED: usize = 16;
/// The widest a dimension's cell gets when there are few dimensions and no room for numbers.
const CELL_PITCH_LIMIT: usize = 4;
/// Columns of a cell with its number, and without colour its glyph: ` ≡ -2.13` (a space
/// between, so the `-` glyph never reads as a second minus sign).
const NUMBER_CELL: usize = 8;
/// Decimals of the numbers in the cells (the exact row below has four).
const CELL_DECIMALS: usize = 2;
/// Positions a sinusoidal table shows when the model has no context length of its own.
const SINUSOIDAL_POSITIONS: usize = 16;
/// The sinusoidal table's unit: its values reach ±1, which then takes the darkest shade.
const SINUSOIDAL_SCALE: f32 = 0.4;

/// What the pane reads, made by [`input`].
pub(crate) struct Input<'a> {
    /// The model, for its learned position table, its width and whether it was trained.
    pub(crate) model: &'a EmbeddingModel,
    /// The scheme chosen (shown even while positions are off).
    pub(crate) scheme: PositionScheme,
    /// Whether positions are added now.
    pub(crate) overlay: bool,
    /// The current token's position, if there is a current token.
    pub(crate) current: Option<usize>,
    /// The last token's position: a sinusoidal table is computed at least that far.
    pub(crate) last_position: usize,
    /// The learned table's typical size, which its shades are relative to.
    pub(crate) position_scale: Option<f32>,
    /// How a wide row's exact values are windowed.
    pub(crate) wide_style: WideStyle,
    /// What stands in while the tables are being generated.
    pub(crate) generating: Option<Paragraph<'static>>,
    /// The styles in use.
    pub(crate) theme: Theme,
}

/// What the position-table pane reads.
pub(crate) fn input(app: &App) -> Input<'_> {
    Input {
        model: app.model(),
        scheme: app.scheme(),
        overlay: app.overlay(),
        current: app.current_token().map(|token| token.position),
        last_position: app.tokens().last().map_or(0, |token| token.position),
        position_scale: app.position_scale(),
        wide_style: app.wide_style(),
        generating: crate::ui::frame::generating(app),
        theme: app.theme(),
    }
}

/// Which table the pane draws.
enum Source<'a> {
    /// The model's learned rows.
    Learned(&'a Table),
    /// Computed sine and cosine waves.
    Sinusoidal,
}

/// What the pane shows for the scheme in use, and how it says so.
struct Shown<'a> {
    source: Source<'a>,
    /// What the numbers are, for the title.
    what: String,
    /// Why they are not the scheme's own, when they are not: `RoPE adds none`.
    note: Option<String>,
    /// A sentence above the map.
    caption: String,
    /// Whether the caption warns (no learned table).
    warning: bool,
    /// Rows of the table.
    positions: usize,
    dims: usize,
    /// Shades and colours are relative to this.
    scale: f32,
}

impl<'a> Shown<'a> {
    fn new(input: &Input<'a>) -> Self {
        let model = input.model;
        let dims = model.dims();
        let last_position = input.last_position;
        let context = match model.context_length() {
            0 => SINUSOIDAL_POSITIONS,
            length => length,
        };
        let sinusoidal_positions = context.max(last_position + 1);
        let added = if input.overlay {
            String::new()
        } else {
            format!(
                " Not added now: {} adds positions.",
                key(&Action::TogglePositions)
            )
        };
        let sinusoidal_shown = |note: Option<String>, caption: String, warning: bool| Self {
            source: Source::Sinusoidal,
            what: "sinusoidal".to_owned(),
            note,
            caption,
            warning,
            positions: sinusoidal_positions,
            dims,
            scale: SINUSOIDAL_SCALE,
        };
        match (input.scheme, model.position_table()) {
            (PositionScheme::Learned, Some(table)) => Self {
                source: Source::Learned(table),
                what: if model.is_trained() {
                    "learned"
                } else {
                    "learnable, random init"
                }
                .to_owned(),
                note: None,
                caption: format!(
                    "The model's {}: row n is added to the token vector at position n.{added}",
                    model.table_kind().position_table()
                ),
                warning: false,
                positions: table.rows(),
                dims,
                scale: input.position_scale.unwrap_or(1.0),
            },
            (PositionScheme::Learned, None) => sinusoidal_shown(
                Some("no learned table".to_owned()),
                "This model has no learned position table (it puts positions inside attention, \
                 or nowhere); the sinusoidal table is shown instead."
                    .to_owned(),
                true,
            ),
            (scheme @ (PositionScheme::Rope | PositionScheme::Alibi), _) => {
                let name = if scheme == PositionScheme::Rope {
                    "RoPE"
                } else {
                    "ALiBi"
                };
                sinusoidal_shown(
                    // The title says what the numbers are: sinusoidal ones.
                    Some(format!("{name} adds none")),
                    format!(
                        "{name} adds no vectors to the embeddings: it acts inside attention \
                         (press a), so there is no table to show. For contrast, the sinusoidal \
                         table the original Transformer adds:"
                    ),
                    false,
                )
            }
            (PositionScheme::Sinusoidal | PositionScheme::None, _) => sinusoidal_shown(
                None,
                format!(
                    "Computed, not learned: sin(n / 10000^(2i/d)) in even dimensions, cos in odd \
                     ones.{added}"
                ),
                false,
            ),
        }
    }

    /// How the map's cells read the table's values.
    fn heat(&self) -> HeatScale {
        HeatScale::Signed { unit: self.scale }
    }

    /// The row for a position, if the table has one.
    fn row(&self, position: usize) -> Option<Array1<f32>> {
        match self.source {
            Source::Learned(table) => table.row(position),
            Source::Sinusoidal => {
                (position < self.positions).then(|| sinusoidal(position, self.dims))
            }
        }
    }
}

/// How the map's cells are laid out at a width.
struct Grid {
    position_width: usize,
    /// Dimensions averaged into one cell.
    per_cell: usize,
    /// Columns a cell takes, its gap included.
    pitch: usize,
    /// Whether each cell shows its value's number (one dimension a cell, room for it).
    numbers: bool,
    /// Columns after the row labels.
    room: usize,
}

impl Grid {
    fn new(shown: &Shown, width: usize) -> Self {
        let position_width = shown.positions.saturating_sub(1).to_string().len().max(3);
        let room = width.saturating_sub(2 + position_width + 1);
        let per_cell = dims_per_cell(shown.dims, room);
        let numbers = per_cell == 1 && shown.dims * NUMBER_CELL <= room;
        let pitch = if numbers {
            NUMBER_CELL
        } else if per_cell == 1 {
            (room / shown.dims.max(1)).clamp(1, CELL_PITCH_LIMIT)
        } else {
            1
        };
        Self {
            position_width,
            per_cell,
            pitch,
            numbers,
            room,
        }
    }

    fn label_width(&self) -> usize {
        2 + self.position_width + 1
    }
}

/// The position-table pane at a width: what it shows and how, built once; the table's rows
/// are drawn to the room it gets.
pub(crate) struct PositionTable<'a> {
    current: Option<usize>,
    generating: Option<Paragraph<'static>>,
    theme: Theme,
    shown: Shown<'a>,
    grid: Grid,
    title: String,
    caption: Vec<Line<'static>>,
    /// The current position's exact values.
    values: Vec<Line<'static>>,
    /// Columns inside the borders.
    width: usize,
}

/// The pane at a width, borders included.
pub(crate) fn build(input: Input<'_>, width: u16) -> PositionTable<'_> {
    let theme = input.theme;
    let shown = Shown::new(&input);
    let room = usize::from(width.saturating_sub(2));
    let note = shown.note.as_deref();
    let long_size = format!("{} positions × {} dims", shown.positions, shown.dims);
    let short_size = format!("{}×{}", shown.positions, shown.dims);
    let long: Vec<&str> = ["Position table", shown.what.as_str()]
        .into_iter()
        .chain(note)
        .chain([long_size.as_str()])
        .collect();
    let title =
        if crate::ui::text::display_width(&crate::ui::text::title_of(&long, usize::MAX)) <= room {
            crate::ui::text::title_of(&long, room)
        } else {
            let short: Vec<&str> = ["Positions", shown.what.as_str()]
                .into_iter()
                .chain(note)
                .chain([short_size.as_str()])
                .collect();
            crate::ui::text::title_of(&short, room)
        };
    let width = usize::from(width.saturating_sub(2));
    let grid = Grid::new(&shown, width);
    let caption_style = if shown.warning {
        theme.warning()
    } else {
        theme.muted()
    };
    let caption = wrapped(&shown.caption, width, caption_style);
    let values = value_lines(&input, &shown, &grid, width);
    PositionTable {
        current: input.current,
        generating: input.generating,
        theme,
        shown,
        grid,
        title,
        caption,
        values,
        width,
    }
}

impl Pane for PositionTable<'_> {
    /// The caption, the header, the first rows, the legend and the values.
    fn height(&self) -> usize {
        2 + self.caption.len()
            + 1
            + self.shown.positions.min(POSITION_ROWS_WANTED)
            + 1
            + self.values.len()
    }

    fn render(&self, area: Rect, buf: &mut Buffer, _hits: &mut HitMap) {
        let Self {
            current,
            theme,
            ref shown,
            ref grid,
            width,
            ..
        } = *self;
        let block = crate::ui::frame::pane(self.title.clone(), false, theme);
        let inner = block.inner(area);
        let height = usize::from(inner.height);
        if let Some(message) = &self.generating {
            block.render(area, buf);
            message.render(inner, buf);
            return;
        }
        // The header and a row first, then the exact values (whole or not at all), the legend,
        // the caption, and the other rows.
        let mut room = Room::new(height.saturating_sub(2));
        let values_shown = room.all(self.values.len());
        let legend_shown = room.all(1);
        let caption_shown = room.all(self.caption.len());
        let rows = 1 + room.some(shown.positions.saturating_sub(1));
        let shown_rows = window(shown.positions, rows, current.unwrap_or(0));
        let block = if shown_rows.len() < shown.positions {
            let range = format!(
                " positions {}–{} of {} ",
                shown_rows.start,
                shown_rows.end.saturating_sub(1),
                shown.positions
            );
            block.title_bottom(Line::styled(range, theme.muted()).right_aligned())
        } else {
            block
        };
        block.render(area, buf);

        let mut lines: Vec<Line> = if caption_shown {
            self.caption.clone()
        } else {
            Vec::new()
        };
        lines.push(header(shown, grid, theme));
        for position in shown_rows {
            lines.push(heat_row(shown, grid, position, current, theme));
        }
        if legend_shown {
            lines.push(fit_line(shown.heat().legend(theme), width));
        }
        if values_shown {
            lines.extend(self.values.iter().cloned());
        }
        Paragraph::new(lines).render(inner, buf);
    }
}

fn header(shown: &Shown, grid: &Grid, theme: Theme) -> Line<'static> {
    let mut text = format!("  {:>p$} ", "pos", p = grid.position_width);
    let last = format!("d{}", shown.dims.saturating_sub(1));
    if grid.numbers {
        for dim in 0..shown.dims {
            let _ = write!(text, "{:>pitch$}", format!("d{dim}"), pitch = grid.pitch);
        }
    } else if grid.per_cell == 1 && last.len() < grid.pitch {
        for dim in 0..shown.dims {
            let _ = write!(text, "{:<pitch$}", format!("d{dim}"), pitch = grid.pitch);
        }
    } else if grid.per_cell == 1 {
        let _ = write!(text, "d0 … {last}, one cell a dimension");
    } else {
        let _ = write!(
            text,
            "d0 … {last}, one cell the mean of {} dimensions",
            grid.per_cell
        );
    }
    Line::styled(text, theme.muted())
}

fn heat_row(
    shown: &Shown,
    grid: &Grid,
    position: usize,
    current: Option<usize>,
    theme: Theme,
) -> Line<'static> {
    let is_current = Some(position) == current;
    let (marker, label_style) = if is_current {
        (CURRENT_MARKER, theme.current())
    } else {
        (" ", Style::new())
    };
    let mut spans = vec![Span::styled(
        format!("{marker} {position:>p$} ", p = grid.position_width),
        label_style,
    )];
    let Some(row) = shown.row(position) else {
        return Line::from(spans);
    };
    let values: Vec<f32> = row.to_vec();
    let heat = shown.heat();
    // Number cells carry their own leading space; glyph or colour cells get a gap after them
    // when they are wider than one column.
    let (cell_width, gap) = if grid.numbers || grid.pitch == 1 {
        (grid.pitch, "")
    } else {
        (grid.pitch - 1, " ")
    };
    for group in values.chunks(grid.per_cell) {
        #[expect(clippy::cast_precision_loss, reason = "groups are small")]
        let mean = group.iter().map(|&v| f64::from(v)).sum::<f64>() / group.len() as f64;
        spans.push(heat.cell(mean, cell_width, CELL_DECIMALS, is_current, theme));
        if !gap.is_empty() {
            spans.push(Span::raw(gap));
        }
    }
    Line::from(spans)
}

/// The exact values of the current position's row, with a line that says what they are.
fn value_lines(input: &Input, shown: &Shown, grid: &Grid, width: usize) -> Vec<Line<'static>> {
    let theme = input.theme;
    let Some(position) = input.current else {
        return Vec::new();
    };
    let Some(row) = shown.row(position) else {
        let text = format!(
            "position {position} is beyond the context length {}: the table has no row for it",
            shown.positions
        );
        return vec![Line::styled(fit(&text, width), theme.warning())];
    };
    // The map is already a strip: a wide row's exact values are a window, scrolled by [ and ].
    let wide = is_wide(shown.dims).then_some(WideStyle {
        view: WideView::Values,
        ..input.wide_style
    });
    let mut caption = format!("exact values at position {position} (the ▶ row)");
    if let Some(style) = wide {
        let last = (style.first_dim + values_per_line(grid.room)).min(shown.dims);
        let _ = write!(
            caption,
            ", d{}–d{} of {} ([ ] scroll sideways)",
            style.first_dim,
            last.saturating_sub(1),
            shown.dims
        );
    }
    let mut lines = vec![Line::styled(fit(&caption, width), theme.muted())];
    let parts = match wide {
        Some(style) => vec![wide_line(row.view(), grid.room, style, theme)],
        None => vector_lines(row.view(), grid.room, theme),
    };
    let indent = " ".repeat(grid.label_width());
    for values in parts {
        let mut spans = vec![Span::raw(indent.clone())];
        spans.extend(values);
        lines.push(Line::from(spans));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tables::weights::DEFAULT_SEED;
    use crate::core::text::vocabulary::VocabKind;
    use crate::ui::pane::screen;

    fn input(model: &EmbeddingModel, scheme: PositionScheme, current: usize) -> Input<'_> {
        Input {
            model,
            scheme,
            overlay: true,
            current: Some(current),
            last_position: 4,
            position_scale: None,
            wide_style: crate::ui::vector::STRIPS,
            generating: None,
            theme: Theme::new(false),
        }
    }

    #[test]
    fn the_learned_table_marks_the_current_position_and_gives_its_exact_values() {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        let pane = build(input(&model, PositionScheme::Learned, 2), 60);
        assert_eq!(pane.height(), 2 + pane.caption.len() + 1 + 16 + 1 + 2);
        insta::assert_snapshot!(screen(&pane, 60, 25).join("\n"));
    }

    #[test]
    fn a_short_pane_keeps_the_current_row_and_its_values_before_the_other_rows() {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        let pane = build(input(&model, PositionScheme::Learned, 9), 60);
        let lines = screen(&pane, 60, 8);
        let text = lines.join("\n");
        // The header, the ▶ row and one above it, the legend and the two value lines: the
        // caption gives way first.
        assert!(lines[1].contains("pos"), "{text}");
        assert!(lines[3].starts_with("│▶   9 "), "{text}");
        assert!(
            text.contains("exact values at position 9 (the ▶ row)"),
            "{text}"
        );
        assert!(text.contains("positions 8–9 of 16"), "{text}");
    }

    #[test]
    fn rope_has_no_table_and_the_sinusoidal_one_stands_in_for_contrast() {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        let pane = build(input(&model, PositionScheme::Rope, 0), 100);
        let lines = screen(&pane, 100, 30);
        assert!(
            lines[0].contains("Position table · sinusoidal · RoPE adds none"),
            "{lines:?}"
        );
        assert!(lines[1].contains("RoPE adds no vectors"), "{lines:?}");
        // Positions off: the caption says the table is not added now.
        let off = Input {
            overlay: false,
            ..input(&model, PositionScheme::Sinusoidal, 0)
        };
        let text = screen(&build(off, 100), 100, 30).join("\n");
        assert!(text.contains("ones. Not added now: p"), "{text}");
        // Beyond the learned table, the pane says there is no row.
        let beyond = build(input(&model, PositionScheme::Learned, 20), 60);
        let text = screen(&beyond, 60, 25).join("\n");
        assert!(
            text.contains("position 20 is beyond the context length 16"),
            "{text}"
        );
    }
}
