//! Text before numbers: the token every tokenizer hands out, the built-in word vocabularies,
//! the tokenizers, a sentence read with a bound, and text from files made safe to print.
pub mod printable;
pub mod sentence;
pub mod tokenizer;
pub mod vocabulary;
