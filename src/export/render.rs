//! A drawn buffer as SVG, HTML or plain text: every cell where the terminal put it.

use std::fmt::Write as _;

use ratatui::buffer::{Buffer, Cell};
use ratatui::style::{Color, Modifier};
use unicode_width::UnicodeWidthStr;

/// The width of a cell in the SVG, in pixels.
pub const CELL_WIDTH: u32 = 10;
/// The height of a line in the SVG, in pixels.
pub const LINE_HEIGHT: u32 = 18;
/// Where a line's text sits below its top (the baseline), in pixels.
pub const BASELINE: u32 = 14;
/// The font size whose box-drawing characters fill a line of [`LINE_HEIGHT`], so borders join.
const FONT_SIZE: u32 = 16;
/// Monospace fonts found on Linux, macOS and Windows, then the generic one.
pub const FONT_STACK: &str =
    "'DejaVu Sans Mono', Menlo, Consolas, 'Liberation Mono', 'Courier New', monospace";
/// The terminal's own foreground, where the screen leaves the colour to the terminal.
const DEFAULT_FG: (u8, u8, u8) = (0xd4, 0xd4, 0xd4);
/// The terminal's own background.
const DEFAULT_BG: (u8, u8, u8) = (0x1e, 0x1e, 0x1e);

/// A run of cells on one row with the same look.
struct Run {
    /// The first column.
    x: u16,
    /// How many columns it covers.
    width: u16,
    /// Its characters (a wide character's second column adds nothing).
    text: String,
    /// Each cell's column and characters.
    cells: Vec<(u16, String)>,
    /// Its foreground and background after reverse is applied, and its modifiers.
    look: Look,
}

/// How a run looks: colours resolved (reverse swaps them), and the modifiers drawn.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Look {
    fg: (u8, u8, u8),
    bg: (u8, u8, u8),
    /// Bold, italic, underlined and dim: the modifiers a picture can show (reverse is in the
    /// colours already).
    modifier: Modifier,
}

/// The modifiers a run keeps.
const DRAWN: Modifier = Modifier::BOLD
    .union(Modifier::ITALIC)
    .union(Modifier::UNDERLINED)
    .union(Modifier::DIM);

impl Look {
    fn of(cell: &Cell) -> Self {
        let mut fg = rgb(cell.fg).unwrap_or(DEFAULT_FG);
        let mut bg = rgb(cell.bg).unwrap_or(DEFAULT_BG);
        if cell.modifier.contains(Modifier::REVERSED) {
            std::mem::swap(&mut fg, &mut bg);
        }
        Self {
            fg,
            bg,
            modifier: cell.modifier.intersection(DRAWN),
        }
    }

    fn plain(self) -> bool {
        self == Self::default()
    }

    fn has(self, modifier: Modifier) -> bool {
        self.modifier.contains(modifier)
    }
}

impl Default for Look {
    fn default() -> Self {
        Self {
            fg: DEFAULT_FG,
            bg: DEFAULT_BG,
            modifier: Modifier::empty(),
        }
    }
}

/// A colour as `#rrggbb`.
fn hex((r, g, b): (u8, u8, u8)) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// The sixteen named colours, as xterm-like terminals draw them, in ANSI order.
const ANSI: [(u8, u8, u8); 16] = [
    (0x00, 0x00, 0x00),
    (0xcd, 0x31, 0x31),
    (0x0d, 0xbc, 0x79),
    (0xe5, 0xe5, 0x10),
    (0x24, 0x72, 0xc8),
    (0xbc, 0x3f, 0xbc),
    (0x11, 0xa8, 0xcd),
    (0xe5, 0xe5, 0xe5),
    (0x66, 0x66, 0x66),
    (0xf1, 0x4c, 0x4c),
    (0x23, 0xd1, 0x8b),
    (0xf5, 0xf5, 0x43),
    (0x3b, 0x8e, 0xea),
    (0xd6, 0x70, 0xd6),
    (0x29, 0xb8, 0xdb),
    (0xff, 0xff, 0xff),
];

/// A colour's red, green and blue, or `None` for the terminal's own (`Reset`).
fn rgb(color: Color) -> Option<(u8, u8, u8)> {
    let index = match color {
        Color::Reset => return None,
        Color::Rgb(r, g, b) => return Some((r, g, b)),
        Color::Indexed(index) => return Some(indexed(index)),
        Color::Black => 0,
        Color::Red => 1,
        Color::Green => 2,
        Color::Yellow => 3,
        Color::Blue => 4,
        Color::Magenta => 5,
        Color::Cyan => 6,
        Color::Gray => 7,
        Color::DarkGray => 8,
        Color::LightRed => 9,
        Color::LightGreen => 10,
        Color::LightYellow => 11,
        Color::LightBlue => 12,
        Color::LightMagenta => 13,
        Color::LightCyan => 14,
        Color::White => 15,
    };
    Some(ANSI[index])
}

