//! The maths on vectors: distances and similarities, principal axes for the picture, one head
//! of attention and what `RoPE` and `ALiBi` do inside it, two sentences compared, and a real
//! checkpoint's first attention layer.
pub mod attention;
pub mod compare;
pub mod layer0;
pub mod metrics;
pub mod plane;
pub mod projection;
pub mod schemes;
pub mod similarity;
