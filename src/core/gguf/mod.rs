//! GGUF files, as llama.cpp, Ollama and LM Studio keep models: the header and metadata read,
//! the tensors mapped in place and dequantized a row at a time.

mod file;
mod ggml_type;
mod value;
mod vocab;
mod writer;

pub use file::{GgufFile, GgufTensor, is_gguf, shape_text};
pub use ggml_type::GgmlType;
pub use value::MetadataValue;
pub use vocab::{MetadataTokenizer, metadata_tokenizer};
pub use writer::GgufWriter;

#[cfg(test)]
mod tests;
