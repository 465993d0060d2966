//! Numbers and where they live: a table read in place from a model file or generated, the
//! PyTorch-compatible generator, the embedding matrix and its lookup, position schemes, the
//! embedding block, the built-in trained rows, the built-in models ([`source`]), and the choice
//! of vector instructions.
pub mod block;
pub mod positional;
pub mod simd;
pub mod source;
pub mod table;
pub mod torch_init;
pub mod trained;
pub mod weights;
