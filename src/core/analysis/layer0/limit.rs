//! How many tokens layer 0 is computed for, and what sets that bound: the model's own context
//! (its position table, its stated length, its sliding window) or what embedlens affords
//! (every head's weights held at once grow with the square of the tokens).

use std::fmt;

/// The most tokens layer 0 is computed for, whatever the model's context length: its
/// attention weights take heads × tokens² numbers (128 MiB for 32 heads at this many tokens).
pub const MAX_LAYER0_TOKENS: usize = 1024;

/// The most tokens layer 0 is computed for when the model states no context length.
pub const DEFAULT_TOKEN_CAP: usize = 4096;

/// Weights of all heads' attention scores kept at once, at most (2^25 f64s, 256 MiB).
pub const WEIGHT_BUDGET: usize = 1 << 25;

/// The most tokens the model itself reads, and where that number comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelContext {
    /// The rows of its learned position table (past any rows it skips, as `RoBERTa`'s two).
    PositionRows(usize),
    /// Its stated `max_position_embeddings` (a GGUF's `<arch>.context_length`).
    Stated(usize),
    /// None stated: [`DEFAULT_TOKEN_CAP`] is taken.
    Unstated,
    /// Its sliding window, shorter than its context: past it the window would hide tokens.
    Window(usize),
}

impl ModelContext {
    /// The number of tokens.
    #[must_use]
    pub fn tokens(self) -> usize {
        match self {
            Self::PositionRows(n) | Self::Stated(n) | Self::Window(n) => n,
            Self::Unstated => DEFAULT_TOKEN_CAP,
        }
    }
}

impl fmt::Display for ModelContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PositionRows(n) => {
                write!(
                    f,
                    "the model's context length (its position table's {n} rows)"
                )
            }
            // Named for what it is, not by one format's key: config.json's
            // max_position_embeddings or a GGUF file's <arch>.context_length.
            Self::Stated(n) => write!(f, "the model's stated context length ({n})"),
            Self::Unstated => write!(
                f,
                "the model states no context length, so {DEFAULT_TOKEN_CAP} are taken"
            ),
            Self::Window(n) => write!(
                f,
                "the model's sliding window of {n} tokens, within which the window hides nothing"
            ),
        }
    }
}

/// What bounds the tokens layer 0 is computed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The model's own context.
    Model(ModelContext),
    /// So many heads that their weights would pass [`WEIGHT_BUDGET`] numbers.
    HeadsWeights {
        /// The query heads.
        heads: usize,
    },
    /// [`MAX_LAYER0_TOKENS`].
    Cap,
}

/// The most tokens layer 0 is computed for, and why: the smallest of the model's context, the
/// tokens whose weights every head can hold within [`WEIGHT_BUDGET`], and
/// [`MAX_LAYER0_TOKENS`]; a tie is put down to the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenLimit {
    tokens: usize,
    bound: Bound,
    model: ModelContext,
}

impl TokenLimit {
    /// The limit of a model with this context and this many query heads.
    #[must_use]
    pub fn new(model: ModelContext, heads: usize) -> Self {
        let affordable = (WEIGHT_BUDGET / heads.max(1)).isqrt();
        let mut limit = Self {
            tokens: model.tokens(),
            bound: Bound::Model(model),
            model,
        };
        for (tokens, bound) in [
            (affordable, Bound::HeadsWeights { heads }),
            (MAX_LAYER0_TOKENS, Bound::Cap),
        ] {
            if tokens < limit.tokens {
                limit.tokens = tokens;
                limit.bound = bound;
            }
        }
        limit.tokens = limit.tokens.max(1);
        limit
    }

    /// The most tokens computed.
    #[must_use]
    pub fn tokens(self) -> usize {
        self.tokens
    }

    /// What sets it.
    #[must_use]
    pub fn bound(self) -> Bound {
        self.bound
    }

    /// The reason in words: the model's context, or embedlens's bound and the model's beside it.
    #[must_use]
    pub fn reason(self) -> String {
        let model = match self.model {
            ModelContext::Unstated => "the model states no context length".to_owned(),
            other => format!("the model reads up to {}", other.tokens()),
        };
        match self.bound {
            Bound::Model(context) => context.to_string(),
            Bound::HeadsWeights { heads } => format!(
                "so that {heads} heads' weights stay within {WEIGHT_BUDGET} numbers ({model})"
            ),
            Bound::Cap => format!(
                "the attention weights grow with the square of the tokens, for every head \
                 ({model})"
            ),
        }
    }

    /// The sentence a printout's header gives: how many tokens are computed, and why.
    #[must_use]
    pub fn note(self) -> String {
        format!(
            "computed for at most {} tokens: {}",
            self.tokens,
            self.reason()
        )
    }

    /// Why `count` tokens are refused, when they are more than the limit.
    #[must_use]
    pub fn refusal(self, count: usize) -> Option<String> {
        (count > self.tokens).then(|| {
            format!(
                "{count} tokens: layer 0 is computed for at most {} tokens here: {}",
                self.tokens,
                self.reason()
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smallest_bound_is_the_one_named() {
        // Qwen2.5-0.5B: 14 heads afford 1548 tokens, the cap is 1024, the GGUF says 32768.
        let qwen = TokenLimit::new(ModelContext::Stated(32_768), 14);
        assert_eq!(qwen.tokens(), 1024);
        assert_eq!(qwen.bound(), Bound::Cap);
        assert_eq!(
            qwen.refusal(1548).unwrap(),
            "1548 tokens: layer 0 is computed for at most 1024 tokens here: the attention \
             weights grow with the square of the tokens, for every head (the model reads up to \
             32768)"
        );
        assert_eq!(qwen.refusal(1024), None);
        // 64 heads afford 724 tokens.
        let wide = TokenLimit::new(ModelContext::Stated(32_768), 64);
        assert_eq!(wide.tokens(), 724);
        assert_eq!(wide.bound(), Bound::HeadsWeights { heads: 64 });
        assert!(
            wide.note()
                .starts_with("computed for at most 724 tokens: so that 64 heads'")
        );
        // GPT-2: its 1024 position rows tie with the cap, and are what the model reads.
        let gpt2 = TokenLimit::new(ModelContext::PositionRows(1024), 12);
        assert_eq!(gpt2.bound(), Bound::Model(ModelContext::PositionRows(1024)));
        assert_eq!(
            gpt2.reason(),
            "the model's context length (its position table's 1024 rows)"
        );
        let short = TokenLimit::new(ModelContext::Stated(512), 8);
        assert_eq!(short.reason(), "the model's stated context length (512)");
        let window = TokenLimit::new(ModelContext::Window(512), 8);
        assert_eq!(window.tokens(), 512);
        assert!(window.reason().contains("sliding window of 512 tokens"));
        let unstated = TokenLimit::new(ModelContext::Unstated, 8);
        assert_eq!(unstated.tokens(), 1024);
        assert_eq!(unstated.bound(), Bound::Cap);
        assert!(
            unstated
                .reason()
                .ends_with("(the model states no context length)")
        );
        assert_eq!(
            TokenLimit::new(ModelContext::PositionRows(0), 8).tokens(),
            1
        );
    }
}
