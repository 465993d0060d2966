//! GGUF files, as llama.cpp, Ollama and LM Studio keep models: the header and metadata read,
//! the tensors mapped in place and dequantized a row at a time.
//!
//! The reader ([`file`], its [`ggml_type`]s and metadata [`value`]s, the tokenizer in its
//! metadata in [`vocab`], and a small [`writer`] for tests) and the model read from it:
//! [`model`] opens it as a model and lists it, [`detect`] decides its tables from its
//! architecture and tensor names, and [`layer0`] reads its first attention layer.

pub(super) mod detect;
mod file;
mod ggml_type;
pub(super) mod layer0;
pub(super) mod model;
#[cfg(test)]
mod model_tests;
mod value;
mod vocab;
mod walk;
mod writer;

pub use file::{GgufFile, GgufTensor, MAX_ARRAY_VALUES, is_gguf};
pub use ggml_type::GgmlType;
pub use value::{ItemType, Items, MetadataValue, PackedArray};
pub use vocab::{
    HUGGING_FACE_JSON, MetadataTokenizer, TokenizerPlan, embedded_json, embedded_tokenizer,
    lazy_tokenizer, metadata_encoder, metadata_tokenizer, tokenizer_plan,
};
pub use writer::GgufWriter;

#[cfg(test)]
mod tests;
