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
