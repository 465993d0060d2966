//! How token strings are shown: visible spaces and line breaks, bytes as `<0xE6>`, and the
//! cached display strings of a whole vocabulary for lookups and search.

use std::collections::HashMap;

use unicode_width::UnicodeWidthStr;

/// The mark shown for a space inside a token, as in `␣fox`.
pub const SPACE_MARK: char = '␣';
/// The mark shown for a line break inside a token.
pub const NEWLINE_MARK: char = '↵';
/// The mark shown for a tab inside a token.
pub const TAB_MARK: char = '⇥';

/// The text with spaces, tabs and line breaks made visible and other control characters
/// written as byte escapes, so every token takes room on screen.
#[must_use]
pub fn visible(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    push_visible(&mut shown, text);
    shown
}

fn push_visible(shown: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            ' ' => shown.push(SPACE_MARK),
            '\n' => shown.push(NEWLINE_MARK),
            '\t' => shown.push(TAB_MARK),
            c if c.is_control() => {
                let mut buffer = [0; 4];
                for byte in c.encode_utf8(&mut buffer).bytes() {
                    push_byte_escape(shown, byte);
                }
            }
            c => shown.push(c),
        }
    }
}

fn push_byte_escape(shown: &mut String, byte: u8) {
    use std::fmt::Write as _;
    let _ = write!(shown, "<0x{byte:02X}>");
}

/// Bytes as text where they are UTF-8, made visible, and as `<0xE6>` where they are not
/// (a piece that holds only part of a character).
pub fn visible_bytes(bytes: &[u8]) -> String {
    let mut shown = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        push_visible(&mut shown, chunk.valid());
        for &byte in chunk.invalid() {
            push_byte_escape(&mut shown, byte);
        }
    }
    shown
}

/// The character GPT-2's byte-level alphabet writes for a byte (`b' '` is `Ġ`, `b'\n'` is `Ċ`).
///
/// Printable Latin-1 bytes stand for themselves; the other 68 take the code points from 256 up,
/// in byte order, so every byte has a visible character in `vocab.json`. Only tests write
/// byte-level strings; the explorer reads them with [`byte_of_byte_level_char`].
#[cfg(test)]
pub fn byte_level_char(byte: u8) -> char {
    let offset = match byte {
        b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF => return char::from(byte),
        0..=32 => byte,
        127..=160 => 33 + (byte - 127),
        _ => 67, // 0xAD, the soft hyphen: the last byte without a printable character
    };
    char::from_u32(256 + u32::from(offset)).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// The byte a character of GPT-2's byte-level alphabet stands for, if it is one.
#[must_use]
pub fn byte_of_byte_level_char(c: char) -> Option<u8> {
    let code = u32::from(c);
    match code {
        0x21..=0x7E | 0xA1..=0xAC | 0xAE..=0xFF => u8::try_from(code).ok(),
        256..=288 => u8::try_from(code - 256).ok(),
        289..=322 => u8::try_from(code - 289 + 127).ok(),
        323 => Some(0xAD),
        _ => None,
    }
}

/// The bytes a byte-level token string (such as `Ġfox`) stands for, if every character is one
/// of the alphabet's.
#[must_use]
pub fn byte_level_bytes(token: &str) -> Option<Vec<u8>> {
    token.chars().map(byte_of_byte_level_char).collect()
}

/// The display strings of every id, worked out once so lookups, search and layout stay cheap
/// for vocabularies of hundreds of thousands of tokens.
#[derive(Clone, Debug, Default)]
pub struct DisplayVocab {
    /// The display string of each id; empty for an id no token uses.
    texts: Vec<String>,
    /// Lower-cased display strings for search; empty where lower-casing changes nothing.
    folded: Vec<String>,
    /// The first id of each display string.
    ids: HashMap<String, usize>,
    widest: usize,
}

impl DisplayVocab {
    /// Caches the display strings, given in id order.
    pub fn new(texts: Vec<String>) -> Self {
        let folded = texts
            .iter()
            .map(|text| {
                let lower = text.to_lowercase();
                if lower == *text { String::new() } else { lower }
            })
            .collect();
        let mut ids = HashMap::with_capacity(texts.len());
        for (id, text) in texts.iter().enumerate() {
            if !text.is_empty() {
                ids.entry(text.clone()).or_insert(id);
            }
        }
        let widest = texts.iter().map(|text| text.width()).max().unwrap_or(0);
        Self {
            texts,
            folded,
            ids,
            widest,
        }
    }

    /// How many ids there are: the highest id plus one.
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// The display string of an id, if a token uses it.
    pub fn text(&self, id: usize) -> Option<&str> {
        self.texts
            .get(id)
            .map(String::as_str)
            .filter(|text| !text.is_empty())
    }

    /// The id whose display string is exactly this.
    pub fn id(&self, text: &str) -> Option<usize> {
        self.ids.get(text).copied()
    }

    /// The widest display string in terminal columns.
    pub fn widest(&self) -> usize {
        self.widest
    }

    /// Ids whose display string matches the query; see [`search`].
    pub fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        search(
            self.texts
                .iter()
                .zip(&self.folded)
                .enumerate()
                .map(|(id, (text, folded))| {
                    let folded = if folded.is_empty() { text } else { folded };
                    (id, text.as_str(), folded.as_str())
                }),
            query,
            limit,
        )
    }
}

