//! The maths of embedding lookups; nothing here knows about the terminal.
pub mod attention;
pub mod block;
pub mod compare;
pub mod gguf;
pub mod layer0;
pub mod metrics;
pub mod model_file;
pub mod model_source;
pub mod positional;
pub mod readout;
pub mod similarity;
pub mod table;
pub mod tokenizer;
pub mod torch_init;
pub mod verdict;
pub mod vocabulary;
pub mod weights;
