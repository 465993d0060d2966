//! Hints that name a key, kept only where the key works: the help bar's one table decides
//! which hints stand, as it decides the bar (the lesson has no `p`, so nothing in it says
//! "p adds positions").

use super::{Action, Scope, binding_for, bindings, fill_keys, in_scope};
use crate::core::explain::sentences;

/// The name of the first key bound to `action` in `scope`, or `None` where no key does it
/// there: a hint that would name it gives way (the lesson has no `p`).
#[must_use]
pub fn live_key(action: &Action, scope: Scope) -> Option<String> {
    binding_for(action, scope).map(|binding| binding.keys[0].name())
}

/// Prose as [`fill_keys`] makes it, each sentence that names a key with no binding in `scope`
/// left out whole: the help bar's table decides which hints stand, as it decides the bar.
#[must_use]
pub fn fill_live_keys(template: &str, scope: Scope) -> String {
    let live = |sentence: &str| {
        placeholders(sentence).all(|name| {
            let name = name.split_once(':').map_or(name, |(_, name)| name);
            bindings()
                .iter()
                .any(|binding| in_scope(binding, scope) && format!("{:?}", binding.action) == name)
        })
    };
    let kept: String = sentences(template)
        .filter(|sentence| live(sentence))
        .collect();
    fill_keys(kept.trim_end())
}

/// The `{Name}` placeholders of a template, without their braces.
fn placeholders(template: &str) -> impl Iterator<Item = &str> {
    template
        .split('{')
        .skip(1)
        .filter_map(|part| part.split_once('}').map(|(name, _)| name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hint_whose_key_does_nothing_in_the_scope_gives_way() {
        let text = "'fox' at 0 and 3: one dot, 0.5 apart. {TogglePositions} adds positions. \
                    {ToggleHelp} helps.";
        assert_eq!(
            fill_live_keys(text, Scope::Explorer),
            "'fox' at 0 and 3: one dot, 0.5 apart. p adds positions. ? helps."
        );
        assert_eq!(
            fill_live_keys(text, Scope::Lesson),
            "'fox' at 0 and 3: one dot, 0.5 apart. ? helps."
        );
        assert_eq!(live_key(&Action::TogglePositions, Scope::Lesson), None);
        assert_eq!(
            live_key(&Action::TogglePositions, Scope::Explorer).as_deref(),
            Some("p")
        );
    }
}
