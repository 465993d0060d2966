//! Writing Python source: string literals, lists and comments that stay valid whatever the
//! sentence holds.

use std::fmt::Write as _;

/// `text` as a Python string literal in double quotes: quotes, backslashes and control
/// characters escaped, so a sentence can never end the literal or the line.
#[must_use]
pub fn string(text: &str) -> String {
    let mut literal = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => literal.push_str("\\\""),
            '\\' => literal.push_str("\\\\"),
            '\n' => literal.push_str("\\n"),
            '\t' => literal.push_str("\\t"),
            '\r' => literal.push_str("\\r"),
            c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') => {
                let _ = write!(literal, "\\u{:04x}", u32::from(c));
            }
            c => literal.push(c),
        }
    }
    literal.push('"');
    literal
}

/// Numbers as a Python list: `[2, 4, 0, 2]`.
#[must_use]
pub fn list(numbers: &[usize]) -> String {
    let items: Vec<String> = numbers.iter().map(ToString::to_string).collect();
    format!("[{}]", items.join(", "))
}

/// The width a comment is wrapped to, `# ` included: whole inside the `y` overlay on an
/// 80-column terminal.
const COMMENT_WIDTH: usize = 76;

/// A script being written, line by line.
#[derive(Debug, Default)]
pub struct Script {
    text: String,
}

impl Script {
    /// One line of code (or several, separated by `\n`), as given.
    pub fn line(&mut self, code: impl AsRef<str>) {
        self.text.push_str(code.as_ref());
        self.text.push('\n');
    }

    /// An empty line.
    pub fn blank(&mut self) {
        self.text.push('\n');
    }

    /// A comment, wrapped at word boundaries; anything that could end the comment (a line
    /// break in a sentence) is written escaped.
    pub fn comment(&mut self, text: &str) {
        let text: String = text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let mut line = String::from("#");
        for word in text.split(' ').filter(|word| !word.is_empty()) {
            if line.len() > 1 && line.chars().count() + 1 + word.chars().count() > COMMENT_WIDTH {
                self.line(&line);
                line = String::from("#");
            }
            line.push(' ');
            line.push_str(word);
        }
        self.line(&line);
    }

    /// The script written so far.
    #[must_use]
    pub fn finish(self) -> String {
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_cannot_escape_their_quotes() {
        assert_eq!(string("fox bites"), "\"fox bites\"");
        assert_eq!(string("a \"b\" \\ c"), "\"a \\\"b\\\" \\\\ c\"");
        assert_eq!(string("x\ny\u{1b}"), "\"x\\ny\\u001b\"");
    }

    #[test]
    fn comments_wrap_and_never_break_out() {
        let mut script = Script::default();
        script.comment(&format!("{} end\nimport os", "word ".repeat(30)));
        let text = script.finish();
        assert!(text.lines().all(|line| line.starts_with("# ")), "{text}");
        assert!(
            text.lines()
                .all(|line| line.chars().count() <= COMMENT_WIDTH)
        );
        assert!(text.contains("end import os"));
    }
}
