//! The model's own layer 0 in the explorer: run over the sentence (and in compare mode over
//! both sentences, both computed in [`crate::core::explain::layer0`]), at once when it is small
//! and on a worker ([`super::job::Job`]) when it is large, so keys never wait for it.

use std::sync::Arc;

use super::App;
use super::sources::RealLayer;
use crate::action::{Action, key};
use crate::core::analysis::layer0::Layer0;
use crate::view_state::{Detail, HeadChoice};

/// Layer 0 runs on a worker from this many multiply-adds of its projections (about a 768-wide
/// model over a dozen tokens); below it, at once.
pub const BACKGROUND_LAYER0_FROM: usize = 1 << 26;

/// Whether `layer` over `tokens` tokens is large enough to run on the worker.
#[must_use]
pub fn runs_in_background(layer: &Arc<Layer0>, tokens: usize, from: usize) -> bool {
    layer.projection_work(tokens) >= from
}

impl App {
    /// Shows the head `step` after (or before) the current one, opening the attention pane.
    pub(super) fn choose_head(&mut self, step: isize) {
        let layer = match self.sources.layer0() {
            RealLayer::Open(layer) => layer,
            RealLayer::Unavailable(why) => {
                self.status = Some(format!("one seeded head stands in: {why}"));
                return;
            }
            RealLayer::None => {
                self.status = Some(format!(
                    "the built-in tables have one seeded head; a model opened with --model \
                     shows its own layer 0's heads ({} switches models)",
                    key(&Action::CycleVocab)
                ));
                return;
            }
        };
        let heads = layer.heads();
        if self.compare.is_some() {
            self.choose_compare_head(step, heads);
            return;
        }
        let current = self.settings.head.min(heads - 1);
        self.settings.head = current.saturating_add_signed(step).min(heads - 1);
        self.settings.detail = Detail::Attention;
        self.status = Some(match (current, self.settings.head) {
            (0, 0) if step < 0 => "head 0 is the first head".to_owned(),
            (old, new) if old == new => format!("head {new} is the last head"),
            (_, new) => format!("head {new} of {heads} (0 to {})", heads - 1),
        });
    }

    /// Compare mode: shows the outputs of the head `step` after (or before) the current one,
    /// "all heads" coming before head 0, in the outputs table.
    fn choose_compare_head(&mut self, step: isize, heads: usize) {
        let current = self.settings.compare_head.moved(0, heads);
        let chosen = current.moved(step, heads);
        self.settings.compare_head = chosen;
        self.settings.detail = Detail::Attention;
        self.status = Some(match chosen {
            HeadChoice::AllHeads if current == chosen => format!(
                "all heads is the first choice; {} steps through the heads",
                key(&Action::NextHead)
            ),
            HeadChoice::AllHeads => {
                format!("outputs of all {heads} heads, side by side as the layer returns them")
            }
            HeadChoice::Head(head) if current == chosen => format!("head {head} is the last head"),
            HeadChoice::Head(head) => {
                format!("outputs of head {head} of {heads} (0 to {})", heads - 1)
            }
        });
    }

    /// Shows every head at once, or one head again, opening the attention pane.
    pub(super) fn toggle_head_overview(&mut self) {
        match self.sources.layer0() {
            RealLayer::Open(_) => {
                let open = self.settings.detail == Detail::Attention;
                self.settings.head_overview = !(open && self.settings.head_overview);
                self.settings.detail = Detail::Attention;
            }
            RealLayer::Unavailable(why) => {
                self.status = Some(format!("one seeded head stands in: {why}"));
            }
            RealLayer::None => {
                self.status = Some(
                    "the built-in tables have one seeded head; a model opened with --model \
                     shows every head of its own layer 0"
                        .to_owned(),
                );
            }
        }
    }
}