/// The 256-colour palette: the named sixteen, a 6×6×6 cube, then 24 greys.
fn indexed(index: u8) -> (u8, u8, u8) {
    const LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];
    match index {
        0..=15 => ANSI[usize::from(index)],
        16..=231 => {
            let cube = index - 16;
            (
                LEVELS[usize::from(cube / 36)],
                LEVELS[usize::from(cube / 6 % 6)],
                LEVELS[usize::from(cube % 6)],
            )
        }
        _ => {
            let grey = 8 + 10 * (index - 232);
            (grey, grey, grey)
        }
    }
}

/// A row's cells as the terminal shows them: each with its column, skipping the columns a wide
/// character covers (as ratatui's `TestBackend` reads them).
fn visible_cells(buffer: &Buffer, y: u16) -> Vec<(u16, &Cell)> {
    let mut cells = Vec::with_capacity(usize::from(buffer.area.width));
    let mut covered = 0;
    for x in buffer.area.left()..buffer.area.right() {
        let cell = &buffer[(x, y)];
        if covered == 0 {
            cells.push((x - buffer.area.left(), cell));
        }
        covered = usize::max(covered, cell.symbol().width()).saturating_sub(1);
    }
    cells
}

/// A row cut into runs of cells that look the same.
fn runs(buffer: &Buffer, y: u16) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for (x, cell) in visible_cells(buffer, y) {
        let look = Look::of(cell);
        let width = u16::try_from(cell.symbol().width().max(1)).unwrap_or(1);
        match runs.last_mut() {
            Some(run) if run.look == look && run.x + run.width == x => {
                run.text.push_str(cell.symbol());
                run.cells.push((x, cell.symbol().to_owned()));
                run.width += width;
            }
            _ => runs.push(Run {
                x,
                width,
                text: cell.symbol().to_owned(),
                cells: vec![(x, cell.symbol().to_owned())],
                look,
            }),
        }
    }
    runs
}

/// Text with the characters XML gives meaning to escaped; control characters, which XML
/// cannot hold, become `?`.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            c if c.is_control() => escaped.push('?'),
            c => escaped.push(c),
        }
    }
    escaped
}

/// The buffer as plain text: the cells row by row, trailing spaces trimmed.
#[must_use]
pub fn to_text(buffer: &Buffer) -> String {
    let mut text = String::new();
    for y in buffer.area.top()..buffer.area.bottom() {
        let row: String = visible_cells(buffer, y)
            .into_iter()
            .map(|(_, cell)| cell.symbol())
            .collect();
        text.push_str(row.trim_end_matches(' '));
        text.push('\n');
    }
    text
}

/// The buffer as an SVG picture the terminal's size: a background rectangle for every run of
/// cells with a background of its own, and a group for every run with characters, each cell's
/// character a `<text>` of its own at x = column × [`CELL_WIDTH`] on its row's line, so no
/// font's own advance can move the grid (renderers such as librsvg take only the first x of
/// a list, and ignore `textLength`).
#[must_use]
pub fn to_svg(buffer: &Buffer) -> String {
    let width = u32::from(buffer.area.width) * CELL_WIDTH;
    let height = u32::from(buffer.area.height) * LINE_HEIGHT;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"{FONT_STACK}\" font-size=\"{FONT_SIZE}\">\n\
         <rect width=\"{width}\" height=\"{height}\" fill=\"{}\"/>\n",
        hex(DEFAULT_BG)
    );
    for (row, y) in (buffer.area.top()..buffer.area.bottom()).enumerate() {
        let top = u32::try_from(row).unwrap_or(u32::MAX) * LINE_HEIGHT;
        for run in runs(buffer, y) {
            let left = u32::from(run.x) * CELL_WIDTH;
            let span = u32::from(run.width) * CELL_WIDTH;
            if run.look.bg != DEFAULT_BG {
                let _ = writeln!(
                    svg,
                    "<rect x=\"{left}\" y=\"{top}\" width=\"{span}\" height=\"{LINE_HEIGHT}\" fill=\"{}\"/>",
                    hex(run.look.bg)
                );
            }
            if run.text.trim().is_empty() {
                continue;
            }
            let mut attributes = format!("fill=\"{}\"", hex(run.look.fg));
            if run.look.has(Modifier::BOLD) {
                attributes.push_str(" font-weight=\"bold\"");
            }
            if run.look.has(Modifier::ITALIC) {
                attributes.push_str(" font-style=\"italic\"");
            }
            if run.look.has(Modifier::UNDERLINED) {
                attributes.push_str(" text-decoration=\"underline\"");
            }
            if run.look.has(Modifier::DIM) {
                attributes.push_str(" opacity=\"0.6\"");
            }
            let _ = write!(svg, "<g {attributes}>");
            let baseline = top + BASELINE;
            for (column, symbol) in run.cells.iter().filter(|(_, symbol)| symbol.trim() != "") {
                let _ = write!(
                    svg,
                    "<text x=\"{}\" y=\"{baseline}\">{}</text>",
                    u32::from(*column) * CELL_WIDTH,
                    escape(symbol)
                );
            }
            svg.push_str("</g>\n");
        }
    }
    svg.push_str("</svg>\n");
    svg
}

