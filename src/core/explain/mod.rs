//! Decisions about the numbers, made next to the maths and shared by the explorer and the
//! print subcommands: verdicts on vectors, the lookups' readout, and
//! the article's claim judged on a real layer 0. Sentences are made from these values last.
pub mod claim;
pub mod findings;
pub mod layer0;
pub mod readout;
pub mod verdict;
