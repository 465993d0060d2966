//! Decisions about the numbers, made next to the maths and shared by the explorer and the
//! print subcommands: verdicts on vectors ([`verdict`]), the lookups' readout ([`readout`]),
//! what the explorer and the lesson may say about order and position ([`findings`]), the
//! article's claim judged on a real layer 0 ([`claim`]), and layer 0 over the learner's
//! sentences ([`layer0`]). Sentences are made from these values last.
pub mod claim;
pub mod findings;
pub mod layer0;
pub mod readout;
pub mod verdict;
