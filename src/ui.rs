//! The top-level layout: which pane goes where, and the guard for terminals too small to use.

mod compare;
mod compare_outputs;
pub(crate) mod frame;
pub(crate) mod heatmap;
mod help;
mod input;
pub(crate) mod lesson;
mod matrix;
pub(crate) mod pane;
mod readout;
pub(crate) mod room;
mod signature;
mod snippet;
pub mod text;
mod tokens;
pub mod vector;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Widget, Wrap};

use crate::action::{Action, Scope, bar_entries, key_name};
use crate::app::settings::ROOMY_COLUMNS;
use crate::app::{App, CompareMode, Focus, RealLayer};
use crate::core::explain::findings::CompareTables;
use crate::core::text::sentence::Unread;
use crate::hit_map::{HitMap, Scrollable, Target};
use crate::panes::{attention, picture};
use crate::theme::Theme;
use crate::view_state::Detail;
use frame::{generating, pane};
use pane::{Hidden, Pane};

/// The smallest terminal the explorer draws its panes in.
pub const MIN_WIDTH: u16 = 50;
/// The smallest terminal height the explorer draws its panes in.
pub const MIN_HEIGHT: u16 = 16;

/// Rows the stacked matrix keeps before the lookups may take more: a header and five rows.
const MATRIX_MIN_HEIGHT: usize = 8;

/// Rows the note above the tokens keeps on a short terminal; the readout holds it whole.
const NOTE_SHORT_ROWS: usize = 2;

/// Rows the lesson panel takes at the bottom.
const LESSON_HEIGHT: u16 = 11;

/// Rows the readout keeps however tall the panes above would like to be.
const READOUT_MIN_HEIGHT: u16 = 8;

/// Rows the readout takes at most on a short terminal to keep its finding whole.
const READOUT_SHORT_MOST: u16 = 6;

/// Columns the readout keeps beside the picture: prose at a readable width.
const READABLE_WIDTH: u16 = 100;

/// Rows the readout's area needs before the picture stands beside it.
const PICTURE_BESIDE_MIN_HEIGHT: u16 = 14;

/// Room the lookups pane needs beside the matrix before the two are stacked instead.
const LOOKUPS_MIN_WIDTH: u16 = 43;

impl Widget for &App {
    /// Draws the explorer, forgetting where it drew what the mouse can point at (the run loop
    /// keeps that: it draws with [`draw`]).
    fn render(self, area: Rect, buf: &mut Buffer) {
        draw(self, area, buf);
    }
}

/// Draws the explorer into `area`, and says where it drew what the mouse can point at: the
/// panes record their places into the map as they lay themselves out, and nothing else keeps
/// it, so the map is always the frame's own.
pub fn draw(app: &App, area: Rect, buf: &mut Buffer) -> HitMap {
    let mut hits = HitMap::default();
    draw_into(app, area, buf, &mut hits);
    hits
}

