//! What embedlens computes and says, with no terminal code anywhere below here.
//!
//! Four kinds of code, a folder each, and the lower ones never reach up:
//!
//! - [`text`]: what text becomes before any number: the token, the word vocabularies, every
//!   tokenizer behind one face, a sentence read with a bound, text made safe to print.
//! - [`tables`]: numbers and where they live: a table read in place or in memory, the
//!   PyTorch-seeded generator, the embedding layer (token rows, position schemes, the block
//!   that adds and normalises them) and the built-in trained rows.
//! - [`files`]: reading models from disk: one folder per format ([`files::safetensors`],
//!   [`files::gguf`]), where a name points (a path, the Hugging Face cache, Ollama), and which
//!   model to build ([`files::source`]).
//! - [`analysis`]: the maths on vectors: distances, similarities, principal axes, one head of
//!   attention, two sentences compared, and a real model's layer 0.
//! - [`explain`]: decisions about those numbers as values (verdicts, readouts, the article's
//!   claim), turned into sentences at the very end and shared by the screen and the print
//!   subcommands.
pub mod analysis;
pub mod explain;
pub mod files;
pub mod tables;
#[cfg(test)]
pub(crate) mod test_fixtures;
pub mod text;
