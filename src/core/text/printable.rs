//! Text read from files, made safe to print: a tensor name or a config value can hold escape
//! sequences that a terminal would obey, so control characters are shown escaped instead.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether a character would act on a terminal or reorder text rather than show: control
/// characters, and the bidirectional embeddings, overrides and isolates.
fn acts_on_terminal(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// The text with every control character written as a Rust escape (`\u{1b}`), so printing
/// it cannot move the cursor, change colours or retitle the window; unchanged when clean.
#[must_use]
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(acts_on_terminal) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if acts_on_terminal(c) {
            let _ = write!(shown, "\\u{{{:x}}}", u32::from(c));
        } else {
            shown.push(c);
        }
    }
    Cow::Owned(shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_text_is_borrowed_unchanged() {
        assert!(matches!(
            printable("transformer.wte.weight"),
            Cow::Borrowed("transformer.wte.weight")
        ));
        assert_eq!(printable("東京 🦊 café"), "東京 🦊 café");
        // A byte-level token's marks, as the token strip and the print subcommands show them.
        assert_eq!(printable("␣bites ↵"), "␣bites ↵");
    }

    #[test]
    fn escape_sequences_and_reordering_marks_are_escaped() {
        assert_eq!(
            printable("wte\u{1b}]0;owned\u{7}.weight"),
            "wte\\u{1b}]0;owned\\u{7}.weight"
        );
        assert_eq!(printable("a\nb\tc\u{9b}"), "a\\u{a}b\\u{9}c\\u{9b}");
        assert_eq!(printable("x\u{202e}y"), "x\\u{202e}y");
    }
}