fn draw_into(app: &App, area: Rect, buf: &mut Buffer, hits: &mut HitMap) {
    // The light theme's white under everything; the dark theme leaves the terminal's own.
    buf.set_style(area, app.theme().base());
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        render_too_small(area, buf);
        return;
    }
    // On short terminals the token strip keeps one line; in compare mode, whose table
    // lists both sentences' tokens, it gives its rows to the findings.
    let short = area.height < 30;
    let tokens_height = match (short, app.compare().is_some()) {
        (true, true) => 0,
        (true, false) => 3,
        (false, _) => 4,
    };
    // Above the tokens, why typed text is read as ids, when it is: on a short terminal cut to
    // a few rows, so the matrix keeps the row the readout speaks of.
    let note_rows = if short { NOTE_SHORT_ROWS } else { usize::MAX };
    let strip = tokens::build(tokens_input(app), area.width, note_rows);
    let tokens_height = match tokens_height {
        0 => 0,
        height => height + strip.note_height(),
    };
    let input_height = if app.compare().is_some() { 4 } else { 3 };
    let layout = Layout::vertical([
        Constraint::Length(input_height),
        Constraint::Length(tokens_height),
        Constraint::Fill(1),
        Constraint::Length(1),
    ]);
    let [input_area, tokens_area, middle, bar_area] = area.layout(&layout);
    let body = Body::build(app, middle.width, short);
    let lesson = lesson_input(app, area.width, CompareTables::BOTH)
        .map(|input| lesson::build(&input, area.width, short));
    // The panes take what they need; the readout gets the rest, and at least its minimum.
    // The readout keeps room for its finding and explanation; more on taller terminals.
    let readout_least = match (&lesson, area.height < 30) {
        (Some(lesson), _) => u16::try_from(lesson.height())
            .unwrap_or(LESSON_HEIGHT)
            .clamp(4, LESSON_HEIGHT),
        // On a short terminal compare mode's own findings need the room more than the
        // readout's introduction to them.
        (None, true) if app.compare().is_some() => 0,
        // The finding and the sentence that explains it, whole (two to four rows).
        (None, true) => u16::try_from(readout::lead_height(&readout_input(app), area.width))
            .unwrap_or(READOUT_SHORT_MOST)
            .clamp(4, READOUT_SHORT_MOST),
        // Compare mode's readout introduces the findings above it: any rows they need
        // beyond its first line go to them.
        (None, false) if app.compare().is_some() => {
            u16::try_from(readout::lead_height(&readout_input(app), area.width))
                .unwrap_or(READOUT_MIN_HEIGHT)
                .clamp(3, READOUT_MIN_HEIGHT)
        }
        (None, false) => READOUT_MIN_HEIGHT,
    };
    let body_height = u16::try_from(body.height())
        .unwrap_or(u16::MAX)
        .min(middle.height.saturating_sub(readout_least));
    // A readout too short to hold a line would be an empty frame: the body takes it.
    let body_height = if middle.height.saturating_sub(body_height) < 3 {
        middle.height
    } else {
        body_height
    };
    let [body_area, readout_area] = middle.layout(&Layout::vertical([
        Constraint::Length(body_height),
        Constraint::Fill(1),
    ]));
    input::render(&sentence_input(app), input_area, buf, hits);
    strip.render(tokens_area, buf, hits);
    body.render(body_area, buf, hits);
    match lesson {
        Some(lesson) => {
            // The lesson speaks only of the compare tables the body has room for; said with
            // less, it keeps the rows it was given, so the body, and its tables, stay as drawn.
            let tables = lesson_compare_tables(app, body_area);
            let lesson = if tables == CompareTables::BOTH {
                lesson
            } else {
                lesson_input(app, area.width, tables)
                    .map_or(lesson, |input| lesson::build(&input, area.width, short))
            };
            render_lesson(app, (lesson, tables), readout_area, short, buf, hits);
        }
        None => render_readout(app, readout_area, buf, hits),
    }
    help::render_bar(bar(app), bar_area, buf, hits);
    if let Some(overlay) = app.snippet() {
        // Over everything but the help bar, which says how to scroll, save and close it.
        let [above_bar, _] = area.layout(&Layout::vertical([
            Constraint::Fill(1),
            Constraint::Length(1),
        ]));
        hits.record(above_bar, Target::Pane(Scrollable::Snippet));
        snippet::SnippetView {
            overlay,
            theme: app.theme(),
        }
        .render(above_bar, buf);
    }
    if app.help_open() {
        // Over everything but the help bar, which keeps saying how to scroll and close it.
        let [above_bar, _] = area.layout(&Layout::vertical([
            Constraint::Fill(1),
            Constraint::Length(1),
        ]));
        let overlay = help::Overlay {
            scroll: app.help_scroll(),
            theme: app.theme(),
        };
        help::render_overlay(&overlay, above_bar, buf, hits);
    }
}

