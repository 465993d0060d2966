//! What the screen is set to show: which pane is open beside the matrix, how wide vectors are
//! drawn. The app changes these in `update`; the panes read them.

/// Makes [`Detail`] from the list of panes.
macro_rules! pane_ids {
    ($($(#[$doc:meta])* $id:ident => $module:ident,)*) => {
        /// What the pane beside the matrix shows: one id per pane of
        /// `panes::detail_panes!`, generated from that list.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Detail {
            $($(#[$doc])* $id,)*
        }

        impl Detail {
            /// Every pane, in the list's order.
            pub const ALL: &[Self] = &[$(Self::$id),*];
        }
    };
}
crate::panes::detail_panes!(pane_ids);

impl Detail {
    /// The pane the explorer opens with, and the one `Esc` comes back to: the list's first.
    pub const HOME: Self = Self::ALL[0];
}

/// Which outputs of a model's own layer 0 compare mode's outputs table shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeadChoice {
    /// Every head's output side by side, as the self-attention module returns it (what the
    /// verdict compares).
    AllHeads,
    /// One head's output.
    Head(usize),
}

impl HeadChoice {
    /// The choice `step` places after this one (before it when negative) among "all heads"
    /// then heads 0 to `heads - 1`, kept within them.
    #[must_use]
    pub fn moved(self, step: isize, heads: usize) -> Self {
        let place = match self {
            Self::AllHeads => 0,
            Self::Head(head) => head.min(heads.saturating_sub(1)) + 1,
        };
        match place.saturating_add_signed(step).min(heads) {
            0 => Self::AllHeads,
            place => Self::Head(place - 1),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_are_chosen_after_all_heads_and_within_the_layer() {
        assert_eq!(HeadChoice::AllHeads.moved(1, 4), HeadChoice::Head(0));
        assert_eq!(HeadChoice::Head(0).moved(-1, 4), HeadChoice::AllHeads);
        assert_eq!(HeadChoice::AllHeads.moved(-1, 4), HeadChoice::AllHeads);
        assert_eq!(HeadChoice::Head(3).moved(1, 4), HeadChoice::Head(3));
        assert_eq!(HeadChoice::Head(9).moved(0, 4), HeadChoice::Head(3));
    }
}
