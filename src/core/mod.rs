//! The maths of embedding lookups; nothing here knows about the terminal.
pub mod attention;
pub mod block;
pub mod compare;
pub mod file_access;
pub mod gguf;
pub mod layer0;
pub mod metrics;
pub mod model_file;
pub mod model_source;
pub mod plane;
pub mod positional;
pub mod printable;
pub mod projection;
pub mod readout;
pub mod sentence;
pub mod simd;
pub mod similarity;
pub mod table;
#[cfg(test)]
pub(crate) mod test_fixtures;
pub mod tokenizer;
pub mod torch_init;
pub mod trained;
pub mod verdict;
pub mod vocabulary;
pub mod weights;
