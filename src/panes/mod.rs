//! The panes beside the matrix (the "detail" panes `a`, `s`, `o`, `t`, `g` open), a module
//! each, and the one list that names them: `detail_panes!`.
//!
//! A pane's module holds all of it: what it reads (`Input`) and how that is made from the app
//! (`input`), its drawing (`build`, a `ui::pane::Pane`), and its derived data
//! (`Memo`, a [`PaneMemo`](crate::app::memo::PaneMemo): the cells the derive step keeps for
//! it and the function that derives them; `()` when it has none). A pane with derived data is
//! a folder, its derive step in `derive.rs`, which imports no ratatui. Each layer expands the
//! list for its own side, so a pane is named once: [`Detail`](crate::view_state::Detail) gets
//! its id, the derive step's [`Views`](crate::app::Views) its memo (derived while the pane is
//! open), and `ui` the dispatch that draws it. Then the key table gives it a key.

pub mod attention;
pub mod lookups;
pub mod one_hot;
pub mod picture;
pub mod position_table;
pub mod similarity;

/// Every pane beside the matrix, named once: `Id => module`, in the order of the help. The
/// first is the one `Esc` (or the open pane's key again) comes back to.
///
/// Expands `$expand! { … }` with the list, for a macro of the caller's that makes its side of
/// every pane.
macro_rules! detail_panes {
    ($expand:ident) => {
        $expand! {
            /// Each token's lookup: token + position = input vector.
            Lookups => lookups,
            /// One head of self-attention over the input vectors.
            Attention => attention,
            /// Cosine similarities between the sentence's vectors, and the nearest rows.
            Similarity => similarity,
            /// The lookup as a matrix product: one-hot(id) × W.
            OneHot => one_hot,
            /// The position table as a heat map: positions × dimensions.
            PositionTable => position_table,
            /// The sentence's vectors as a picture on their top two principal axes.
            Picture => picture,
        }
    };
}
pub(crate) use detail_panes;

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;

    /// A pane's derive step is part of the derive step: it draws nothing, so it reads no
    /// terminal code and nothing of `ui`.
    #[test]
    fn a_panes_derive_step_imports_no_terminal_code() {
        let panes = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/panes");
        let mut checked = 0;
        for pane in fs::read_dir(panes).expect("src/panes reads") {
            let derive = pane.expect("a folder entry").path().join("derive.rs");
            let Ok(code) = fs::read_to_string(&derive) else {
                continue;
            };
            for word in ["ratatui", "crate::ui", "app::App"] {
                assert!(!code.contains(word), "{} names {word}", derive.display());
            }
            checked += 1;
        }
        assert!(
            checked >= 4,
            "the panes with derived data have a derive.rs each"
        );
    }
}
