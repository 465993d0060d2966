//! Decisions about the numbers, made next to the maths and shared by the explorer and the
//! print subcommands: verdicts on vectors ([`verdict`]), the lookups' readout ([`readout`]),
//! what the explorer and the lesson may say about order and position ([`findings`]), what the
//! seeded head shows ([`head`]), the similarity heat map's copies ([`cosine`]), the picture of
//! the vectors ([`picture`]), what `RoPE`'s turns did to a repeated word ([`rope`]), the article's claim judged on a real layer 0 ([`claim`]), and
//! layer 0 over the learner's sentences ([`layer0`]). Sentences are made from these values
//! last; where one tells the learner to press a key it names the action, `{TogglePositions}`,
//! and the screen fills in the key from its table (`action::fill_keys`).
pub mod claim;
pub mod cosine;
pub mod findings;
pub mod head;
pub mod layer0;
pub mod picture;
pub mod readout;
pub mod rope;
pub mod verdict;

/// A text's sentences, each with the spaces after it: a sentence ends at `.` followed by a
/// space (so `0.4839` goes on, and "New here? Press …" stays one with its question).
pub(crate) fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let bytes = rest.as_bytes();
        let end = (1..bytes.len())
            .find(|&i| bytes[i - 1] == b'.' && bytes[i] == b' ')
            .map_or(rest.len(), |i| {
                i + rest[i..].len() - rest[i..].trim_start_matches(' ').len()
            });
        let (sentence, after) = rest.split_at(end);
        rest = after;
        Some(sentence)
    })
}

/// Positions as a sentence lists them: `0, 3 and 5`.
pub(crate) fn listed(positions: &[usize]) -> String {
    match positions.split_last() {
        Some((last, rest)) if !rest.is_empty() => {
            let rest: Vec<String> = rest.iter().map(ToString::to_string).collect();
            format!("{} and {last}", rest.join(", "))
        }
        Some((last, _)) => last.to_string(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_end_at_a_full_stop_and_a_space() {
        let text = "Same row: 0.4839 apart.  New here? Press L. Last";
        let found: Vec<&str> = sentences(text).collect();
        assert_eq!(
            found,
            ["Same row: 0.4839 apart.  ", "New here? Press L. ", "Last"]
        );
        assert_eq!(found.concat(), text);
    }
}
