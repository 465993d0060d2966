//! embedlens: a terminal explorer of what an LLM's embedding layer does.
pub mod core;