/// The buffer as an HTML page: a `<pre>` of its rows, each run that looks other than plain
/// in a `<span>` with its colours and weight.
#[must_use]
pub fn to_html(buffer: &Buffer, title: &str) -> String {
    let mut html = format!(
        "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n</head>\n\
         <body style=\"margin:0;background:{bg}\">\n<pre style=\"margin:0;font-family:{FONT_STACK};\
         font-size:{FONT_SIZE}px;line-height:{LINE_HEIGHT}px;color:{fg};background:{bg}\">",
        escape(title),
        fg = hex(DEFAULT_FG),
        bg = hex(DEFAULT_BG),
    );
    for y in buffer.area.top()..buffer.area.bottom() {
        for run in runs(buffer, y) {
            if run.look.plain() {
                html.push_str(&escape(&run.text));
                continue;
            }
            let look = run.look;
            let mut style = format!("color:{};background:{}", hex(look.fg), hex(look.bg));
            if look.has(Modifier::BOLD) {
                style.push_str(";font-weight:bold");
            }
            if look.has(Modifier::ITALIC) {
                style.push_str(";font-style:italic");
            }
            if look.has(Modifier::UNDERLINED) {
                style.push_str(";text-decoration:underline");
            }
            if look.has(Modifier::DIM) {
                style.push_str(";opacity:0.6");
            }
            let _ = write!(html, "<span style=\"{style}\">{}</span>", escape(&run.text));
        }
        html.push('\n');
    }
    html.push_str("</pre>\n</body>\n</html>\n");
    html
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    /// A 12×2 buffer: a red bold word, a reversed one, a wide character and markup.
    fn sample() -> Buffer {
        let mut buffer = Buffer::empty(Rect::new(0, 0, 12, 2));
        buffer.set_string(0, 0, "fox", Style::new().fg(Color::Red).bold());
        buffer.set_string(4, 0, "ab", Style::new().reversed());
        buffer.set_string(7, 0, "×中", Style::new());
        buffer.set_string(0, 1, "a<b & \"c\"", Style::new().bg(Color::Indexed(17)));
        buffer
    }

    /// The characters of an SVG's `<text>` elements: each one's x, its line's y, and itself.
    fn svg_chars(svg: &str) -> Vec<(u32, u32, char)> {
        svg.split("<text ")
            .skip(1)
            .flat_map(|element| {
                let (tag, text) = element.split_once('>').unwrap();
                let tag = format!(" {tag}");
                let attribute = |name: &str| -> &str {
                    let start = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
                    tag[start..].split('"').next().unwrap()
                };
                let xs: Vec<u32> = attribute("x")
                    .split(' ')
                    .map(|x| x.parse().unwrap())
                    .collect();
                let y: u32 = attribute("y").parse().unwrap();
                let text = text.split("</text>").next().unwrap();
                let text = text
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&quot;", "\"")
                    .replace("&apos;", "'")
                    .replace("&amp;", "&");
                assert_eq!(xs.len(), 1, "one x: renderers take only the first");
                assert_eq!(text.chars().count(), 1, "one character a cell here");
                vec![(xs[0], y, text.chars().next().unwrap())]
            })
            .collect()
    }

    /// Every tag closed in order and every `&` an entity: enough of XML to catch a broken file.
    pub(crate) fn assert_well_formed(xml: &str) {
        let mut open: Vec<&str> = Vec::new();
        let mut rest = xml;
        while let Some(start) = rest.find('<') {
            assert!(!rest[..start].contains('>'), "a stray > in {xml}");
            let text = &rest[..start];
            for (i, _) in text.match_indices('&') {
                let entity = &text[i..text[i..].find(';').map_or(text.len(), |end| i + end + 1)];
                assert!(
                    ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].contains(&entity),
                    "a bare & in {text}"
                );
            }
            let end = rest[start..].find('>').expect("an unclosed tag") + start;
            let tag = &rest[start + 1..end];
            assert!(!tag.contains('<'), "a < inside a tag: {tag}");
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(open.pop(), Some(name), "</{name}> closes the wrong tag");
            } else if !tag.ends_with('/') && !tag.starts_with('!') {
                open.push(tag.split_whitespace().next().unwrap());
            }
            rest = &rest[end + 1..];
        }
        assert!(open.is_empty(), "unclosed: {open:?}");
    }

    #[test]
    fn text_is_the_cells_row_by_row_trimmed() {
        assert_eq!(to_text(&sample()), "fox ab ×中\na<b & \"c\"\n");
    }

    #[test]
    fn svg_is_well_formed_and_the_terminals_size() {
        let svg = to_svg(&sample());
        assert_well_formed(&svg);
        assert!(
            svg.starts_with(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"120\" height=\"36\""
            )
        );
        assert!(svg.contains("monospace"));
    }

    #[test]
    fn svg_text_sits_on_the_grid_and_reads_as_the_buffer() {
        let buffer = sample();
        let mut rows = vec![vec![' '; 12]; 2];
        for (x, y, c) in svg_chars(&to_svg(&buffer)) {
            assert_eq!(x % CELL_WIDTH, 0);
            assert_eq!((y - BASELINE) % LINE_HEIGHT, 0);
            let (column, row) = (
                (x / CELL_WIDTH) as usize,
                ((y - BASELINE) / LINE_HEIGHT) as usize,
            );
            rows[row][column] = c;
        }
        let drawn: String = rows
            .iter()
            .map(|row| {
                let mut line = String::new();
                let mut covered = 0;
                for &c in row {
                    if covered == 0 {
                        line.push(c);
                    }
                    covered = usize::max(covered, c.to_string().width()).saturating_sub(1);
                }
                line.trim_end().to_owned() + "\n"
            })
            .collect();
        assert_eq!(drawn, to_text(&buffer));
    }

    #[test]
    fn svg_keeps_colours_bold_and_reverse() {
        let svg = to_svg(&sample());
        let red = hex(ANSI[1]);
        assert!(
            svg.contains(&format!(
                "<g fill=\"{red}\" font-weight=\"bold\"><text x=\"0\" y=\"14\">f</text>\
                 <text x=\"10\" y=\"14\">o</text><text x=\"20\" y=\"14\">x</text></g>"
            )),
            "{svg}"
        );
        // Reversed: the default colours swapped, the foreground as the background.
        assert!(svg.contains(&format!(
            "<rect x=\"40\" y=\"0\" width=\"20\" height=\"18\" fill=\"{}\"/>",
            hex(DEFAULT_FG)
        )));
        assert!(svg.contains(&format!(
            "<g fill=\"{}\"><text x=\"40\" y=\"14\">a</text>",
            hex(DEFAULT_BG)
        )));
        assert!(svg.contains(&format!("fill=\"{}\"", hex(indexed(17)))));
        assert!(svg.contains("<text x=\"10\" y=\"32\">&lt;</text>"));
        assert!(svg.contains("<text x=\"40\" y=\"32\">&amp;</text>"));
    }

    #[test]
    fn html_is_a_pre_of_the_same_cells() {
        let html = to_html(&sample(), "fox & <friends>");
        assert_well_formed(
            html.trim_start_matches("<!DOCTYPE html>\n")
                .replace("<meta charset=\"utf-8\">", "")
                .as_str(),
        );
        let pre = html.split_once("\">").unwrap().1;
        let pre = &pre[pre.find("<pre").unwrap()..];
        let body = pre
            .split_once('>')
            .unwrap()
            .1
            .split("</pre>")
            .next()
            .unwrap();
        let mut text = String::new();
        let mut inside = false;
        for c in body.chars() {
            match c {
                '<' => inside = true,
                '>' => inside = false,
                c if !inside => text.push(c),
                _ => {}
            }
        }
        let text = text
            .replace("&lt;", "<")
            .replace("&quot;", "\"")
            .replace("&amp;", "&");
        let trimmed: String = text
            .lines()
            .map(|line| line.trim_end().to_owned() + "\n")
            .collect();
        assert_eq!(trimmed, to_text(&sample()));
        assert!(html.contains(&format!(
            "color:{};background:{};font-weight:bold\">fox",
            hex(ANSI[1]),
            hex(DEFAULT_BG)
        )));
        assert!(html.contains("<title>fox &amp; &lt;friends&gt;</title>"));
    }

    #[test]
    fn the_palette_matches_xterm() {
        assert_eq!(indexed(16), (0, 0, 0));
        assert_eq!(indexed(231), (255, 255, 255));
        assert_eq!(indexed(196), (255, 0, 0));
        assert_eq!(indexed(232), (8, 8, 8));
        assert_eq!(indexed(255), (238, 238, 238));
        assert_eq!(rgb(Color::Reset), None);
    }
}
