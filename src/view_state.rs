//! What the screen is set to show: which pane is open beside the matrix, how wide vectors are
//! drawn. The app changes these in `update`; the panes read them.

/// What the pane beside the matrix shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Detail {
    /// Each token's lookup: token + position = input vector.
    Lookups,
    /// One head of self-attention over the input vectors.
    Attention,
    /// Cosine similarities between the sentence's vectors, and the nearest rows.
    Similarity,
    /// The lookup as a matrix product: one-hot(id) × W.
    OneHot,
    /// The position table as a heat map: positions × dimensions.
    PositionTable,
    /// The sentence's vectors as a picture on their top two principal axes.
    Picture,
}

/// How a wide vector is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WideView {
    /// One cell per dimension (or per group of dimensions): shade for size, glyph and colour
    /// for sign, so equal rows look equal at a glance.
    Strip,
    /// The exact values of a window of dimensions, scrolled sideways.
    Values,
}

impl WideView {
    /// The other view.
    #[must_use]
    pub fn toggled(self) -> Self {
        match self {
            Self::Strip => Self::Values,
            Self::Values => Self::Strip,
        }
    }
}

/// What the panes need to draw a wide vector: the view and the window's first dimension.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WideStyle {
    /// Strip or values.
    pub view: WideView,
    /// The first dimension the values window shows.
    pub first_dim: usize,
    /// The table's typical magnitude: strip shades and colours are relative to it, so a
    /// trained model's small numbers show as plainly as the generated tables' large ones.
    pub scale: f32,
}