/// The readout; on a roomy terminal it keeps a readable width and the picture of the
/// sentence's vectors takes the room beside it (unless the picture is the open pane already).
/// In compare mode the picture holds both sentences' dots, which coincide until positions come.
fn render_readout(app: &App, area: Rect, buf: &mut Buffer, hits: &mut HitMap) {
    if !picture_beside(app, area) {
        readout::render(&readout_input(app), area, buf, hits);
        return;
    }
    let [readout_area, picture_area] = area.layout(&Layout::horizontal([
        Constraint::Length(READABLE_WIDTH),
        Constraint::Fill(1),
    ]));
    readout::render(&readout_input(app), readout_area, buf, hits);
    picture::build(picture::input(app), picture_area.width).render(picture_area, buf, hits);
}

/// Whether the picture of the sentence's vectors stands beside the readout or lesson panel:
/// on a roomy terminal, when the picture is not the open pane already.
fn picture_beside(app: &App, area: Rect) -> bool {
    area.width >= ROOMY_COLUMNS
        && area.height >= PICTURE_BESIDE_MIN_HEIGHT
        && app.detail() != Detail::Picture
        && app.views().picture.get().is_some()
}

/// The lesson panel; on a roomy terminal it keeps a readable width and the picture of the
/// sentence's vectors takes the room beside it, hidden like the other panes until the learner
/// has answered, as it would give the answer away.
fn render_lesson(
    app: &App,
    (lesson, tables): (pane::TextPane, CompareTables),
    area: Rect,
    short: bool,
    buf: &mut Buffer,
    hits: &mut HitMap,
) {
    // A panel taller than its rows leaves out the RoPE copies' vectors, and the claim they
    // bear out with them, rather than cut its last lines silently.
    let lesson = if lesson.height() > usize::from(area.height) {
        lesson_input(app, area.width, tables)
            .map(|mut input| {
                input.rope_copies.clear();
                lesson::build(&input, area.width, short)
            })
            .unwrap_or(lesson)
    } else {
        lesson
    };
    let narrow = (picture_beside(app, area) && lesson::picture_may_show(app))
        .then(|| lesson_input(app, READABLE_WIDTH, tables))
        .flatten()
        .map(|input| lesson::build(&input, READABLE_WIDTH, short))
        .filter(|narrow| narrow.height() <= usize::from(area.height));
    let Some(narrow) = narrow else {
        lesson.render(area, buf, hits);
        record_answers(app, area, short, tables, hits);
        return;
    };
    let [lesson_area, picture_area] = area.layout(&Layout::horizontal([
        Constraint::Length(READABLE_WIDTH),
        Constraint::Fill(1),
    ]));
    narrow.render(lesson_area, buf, hits);
    record_answers(app, lesson_area, short, tables, hits);
    if lesson::hides_answers(app) {
        picture_after_answer(app, picture_area.width).render(picture_area, buf, hits);
    } else {
        picture::build(picture::input(app), picture_area.width).render(picture_area, buf, hits);
    }
}

/// What compare mode's pane reads: the outputs table's too, while attention is the open pane.
fn compare_input(app: &App) -> compare::Input<'_> {
    let layer0 = match app.real_layer() {
        RealLayer::Open(layer) => Some((layer.as_ref(), app.real_comparison())),
        RealLayer::Unavailable(_) | RealLayer::None => None,
    };
    let outputs = (app.detail() == Detail::Attention).then(|| compare_outputs::Input {
        layer0: layer0.map(|(layer, pair)| compare_outputs::Layer0Outputs {
            heads: layer.heads(),
            choice: app.compare_head(),
            pair,
        }),
        mask: app.mask(),
        comparison: app.comparison(),
        wide_style: app.wide_style(),
        theme: app.theme(),
    });
    compare::Input {
        comparison: app.comparison(),
        layer0,
        mask: app.mask(),
        outputs,
        keys: app.lesson().is_none(),
        keep_vectors: app.lesson().is_some(),
        scheme: app.active_scheme(),
        overlay: app.overlay(),
        step: app.step(),
        wide_style: app.wide_style(),
        theme: app.theme(),
    }
}

/// Empties an area for a pane drawn over others, leaving the theme's background in it.
fn clear(area: Rect, buf: &mut Buffer, theme: Theme) {
    Clear.render(area, buf);
    buf.set_style(area, theme.base());
}

