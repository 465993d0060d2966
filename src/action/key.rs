//! A key the table matches, its name as the screen writes it, and a key press read back from
//! that name (for `embedlens screen --keys` and the tests).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// A key the table matches: a key code and the modifiers it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    code: KeyCode,
    modifiers: KeyModifiers,
}

/// A key without modifiers.
pub(super) const fn plain(code: KeyCode) -> Key {
    Key {
        code,
        modifiers: KeyModifiers::NONE,
    }
}

/// A character key.
pub(super) const fn ch(c: char) -> Key {
    plain(KeyCode::Char(c))
}

/// A character with Ctrl.
pub(super) const fn ctrl(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        modifiers: KeyModifiers::CONTROL,
    }
}

impl Key {
    /// Whether a key press is this key.
    pub(super) fn matches(self, event: &KeyEvent) -> bool {
        // Shift is part of the character itself (`?`, `L`), so it does not have to match.
        let modifiers = event.modifiers - KeyModifiers::SHIFT;
        self.code == event.code && self.modifiers == modifiers
    }

    /// The key as the screen writes it: `p`, `Enter`, `←`, `Ctrl+U`, `F1`.
    #[must_use]
    pub fn name(self) -> String {
        let base = match self.code {
            KeyCode::Char(c) if self.modifiers.contains(KeyModifiers::CONTROL) => {
                return format!("Ctrl+{}", c.to_ascii_uppercase());
            }
            KeyCode::Char(' ') => "Space",
            KeyCode::Char(c) => return c.to_string(),
            KeyCode::F(n) => return format!("F{n}"),
            KeyCode::Enter => "Enter",
            KeyCode::Tab => "Tab",
            KeyCode::Esc => "Esc",
            KeyCode::Home => "Home",
            KeyCode::End => "End",
            KeyCode::PageUp => "PgUp",
            KeyCode::PageDown => "PgDn",
            KeyCode::Left => "←",
            KeyCode::Right => "→",
            KeyCode::Up => "↑",
            KeyCode::Down => "↓",
            _ => "?",
        };
        base.to_owned()
    }
}

/// The keys that have a name of their own (not a character).
const NAMED_KEYS: [KeyCode; 11] = [
    KeyCode::Enter,
    KeyCode::Tab,
    KeyCode::Esc,
    KeyCode::Home,
    KeyCode::End,
    KeyCode::PageUp,
    KeyCode::PageDown,
    KeyCode::Left,
    KeyCode::Right,
    KeyCode::Up,
    KeyCode::Down,
];

/// A key press from its name as the help writes it (`Enter`, `→`, `Space`, `Ctrl+U`, `F1`, `p`),
/// the inverse of [`Key::name`].
///
/// # Errors
/// When no key has that name; the message names it.
pub fn parse_key(name: &str) -> Result<KeyEvent, String> {
    let event = |key: Key| KeyEvent::new(key.code, key.modifiers);
    // The arrows are single characters too: named keys first.
    if let Some(key) = std::iter::once(ch(' '))
        .chain(NAMED_KEYS.into_iter().map(plain))
        .find(|key| key.name() == name)
    {
        return Ok(event(key));
    }
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        let shift = if c.is_uppercase() {
            KeyModifiers::SHIFT
        } else {
            KeyModifiers::NONE
        };
        return Ok(KeyEvent::new(KeyCode::Char(c), shift));
    }
    if let Some(letter) = name.strip_prefix("Ctrl+") {
        let mut letters = letter.chars();
        if let (Some(c), None) = (letters.next(), letters.next()) {
            return Ok(event(ctrl(c.to_ascii_lowercase())));
        }
    }
    if let Some(n) = name.strip_prefix('F').and_then(|n| n.parse::<u8>().ok()) {
        return Ok(event(plain(KeyCode::F(n))));
    }
    Err(format!(
        "'{name}' is not a key name; write keys as the help does: a character, Space, Enter, \
         Tab, Esc, Home, End, PgUp, PgDn, ←, →, ↑, ↓, F1 or Ctrl+U"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_as_key_presses() {
        assert_eq!(parse_key("Space").unwrap().code, KeyCode::Char(' '));
        assert_eq!(
            parse_key("Ctrl+U").unwrap(),
            KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)
        );
        assert!(plain(KeyCode::Left).matches(&parse_key("←").unwrap()));
        let error = parse_key("Enterr").unwrap_err();
        assert!(error.starts_with("'Enterr' is not a key name"), "{error}");
    }
}
