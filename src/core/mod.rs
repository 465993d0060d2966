//! What embedlens computes and says, with no terminal code anywhere below here.
//!
//! Six kinds of code, a folder each:
//!
//! - [`text`]: what text becomes before any number: the token, the word vocabularies, every
//!   tokenizer behind one face, a sentence read with a bound, text made safe to print.
//! - [`tables`]: numbers and where they live: a table read in place or in memory, the
//!   PyTorch-seeded generator, the embedding layer (token rows, position schemes, the block
//!   that adds and normalises them), the built-in trained rows and the built-in models.
//! - [`files`]: reading models from disk, opened once by [`files::open`]: one folder per
//!   format (`safetensors/`, [`files::gguf`]), and where a name points (a path, the Hugging Face
//!   cache, Ollama).
//! - [`analysis`]: the maths on vectors: distances, similarities, principal axes, one head of
//!   attention, two sentences compared, and a real model's layer 0.
//! - [`explain`]: decisions about those numbers as values (verdicts, readouts, findings, the
//!   article's claim, layer 0 over the learner's sentences), turned into sentences at the very
//!   end and shared by the screen and the print subcommands.
//! - [`snippet`]: what is on screen as a Python script that reproduces it in PyTorch, shared by
//!   the `y` overlay and `embedlens snippet`.
pub mod analysis;
pub mod explain;
pub mod files;
pub mod snippet;
pub mod tables;
#[cfg(test)]
pub(crate) mod test_fixtures;
pub mod text;