/// Records where the lesson panel drawn on `area` put its answers, so a click gives one.
fn record_answers(app: &App, area: Rect, short: bool, tables: CompareTables, hits: &mut HitMap) {
    let inner = area.inner(ratatui::layout::Margin::new(1, 1));
    let Some(input) = lesson_input(app, area.width, tables) else {
        return;
    };
    for (row, height, number) in lesson::answer_rows(&input, area.width, short) {
        let spot = Rect {
            y: inner.y.saturating_add(row),
            height,
            ..inner
        };
        hits.record(spot.intersection(inner), Target::Answer(number));
    }
}

/// Stands in for the picture beside the lesson panel until the learner has answered.
fn picture_after_answer(app: &App, width: u16) -> pane::TextPane<'static> {
    let theme = app.theme();
    let text = vec![Line::styled(
        "The picture of the sentence's vectors appears here once you have answered.",
        theme.muted(),
    )];
    let block = pane(" Picture · hidden until you answer ", false, theme);
    pane::TextPane::new(block, text, Some(Wrap { trim: true }), width)
}

/// The panes between the token strip and the readout, built once for this frame.
enum Body<'a> {
    /// One pane across the whole body: compare mode's, or every head's heat map.
    Whole(Box<dyn Pane + 'a>),
    /// The matrix, and the pane chosen to go with it.
    Split {
        matrix: Box<matrix::Matrix<'a>>,
        detail: Box<dyn Pane + 'a>,
        /// The matrix's width when the two stand side by side; else they are stacked.
        beside: Option<u16>,
    },
}

impl<'a> Body<'a> {
    /// The panes at the body's width: the matrix beside the other pane when both fit, else
    /// the matrix above it.
    ///
    /// On a short terminal the similarity and picture panes take the whole width: beside the
    /// matrix they would have room for neither their nearest rows nor their dots.
    fn build(app: &'a App, width: u16, short: bool) -> Self {
        // Compare mode's panes span the body; so does every head's map (and the lesson's
        // RoPE step), which needs the room more than the matrix does.
        let alone = app.head_overview()
            || lesson::attention_alone(app)
            || (short && matches!(app.detail(), Detail::Similarity | Detail::Picture));
        if app.compare().is_some() || (alone && !lesson::hides_answers(app)) {
            return Self::Whole(hidden_until_guessed(app, width, detail(app, width)));
        }
        let matrix_width = u16::try_from(matrix::natural_width(app.model())).unwrap_or(u16::MAX);
        let beside =
            (width >= matrix_width.saturating_add(LOOKUPS_MIN_WIDTH)).then_some(matrix_width);
        // Under a wide matrix, the lesson's picture of what the layer takes in would keep
        // only its first lines: it takes the body, as the step is about it, not the matrix.
        if beside.is_none() && lesson::shows_signature(app) {
            return Self::Whole(detail(app, width));
        }
        let (matrix, detail_width) = match beside {
            Some(matrix_width) => (
                Box::new(matrix::build(matrix_input(app), matrix_width)),
                width - matrix_width,
            ),
            None => (Box::new(matrix::build(matrix_input(app), width)), width),
        };
        let detail = hidden_until_guessed(app, detail_width, detail(app, detail_width));
        Self::Split {
            matrix,
            detail,
            beside,
        }
    }

