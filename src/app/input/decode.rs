//! Bytes from the terminal into events: keys, mouse reports, focus and bracketed pastes.
//!
//! The sequences and the events they become are crossterm's (its `parse.rs`, MIT licence), so
//! the explorer sees the same events it saw when crossterm read the terminal. What differs is
//! what a sequence that never ends costs. crossterm holds every byte after a paste's start
//! (`ESC [200~`) until the paste's end arrives, so a start with no end swallowed every later
//! key, Ctrl+C included. Here every unfinished sequence is bounded twice: by length (a paste
//! is handed on in pieces of at most [`PASTE_PIECE`] bytes, any other sequence is dropped past
//! [`LONGEST_SEQUENCE`] bytes) and by time ([`Decoder::flush`], called by the reader when the
//! terminal has been quiet for [`QUIET`], ends an unfinished paste with what it has and drops
//! an unfinished sequence).

use std::collections::VecDeque;
use std::time::Duration;

use ratatui::crossterm::event::{
    Event, KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

/// How long the terminal may be quiet inside an unfinished sequence before it is ended.
///
/// Terminals write a paste, and every key's sequence, in one go; a pause this long inside one
/// means its end is not coming.
pub const QUIET: Duration = Duration::from_millis(250);

/// The most bytes of a paste held before they are handed on as a paste of their own.
pub const PASTE_PIECE: usize = 1 << 20;

/// The longest escape sequence a key, mouse or focus report takes; anything longer is noise.
pub const LONGEST_SEQUENCE: usize = 64;

const PASTE_END: &[u8] = b"\x1b[201~";

/// What the bytes so far make.
enum Parsed {
    /// An event, and the bytes it took are done with.
    Event(Event),
    /// A sequence embedlens has no use for (a cursor report, a device attribute, an unknown key):
    /// its bytes are done with.
    Ignored,
    /// A paste starts; the bytes that follow are its text.
    PasteStart,
    /// The sequence needs more bytes.
    Incomplete,
}

/// Turns the terminal's bytes into events, one byte at a time, holding an unfinished sequence
/// across reads.
#[derive(Debug, Default)]
pub struct Decoder {
    /// The bytes of the sequence being read.
    pending: Vec<u8>,
    /// The text of the paste being read, when one has started.
    paste: Option<Vec<u8>>,
    /// Events decoded and not yet taken.
    events: VecDeque<Event>,
    /// The rest of a control sequence dropped for its length is being skipped, up to its end.
    skipping: bool,
}

impl Decoder {
    /// Reads `bytes`; `more` says whether more bytes were already waiting when they were read
    /// (so that a lone Esc is a key only when nothing follows it).
    pub fn feed(&mut self, bytes: &[u8], more: bool) {
        for (index, &byte) in bytes.iter().enumerate() {
            let more = more || index + 1 < bytes.len();
            if let Some(paste) = &mut self.paste {
                paste.push(byte);
                if paste.ends_with(PASTE_END) {
                    paste.truncate(paste.len() - PASTE_END.len());
                    self.end_paste();
                } else if paste.len() >= PASTE_PIECE + PASTE_END.len() {
                    // Hand on all but the bytes that may be the start of the end marker.
                    let keep = paste.split_off(paste.len() - PASTE_END.len());
                    let piece = std::mem::replace(paste, keep);
                    self.events.push_back(Event::Paste(text_of(piece)));
                }
                continue;
            }
            if self.skipping {
                self.skipping = (0x20..=0x3f).contains(&byte);
                if self.skipping || (0x40..=0x7e).contains(&byte) {
                    continue;
                }
            }
            self.pending.push(byte);
            match parse(&self.pending, more) {
                Some(Parsed::Event(event)) => {
                    self.events.push_back(event);
                    self.pending.clear();
                }
                Some(Parsed::Ignored) | None => self.pending.clear(),
                Some(Parsed::PasteStart) => {
                    self.pending.clear();
                    self.paste = Some(Vec::new());
                }
                Some(Parsed::Incomplete) if self.pending.len() <= LONGEST_SEQUENCE => {}
                Some(Parsed::Incomplete) => {
                    self.skipping = self.pending.starts_with(b"\x1b[");
                    self.pending.clear();
                }
            }
        }
    }

    /// Ends whatever is unfinished, as the reader does after [`QUIET`] without a byte: a paste
    /// becomes a paste of what arrived, a lone Esc the Esc key, any other sequence is dropped.
    pub fn flush(&mut self) {
        if self.paste.is_some() {
            self.end_paste();
        }
        if self.pending == b"\x1b" {
            self.events.push_back(Event::Key(KeyCode::Esc.into()));
        }
        self.pending.clear();
        self.skipping = false;
    }

    /// Whether a sequence or a paste is unfinished, so the reader should not wait for long.
    #[must_use]
    pub fn is_unfinished(&self) -> bool {
        self.paste.is_some() || !self.pending.is_empty()
    }

    /// The next decoded event.
    pub fn next_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    fn end_paste(&mut self) {
        if let Some(paste) = self.paste.take() {
            self.events.push_back(Event::Paste(text_of(paste)));
        }
    }
}

/// A paste's bytes as text, any invalid UTF-8 replaced.
fn text_of(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}

fn key(code: KeyCode, modifiers: KeyModifiers) -> Parsed {
    Parsed::Event(Event::Key(KeyEvent::new(code, modifiers)))
}

fn plain(code: KeyCode) -> Parsed {
    key(code, KeyModifiers::NONE)
}

/// What `buffer` (one sequence, from its first byte) makes; `None` when it cannot be one.
fn parse(buffer: &[u8], more: bool) -> Option<Parsed> {
    let (&first, rest) = buffer.split_first()?;
    Some(match first {
        0x1b => return parse_escape(rest, more),
        b'\r' => plain(KeyCode::Enter),
        // In raw mode the terminal leaves a newline as it is: the key that sends it is Ctrl+J.
        b'\n' => key(KeyCode::Char('j'), KeyModifiers::CONTROL),
        b'\t' => plain(KeyCode::Tab),
        0x7f => plain(KeyCode::Backspace),
        0 => key(KeyCode::Char(' '), KeyModifiers::CONTROL),
        c @ 0x01..=0x1a => key(
            KeyCode::Char(char::from(c - 1 + b'a')),
            KeyModifiers::CONTROL,
        ),
        c @ 0x1c..=0x1f => key(
            KeyCode::Char(char::from(c - 0x1c + b'4')),
            KeyModifiers::CONTROL,
        ),
        _ => return parse_char(buffer),
    })
}

/// A character typed, shifted when it is a capital.
fn parse_char(buffer: &[u8]) -> Option<Parsed> {
    let wanted = match buffer[0] {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => return None,
    };
    if buffer[1..].iter().any(|byte| byte & 0xc0 != 0x80) {
        return None;
    }
    if buffer.len() < wanted {
        return Some(Parsed::Incomplete);
    }
    let c = std::str::from_utf8(buffer).ok()?.chars().next()?;
    let modifiers = if c.is_uppercase() {
        KeyModifiers::SHIFT
    } else {
        KeyModifiers::NONE
    };
    Some(key(KeyCode::Char(c), modifiers))
}

/// What follows an Esc: nothing (the Esc key), `O` (SS3), `[` (CSI) or a key pressed with Alt.
fn parse_escape(rest: &[u8], more: bool) -> Option<Parsed> {
    let Some((&second, tail)) = rest.split_first() else {
        return Some(if more {
            Parsed::Incomplete
        } else {
            plain(KeyCode::Esc)
        });
    };
    match second {
        b'[' => parse_csi(tail),
        b'O' => Some(match tail.first() {
            None => Parsed::Incomplete,
            Some(&last) => final_key(last).map_or(Parsed::Ignored, plain),
        }),
        0x1b => Some(plain(KeyCode::Esc)),
        _ => match parse(rest, more)? {
            Parsed::Event(Event::Key(mut key)) => {
                key.modifiers |= KeyModifiers::ALT;
                Some(Parsed::Event(Event::Key(key)))
            }
            other => Some(other),
        },
    }
}

/// The key a CSI or SS3 sequence ending in `last` names, if it names one by its last byte.
fn final_key(last: u8) -> Option<KeyCode> {
    Some(match last {
        b'A' => KeyCode::Up,
        b'B' => KeyCode::Down,
        b'C' => KeyCode::Right,
        b'D' => KeyCode::Left,
        b'H' => KeyCode::Home,
        b'F' => KeyCode::End,
        b'P' => KeyCode::F(1),
        b'Q' => KeyCode::F(2),
        b'R' => KeyCode::F(3),
        b'S' => KeyCode::F(4),
        _ => return None,
    })
}

/// A control sequence after `ESC [`: parameters, then one final byte.
fn parse_csi(body: &[u8]) -> Option<Parsed> {
    // The old X10 mouse report: `ESC [ M` and three raw bytes.
    if body.first() == Some(&b'M') {
        return Some(if body.len() < 4 {
            Parsed::Incomplete
        } else {
            parse_x10_mouse(&body[1..4]).unwrap_or(Parsed::Ignored)
        });
    }
    let Some((&last, params)) = body.split_last() else {
        return Some(Parsed::Incomplete);
    };
    match last {
        // Parameter and intermediate bytes: the sequence goes on.
        0x20..=0x3f => return Some(Parsed::Incomplete),
        0x40..=0x7e => {}
        _ => return None,
    }
    if params.iter().any(|&byte| !(0x20..=0x3f).contains(&byte)) {
        return None;
    }
    if let Some(mouse) = params.strip_prefix(b"<") {
        return Some(parse_sgr_mouse(mouse, last).unwrap_or(Parsed::Ignored));
    }
    let numbers = numbers(params);
    Some(match (last, numbers.as_deref()) {
        (b'~', Some([200])) => Parsed::PasteStart,
        // A paste's end with no start (201) names no key, and is skipped with the rest.
        (b'~', Some([code, rest @ ..])) => tilde_key(*code).map_or(Parsed::Ignored, |code| {
            key(code, modifiers_of(rest.first().copied()))
        }),
        (b'Z', _) => key(KeyCode::BackTab, KeyModifiers::SHIFT),
        (b'I', Some([])) => Parsed::Event(Event::FocusGained),
        (b'O', Some([])) => Parsed::Event(Event::FocusLost),
        (b'u', Some([code, rest @ ..])) => csi_u_key(*code, rest.first().copied()),
        (last, Some(numbers)) if last != b'R' || numbers.is_empty() => {
            // `ESC [ row ; column R` answers a cursor-position query (crossterm reads it so),
            // and is skipped below; `ESC [1;5A` is Ctrl+Up: the modifiers are the second number.
            final_key(last).map_or(Parsed::Ignored, |code| {
                key(code, modifiers_of(numbers.get(1).copied()))
            })
        }
        _ => Parsed::Ignored,
    })
}

/// The numbers of a sequence's parameters (`1;5` → 1, 5; an empty one is 1, as terminals mean);
/// `None` when the parameters are not plain numbers (`?` or `>` sequences, sub-parameters).
fn numbers(params: &[u8]) -> Option<Vec<u32>> {
    if params.is_empty() {
        return Some(Vec::new());
    }
    params
        .split(|&byte| byte == b';')
        .map(|part| {
            if part.is_empty() {
                return Some(1);
            }
            std::str::from_utf8(part).ok()?.parse().ok()
        })
        .collect()
}

/// The keys of `ESC [ n ~`.
fn tilde_key(code: u32) -> Option<KeyCode> {
    Some(match code {
        1 | 7 => KeyCode::Home,
        2 => KeyCode::Insert,
        3 => KeyCode::Delete,
        4 | 8 => KeyCode::End,
        5 => KeyCode::PageUp,
        6 => KeyCode::PageDown,
        11..=15 => KeyCode::F(u8::try_from(code - 10).ok()?),
        17..=21 => KeyCode::F(u8::try_from(code - 11).ok()?),
        23..=26 => KeyCode::F(u8::try_from(code - 12).ok()?),
        28..=29 => KeyCode::F(u8::try_from(code - 15).ok()?),
        31..=34 => KeyCode::F(u8::try_from(code - 17).ok()?),
        _ => return None,
    })
}

/// The modifiers a key sequence's modifier number carries (1 + a bit each).
fn modifiers_of(number: Option<u32>) -> KeyModifiers {
    let bits = number.unwrap_or(1).saturating_sub(1);
    let mut modifiers = KeyModifiers::NONE;
    for (bit, modifier) in [
        (1, KeyModifiers::SHIFT),
        (2, KeyModifiers::ALT),
        (4, KeyModifiers::CONTROL),
        (8, KeyModifiers::SUPER),
        (16, KeyModifiers::HYPER),
        (32, KeyModifiers::META),
    ] {
        if bits & bit != 0 {
            modifiers |= modifier;
        }
    }
    modifiers
}

/// `ESC [ codepoint ; modifiers u`: a key as the "fixterms" scheme writes it.
fn csi_u_key(code: u32, modifiers: Option<u32>) -> Parsed {
    let modifiers = modifiers_of(modifiers);
    let Some(c) = char::from_u32(code) else {
        return Parsed::Ignored;
    };
    let code = match c {
        '\x1b' => KeyCode::Esc,
        '\r' => KeyCode::Enter,
        '\t' if modifiers.contains(KeyModifiers::SHIFT) => KeyCode::BackTab,
        '\t' => KeyCode::Tab,
        '\x7f' => KeyCode::Backspace,
        c if c.is_control() => return Parsed::Ignored,
        c => KeyCode::Char(c),
    };
    key(code, modifiers)
}

/// An SGR mouse report, `ESC [ < button ; column ; row` then `M` (press) or `m` (release).
fn parse_sgr_mouse(params: &[u8], last: u8) -> Option<Parsed> {
    if last != b'M' && last != b'm' {
        return None;
    }
    let [button, column, row] = numbers(params)?[..] else {
        return None;
    };
    let (mut kind, modifiers) = mouse_kind(u8::try_from(button).ok()?)?;
    if last == b'm'
        && let MouseEventKind::Down(button) = kind
    {
        kind = MouseEventKind::Up(button);
    }
    Some(mouse(kind, modifiers, column, row))
}

/// The X10 report's three bytes: button + 32, column + 32, row + 32.
fn parse_x10_mouse(bytes: &[u8]) -> Option<Parsed> {
    let (kind, modifiers) = mouse_kind(bytes[0].checked_sub(32)?)?;
    let at = |byte: u8| u32::from(byte.saturating_sub(32));
    Some(mouse(kind, modifiers, at(bytes[1]), at(bytes[2])))
}

/// A mouse event at a 1-based column and row, as terminals count them.
fn mouse(kind: MouseEventKind, modifiers: KeyModifiers, column: u32, row: u32) -> Parsed {
    let at = |n: u32| u16::try_from(n.saturating_sub(1)).unwrap_or(u16::MAX);
    Parsed::Event(Event::Mouse(MouseEvent {
        kind,
        column: at(column),
        row: at(row),
        modifiers,
    }))
}

/// The button byte of a mouse report: which button, whether dragged, and the modifiers held.
fn mouse_kind(button: u8) -> Option<(MouseEventKind, KeyModifiers)> {
    let number = (button & 0b11) | ((button & 0b1100_0000) >> 4);
    let dragging = button & 0b10_0000 != 0;
    let kind = match (number, dragging) {
        (0, false) => MouseEventKind::Down(MouseButton::Left),
        (1, false) => MouseEventKind::Down(MouseButton::Middle),
        (2, false) => MouseEventKind::Down(MouseButton::Right),
        (0, true) => MouseEventKind::Drag(MouseButton::Left),
        (1, true) => MouseEventKind::Drag(MouseButton::Middle),
        (2, true) => MouseEventKind::Drag(MouseButton::Right),
        (3, false) => MouseEventKind::Up(MouseButton::Left),
        (3..=5, true) => MouseEventKind::Moved,
        (4, false) => MouseEventKind::ScrollUp,
        (5, false) => MouseEventKind::ScrollDown,
        (6, false) => MouseEventKind::ScrollLeft,
        (7, false) => MouseEventKind::ScrollRight,
        _ => return None,
    };
    let mut modifiers = KeyModifiers::NONE;
    for (bit, modifier) in [
        (0b100, KeyModifiers::SHIFT),
        (0b1000, KeyModifiers::ALT),
        (0b1_0000, KeyModifiers::CONTROL),
    ] {
        if button & bit != 0 {
            modifiers |= modifier;
        }
    }
    Some((kind, modifiers))
}

#[cfg(test)]
mod tests {
    use ratatui::crossterm::event::KeyEventKind;

    use super::*;

    /// Everything `bytes` decodes to, read in one go with nothing after.
    fn decode(bytes: &[u8]) -> Vec<Event> {
        let mut decoder = Decoder::default();
        decoder.feed(bytes, false);
        std::iter::from_fn(|| decoder.next_event()).collect()
    }

    fn keys(codes: &[(KeyCode, KeyModifiers)]) -> Vec<Event> {
        codes
            .iter()
            .map(|&(code, modifiers)| Event::Key(KeyEvent::new(code, modifiers)))
            .collect()
    }

    const NONE: KeyModifiers = KeyModifiers::NONE;

    #[test]
    fn letters_capitals_and_other_scripts_are_characters() {
        assert_eq!(
            decode("aZé日🦊".as_bytes()),
            keys(&[
                (KeyCode::Char('a'), NONE),
                (KeyCode::Char('Z'), KeyModifiers::SHIFT),
                (KeyCode::Char('é'), NONE),
                (KeyCode::Char('日'), NONE),
                (KeyCode::Char('🦊'), NONE),
            ])
        );
        let event = decode(b"x").remove(0);
        assert_eq!(
            event.as_key_press_event().map(|key| key.kind),
            Some(KeyEventKind::Press)
        );
    }

    #[test]
    fn control_keys_are_named_as_crossterm_names_them() {
        assert_eq!(
            decode(b"\r\t\x7f\x03\n\x00"),
            keys(&[
                (KeyCode::Enter, NONE),
                (KeyCode::Tab, NONE),
                (KeyCode::Backspace, NONE),
                (KeyCode::Char('c'), KeyModifiers::CONTROL),
                (KeyCode::Char('j'), KeyModifiers::CONTROL),
                (KeyCode::Char(' '), KeyModifiers::CONTROL),
            ])
        );
    }

    #[test]
    fn arrows_home_end_pages_and_function_keys() {
        assert_eq!(
            decode(
                b"\x1b[A\x1b[B\x1b[C\x1b[D\x1bOH\x1b[F\x1b[5~\x1b[6~\x1b[3~\x1bOP\x1b[15~\x1b[Z"
            ),
            keys(&[
                (KeyCode::Up, NONE),
                (KeyCode::Down, NONE),
                (KeyCode::Right, NONE),
                (KeyCode::Left, NONE),
                (KeyCode::Home, NONE),
                (KeyCode::End, NONE),
                (KeyCode::PageUp, NONE),
                (KeyCode::PageDown, NONE),
                (KeyCode::Delete, NONE),
                (KeyCode::F(1), NONE),
                (KeyCode::F(5), NONE),
                (KeyCode::BackTab, KeyModifiers::SHIFT),
            ])
        );
    }

    #[test]
    fn modifiers_ride_on_the_second_number_and_on_a_leading_escape() {
        assert_eq!(
            decode(b"\x1b[1;5C\x1b[1;2A\x1b[3;3~\x1bx\x1b[99;5u"),
            keys(&[
                (KeyCode::Right, KeyModifiers::CONTROL),
                (KeyCode::Up, KeyModifiers::SHIFT),
                (KeyCode::Delete, KeyModifiers::ALT),
                (KeyCode::Char('x'), KeyModifiers::ALT),
                (KeyCode::Char('c'), KeyModifiers::CONTROL),
            ])
        );
    }

    #[test]
    fn a_lone_escape_is_the_key_only_when_nothing_follows() {
        assert_eq!(decode(b"\x1b"), keys(&[(KeyCode::Esc, NONE)]));
        let mut decoder = Decoder::default();
        decoder.feed(b"\x1b", true);
        assert_eq!(decoder.next_event(), None);
        assert!(decoder.is_unfinished());
        decoder.flush();
        assert_eq!(decoder.next_event(), Some(Event::Key(KeyCode::Esc.into())));
        assert_eq!(
            decode(b"\x1b\x1b"),
            keys(&[(KeyCode::Esc, NONE)]),
            "Esc Esc is one Esc, as crossterm reads it"
        );
    }

    #[test]
    fn mouse_reports_sgr_and_x10() {
        let at = |kind, column, row| {
            Event::Mouse(MouseEvent {
                kind,
                column,
                row,
                modifiers: NONE,
            })
        };
        assert_eq!(
            decode(b"\x1b[<0;10;5M\x1b[<0;10;5m\x1b[<64;3;4M\x1b[<65;3;4M\x1b[M !!"),
            vec![
                at(MouseEventKind::Down(MouseButton::Left), 9, 4),
                at(MouseEventKind::Up(MouseButton::Left), 9, 4),
                at(MouseEventKind::ScrollUp, 2, 3),
                at(MouseEventKind::ScrollDown, 2, 3),
                at(MouseEventKind::Down(MouseButton::Left), 0, 0),
            ]
        );
        assert_eq!(
            decode(b"\x1b[<0;0;0M"),
            vec![at(MouseEventKind::Down(MouseButton::Left), 0, 0)],
            "a zero column is the first, never an underflow"
        );
    }

    #[test]
    fn a_paste_is_one_event_with_its_text_as_it_came() {
        assert_eq!(
            decode(b"\x1b[200~two\rlines \x1b[A\x03\x1b[201~x"),
            vec![
                Event::Paste("two\rlines \x1b[A\x03".to_owned()),
                Event::Key(KeyCode::Char('x').into()),
            ]
        );
    }

    #[test]
    fn a_paste_split_across_reads_waits_for_its_end() {
        let mut decoder = Decoder::default();
        decoder.feed(b"\x1b[200~hel", false);
        assert_eq!(decoder.next_event(), None);
        decoder.feed(b"lo\x1b[20", false);
        decoder.feed(b"1~", false);
        assert_eq!(decoder.next_event(), Some(Event::Paste("hello".to_owned())));
    }

    #[test]
    fn a_paste_with_no_end_ends_when_the_terminal_goes_quiet_and_keys_follow() {
        let mut decoder = Decoder::default();
        decoder.feed(b"\x1b[200~no end", false);
        assert!(decoder.is_unfinished());
        decoder.flush();
        decoder.feed(b"\x03", false);
        assert_eq!(
            std::iter::from_fn(|| decoder.next_event()).collect::<Vec<_>>(),
            vec![
                Event::Paste("no end".to_owned()),
                Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            ]
        );
        assert!(!decoder.is_unfinished());
    }

    #[test]
    fn a_huge_paste_is_handed_on_in_pieces_and_loses_nothing() {
        let mut decoder = Decoder::default();
        let text = "ab".repeat(PASTE_PIECE);
        decoder.feed(b"\x1b[200~", false);
        decoder.feed(text.as_bytes(), false);
        decoder.feed(PASTE_END, false);
        let pieces: Vec<String> = std::iter::from_fn(|| decoder.next_event())
            .map(|event| match event {
                Event::Paste(piece) => piece,
                other => panic!("not a paste: {other:?}"),
            })
            .collect();
        assert!(pieces.len() >= 2);
        assert!(pieces.iter().all(|piece| piece.len() <= PASTE_PIECE));
        assert_eq!(pieces.concat(), text);
    }

    #[test]
    fn a_sequence_that_never_ends_is_dropped_and_the_next_key_read() {
        let mut noise = b"\x1b[".to_vec();
        noise.extend(std::iter::repeat_n(b'1', 10 * LONGEST_SEQUENCE));
        // Its final byte ends it, however long it ran; what follows is read as ever.
        noise.extend(b"~x");
        assert_eq!(decode(&noise), keys(&[(KeyCode::Char('x'), NONE)]));
        let mut decoder = Decoder::default();
        decoder.feed(b"\x1b[1;", false);
        decoder.flush();
        decoder.feed(b"q", false);
        assert_eq!(
            decoder.next_event(),
            Some(Event::Key(KeyCode::Char('q').into()))
        );
    }

    #[test]
    fn sequences_embedlens_does_not_use_and_broken_bytes_are_skipped() {
        assert_eq!(
            decode(b"\x1b[12;40R\x1b[?1;2c\x1b[>0;1u\xff\x80\x1b[I\x1b[Oz"),
            vec![
                Event::FocusGained,
                Event::FocusLost,
                Event::Key(KeyCode::Char('z').into())
            ]
        );
    }

    #[test]
    fn any_bytes_decode_without_panicking_and_leave_nothing_held_after_a_flush() {
        let mut state = 0x2545_f491_u32;
        let mut decoder = Decoder::default();
        for _ in 0..2_000 {
            let bytes: Vec<u8> = (0..17)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    // Mostly the bytes sequences are made of.
                    b"\x1b[<;0159~MmuOA\x03\xe6\x97\xa5"[(state % 17) as usize]
                })
                .collect();
            decoder.feed(&bytes, state.is_multiple_of(2));
            while decoder.next_event().is_some() {}
        }
        decoder.flush();
        while decoder.next_event().is_some() {}
        assert!(!decoder.is_unfinished());
    }
}