/// Ids whose text matches the query, best first, at most `limit` of them.
///
/// First the exact text, then the text ignoring case, then texts that start with the query,
/// then texts that contain it (both ignoring case); by id within each class. An empty query
/// matches nothing. Candidates are `(id, text, lower-cased text)` in id order.
pub fn search<'a>(
    candidates: impl Iterator<Item = (usize, &'a str, &'a str)>,
    query: &str,
    limit: usize,
) -> Vec<usize> {
    if query.is_empty() || limit == 0 {
        return Vec::new();
    }
    let query_folded = query.to_lowercase();
    let mut classes: [Vec<usize>; 4] = Default::default();
    for (id, text, folded) in candidates {
        let class = if text == query {
            0
        } else if folded == query_folded {
            1
        } else if folded.starts_with(&query_folded) {
            2
        } else if folded.contains(&query_folded) {
            3
        } else {
            continue;
        };
        if classes[class].len() < limit {
            classes[class].push(id);
        }
        if class == 0 && classes[0].len() == limit {
            break;
        }
    }
    classes.into_iter().flatten().take(limit).collect()
}

/// The nearest character boundary at or before `index` (clamped to the text).
pub fn floor_boundary(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// The nearest character boundary at or after `index` (clamped to the text).
pub fn ceil_boundary(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index += 1;
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_level_alphabet_round_trips() {
        assert_eq!(byte_level_char(b' '), 'Ġ');
        assert_eq!(byte_level_char(b'\n'), 'Ċ');
        assert_eq!(byte_level_char(b'a'), 'a');
        assert_eq!(byte_level_char(0xAD), 'Ń');
        let mut seen = std::collections::HashSet::new();
        for byte in 0..=u8::MAX {
            let c = byte_level_char(byte);
            assert!(seen.insert(c), "{byte} shares {c}");
            assert_eq!(byte_of_byte_level_char(c), Some(byte));
        }
        assert_eq!(byte_level_bytes("Ġfox"), Some(b" fox".to_vec()));
        assert_eq!(byte_level_bytes("a b"), None);
    }

    #[test]
    fn bytes_show_as_text_or_escapes() {
        assert_eq!(visible_bytes(b" fox\n"), "␣fox↵");
        assert_eq!(visible_bytes("東".as_bytes()), "東");
        assert_eq!(visible_bytes(&"東".as_bytes()[..2]), "<0xE6><0x9D>");
        assert_eq!(visible("a\u{7}"), "a<0x07>");
    }

    #[test]
    fn search_ranks_exact_then_prefix_then_contains() {
        let vocab = DisplayVocab::new(
            ["foxes", "Fox", "fox", "", "outfox", "␣fox", "dog"]
                .map(str::to_owned)
                .to_vec(),
        );
        assert_eq!(vocab.search("fox", 10), [2, 1, 0, 4, 5]);
        assert_eq!(vocab.search("fox", 2), [2, 1]);
        assert_eq!(vocab.search("", 10), Vec::<usize>::new());
        assert_eq!(vocab.text(3), None);
        assert_eq!(vocab.id("␣fox"), Some(5));
        assert_eq!(vocab.widest(), 6);
    }

    #[test]
    fn boundaries_snap_to_characters() {
        let text = "a東b";
        assert_eq!(floor_boundary(text, 2), 1);
        assert_eq!(ceil_boundary(text, 2), 4);
        assert_eq!(ceil_boundary(text, 99), text.len());
    }
}