    /// The rows the panes would like.
    fn height(&self) -> usize {
        match self {
            Self::Whole(pane) => pane.height(),
            Self::Split {
                matrix,
                detail,
                beside: Some(_),
            } => matrix.height().max(detail.height()),
            Self::Split { matrix, detail, .. } => matrix.height() + detail.height(),
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, hits: &mut HitMap) {
        match self {
            Self::Whole(pane) => pane.render(area, buf, hits),
            Self::Split {
                matrix,
                detail,
                beside,
            } => {
                let [matrix_area, detail_area] = split(matrix, detail.as_ref(), *beside, area);
                matrix.render(matrix_area, buf, hits);
                detail.render(detail_area, buf, hits);
            }
        }
    }
}

/// Makes [`open_pane`], the one dispatch over the panes beside the matrix, from their list.
macro_rules! pane_builders {
    ($($(#[$doc:meta])* $id:ident => $module:ident,)*) => {
        /// The open pane beside the matrix, its input made from the app and built at a width.
        fn open_pane(app: &App, width: u16) -> Box<dyn Pane + '_> {
            match app.detail() {
                $(Detail::$id => {
                    let input = crate::panes::$module::input(app);
                    Box::new(crate::panes::$module::build(input, width))
                })*
            }
        }
    };
}
crate::panes::detail_panes!(pane_builders);

/// The pane chosen, built at a width.
///
/// Beside the matrix, the lesson's picture of the layer's inputs stands in when its step shows
/// it; in compare mode the comparison (or both sentences' dots in the picture, while that is
/// open) takes the pane's place.
fn detail(app: &App, width: u16) -> Box<dyn Pane + '_> {
    let comparing = app.compare().is_some();
    if !comparing && lesson::shows_signature(app) {
        let input = signature::Signature {
            lookups: app.lookups(),
            shape: (app.model().rows(), app.model().dims()),
            theme: app.theme(),
        };
        return Box::new(signature::build(&input, width));
    }
    if comparing && app.detail() != Detail::Picture {
        return Box::new(compare::build(compare_input(app), width));
    }
    open_pane(app, width)
}

/// Which of compare mode's tables the lesson's body, drawn in `body`, has room for: both
/// when compare mode is off or its pane is hidden until the learner guesses.
fn lesson_compare_tables(app: &App, body: Rect) -> CompareTables {
    if app.compare().is_none() || lesson::hides_answers(app) || app.detail() == Detail::Picture {
        return CompareTables::BOTH;
    }
    compare::build(compare_input(app), body.width)
        .tables_drawn(body.height)
        .unwrap_or(CompareTables::BOTH)
}

/// What the lesson panel reads at a width, when a lesson is on, beside the compare tables the
/// body has room for.
fn lesson_input(app: &App, width: u16, compare_tables: CompareTables) -> Option<lesson::Input> {
    let theme = app.theme();
    let inner = usize::from(width).saturating_sub(2).max(1);
    Some(lesson::Input {
        progress: app.lesson()?,
        architecture: match app.real_layer() {
            RealLayer::Open(layer) => Some(layer.architecture()),
            RealLayer::Unavailable(_) | RealLayer::None => None,
        },
        causal_layer: match app.real_layer() {
            RealLayer::Open(layer) if layer.is_causal() => Some(layer.architecture()),
            _ => None,
        },
        has_row: app
            .lookups()
            .get(app.step())
            .is_some_and(|lookup| lookup.token_vector.is_some()),
        comparing: app.compare().is_some(),
        compare_tables,
        finding: readout::finding(&readout_input(app)),
        rope_copies: attention::positions::rope_copies(app.rope_copies(), inner, theme),
        theme,
    })
}

/// What the input pane reads.
fn sentence_input(app: &App) -> input::Input<'_> {
    let typing = app.focus() == Focus::Input;
    let typing_first = typing && !app.compare().is_some_and(CompareMode::editing_other);
    input::Input {
        typing,
        textarea: app.textarea(),
        text: (!typing_first).then(|| app.text()),
        tokens: app.tokens(),
        step: app.step(),
        compare: app.compare(),
        hints: lesson::hint_scope(app),
        theme: app.theme(),
    }
}

/// What the help bar reads: the key table's entries for the scope, those the lesson says do
/// nothing now left out, and the next step named "finish" on the last.
fn bar(app: &App) -> help::Bar<'_> {
    let mut entries = bar_entries(app.scope());
    entries.retain(|entry| lesson::works_now(app, &entry.action));
    // On the last step the lesson's next step is its end.
    if app.lesson().is_some_and(|progress| progress.is_last()) {
        for entry in &mut entries {
            if entry.action == Action::LessonNext {
                entry.words = "finish";
            }
        }
    }
    help::Bar {
        scope: app.scope(),
        prompt: app.prompt(),
        status: app.status(),
        entries,
        theme: app.theme(),
    }
}

/// What the token strip reads.
fn tokens_input(app: &App) -> tokens::Input<'_> {
    let ids = if lesson::hides_answers(app) {
        tokens::Ids::Hidden
    } else if lesson::hides_copies(app) {
        tokens::Ids::CurrentOnly
    } else {
        tokens::Ids::Shown
    };
    tokens::Input {
        tokens: app.tokens(),
        step: app.step(),
        count: app
            .unread()
            .map_or_else(|| app.tokens().len().to_string(), Unread::note),
        vocabulary: app.model().label(),
        ids,
        note: app.ids_only_note(),
        reading: app
            .model()
            .tokenizer()
            .filter(|_| app.reading_tokenizer())
            .map(|tokenizer| {
                if tokenizer.names_read() {
                    tokens::Reading::Reader(tokenizer.vocab_size())
                } else {
                    tokens::Reading::Names
                }
            }),
        theme: app.theme(),
    }
}

/// What the matrix pane reads: during a lesson question no row is marked, as the marks would
/// answer it (two copies, one marked row).
fn matrix_input(app: &App) -> matrix::Input<'_> {
    let hidden = lesson::hides_answers(app);
    let copies_hidden = hidden || lesson::hides_copies(app);
    matrix::Input {
        model: app.model(),
        wide_style: app.wide_style(),
        cursor: app.matrix_cursor(),
        current: app
            .current_token()
            .and_then(|token| token.id)
            .filter(|_| !hidden),
        moved_to: (!hidden && app.matrix_cursor_moved()).then(|| app.matrix_cursor()),
        used: Box::new(move |id| !copies_hidden && app.uses_row(id)),
        generating: generating(app),
        theme: app.theme(),
    }
}

/// What the readout reads.
fn readout_input(app: &App) -> readout::Input<'_> {
    readout::Input {
        model: app.model(),
        lookups: app.lookups(),
        step: app.step(),
        awaited: app.waiting_for_tables().then(|| {
            if app.reading_tokenizer() {
                "the tokenizer is read"
            } else {
                "the tables are generated"
            }
        }),
        compare: app
            .compare()
            .map(|_| matches!(app.real_layer(), RealLayer::Open(_))),
        typing: app.focus() == Focus::Input,
        scheme: app.scheme(),
        active_scheme: app.active_scheme(),
        overlay: app.overlay(),
        mask: app.mask(),
        page: app.explanation_page(),
        theme: app.theme(),
    }
}

/// While a lesson question waits for its answer, the pane that would give it away is kept
/// out of sight, at its own size.
fn hidden_until_guessed<'a>(
    app: &'a App,
    width: u16,
    pane: Box<dyn Pane + 'a>,
) -> Box<dyn Pane + 'a> {
    if lesson::hides_answers(app) {
        Box::new(Hidden {
            hidden: pane,
            shown: lesson::guess_first(app.theme(), width),
        })
    } else {
        pane
    }
}

/// Matrix beside the other pane, or the matrix above it.
///
/// Stacked, each pane gets what it needs when both fit; when they do not, the other pane gets
/// what it needs as long as the matrix keeps a few rows, and the matrix scrolls in the rest.
fn split(matrix: &matrix::Matrix, detail: &dyn Pane, beside: Option<u16>, body: Rect) -> [Rect; 2] {
    if let Some(matrix_width) = beside {
        return body.layout(&Layout::horizontal([
            Constraint::Length(matrix_width),
            Constraint::Fill(1),
        ]));
    }
    let matrix_need = matrix.height();
    let detail_need = detail.height();
    let height = usize::from(body.height);
    let matrix_height = if matrix_need + detail_need <= height {
        matrix_need
    } else {
        height
            .saturating_sub(detail_need)
            .max(MATRIX_MIN_HEIGHT)
            .min(height.saturating_sub(detail.least_height()))
    };
    body.layout(&Layout::vertical([
        Constraint::Length(u16::try_from(matrix_height).unwrap_or(u16::MAX)),
        Constraint::Fill(1),
    ]))
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
