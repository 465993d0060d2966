//! A Python script that reproduces what the explorer shows, in PyTorch: the `y` overlay and
//! `embedlens snippet` write the same one.
//!
//! The script needs PyTorch only (and `transformers` for a model from files or the trained
//! vocabulary): the tables drawn as embedlens draws them, the sentence's ids written out, the
//! position vectors of the scheme shown, and with attention the seeded head or the model's own
//! layer 0. It leaves `ids`, `token_vectors`, `position_vectors`, `input_vectors`, the copies'
//! `distance`, and with attention `attention_weights` and `attention_outputs` (compare mode:
//! the same for B, with `_b`), printed with four decimals as the screen shows them.
//!
//! [`tables`] writes where the tables come from, [`head`] the seeded head and the position
//! formulas, [`layer0`] a model's own first layer; [`python`] keeps the text valid Python.

mod head;
mod layer0;
pub mod python;
mod tables;

use std::fmt::Write as _;

use anyhow::{Result, bail};

use crate::core::analysis::attention::{MAX_VIEW_TOKENS, Mask};
use crate::core::analysis::compare::{MAX_COMPARED_TOKENS, id_links};
use crate::core::analysis::layer0::Layer0;
use crate::core::explain::layer0::SentenceIds;
use crate::core::tables::positional::PositionScheme;
use crate::core::tables::weights::{DEFAULT_SEED, EmbeddingModel};
use crate::core::text::sentence;
use crate::core::text::vocabulary::{Token, VocabKind};
use python::{Script, list, string};

/// What is on screen, as far as the script reproduces it.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    /// The tables and tokenizer in use.
    pub model: &'a EmbeddingModel,
    /// The built-in vocabulary, or `None` for a `--shape` table or a model from files.
    pub vocab: Option<VocabKind>,
    /// The sentence as typed (A in compare mode).
    pub sentence: &'a str,
    /// Its tokens, as the screen shows them.
    pub tokens: &'a [Token],
    /// Whether the sentence was typed as ids.
    pub by_ids: bool,
    /// Whether a model's tokenizer added its special tokens.
    pub special_tokens: bool,
    /// The position scheme in force (`None` with positions off).
    pub scheme: PositionScheme,
    /// The attention shown, if any.
    pub attention: Option<Head<'a>>,
    /// Compare mode's sentence B (compare mode always attends).
    pub other: Option<&'a str>,
}

/// Which attention the script runs.
#[derive(Clone, Copy, Debug)]
pub enum Head<'a> {
    /// The seeded head: `SelfAttention_v2`'s three `nn.Linear` layers after
    /// `torch.manual_seed(seed)`.
    Seeded {
        /// The seed the head is drawn with.
        seed: u64,
        /// Unmasked or causal.
        mask: Mask,
    },
    /// The model's own layer 0, every head; `head` is the one on screen.
    Layer0 {
        /// The layer embedlens computes.
        layer: &'a Layer0,
        /// The head shown, counted from 0.
        head: usize,
        /// Whether the layer gets the model's positions.
        with_positions: bool,
    },
}

/// The tokens of one sentence the script looks up: those with an input vector on screen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Kept {
    /// Each kept token's id.
    ids: Vec<usize>,
    /// Each kept token's position in the sentence.
    positions: Vec<usize>,
    /// Each kept token's text.
    words: Vec<String>,
    /// Tokens left out, with why, as sentences.
    left_out: Vec<String>,
    /// Every token's id, when every token has one: what the tokenizer itself gives.
    all_ids: Option<Vec<usize>>,
}

impl Kept {
    /// The tokens with a row and, for learned positions, a row of the position table.
    fn of(model: &EmbeddingModel, tokens: &[Token], scheme: PositionScheme) -> Self {
        let mut kept = Self {
            all_ids: tokens.iter().map(|token| token.id).collect(),
            ..Self::default()
        };
        for token in tokens {
            let word = &token.text;
            let position = token.position;
            match token.id {
                Some(id) if id >= model.rows() => kept.left_out.push(format!(
                    "{word:?} at {position}: id {id} has no row in the {}-row table",
                    model.rows()
                )),
                None => kept.left_out.push(format!(
                    "{word:?} at {position}: the vocabulary has no row for it"
                )),
                Some(_)
                    if scheme == PositionScheme::Learned && position >= model.context_length() =>
                {
                    kept.left_out.push(format!(
                        "{word:?} at {position}: beyond the position table's {} rows",
                        model.context_length()
                    ));
                }
                Some(id) => {
                    kept.ids.push(id);
                    kept.positions.push(position);
                    kept.words.push(word.clone());
                }
            }
        }
        kept
    }

    /// The first repeated id's first two copies, as indices into the kept tokens.
    fn first_copies(&self) -> Option<(usize, usize)> {
        self.ids.iter().enumerate().find_map(|(second, id)| {
            let first = self.ids[..second].iter().position(|other| other == id)?;
            Some((first, second))
        })
    }

    /// `torch.arange(n)` when the positions are 0, 1, 2…; else the list.
    fn positions_code(&self) -> String {
        let counting = self
            .positions
            .iter()
            .enumerate()
            .all(|(index, &position)| index == position);
        if counting {
            format!("torch.arange({})", self.positions.len())
        } else {
            format!("torch.tensor({})", list(&self.positions))
        }
    }
}

/// The script for what `view` shows.
///
/// # Errors
/// When no token of a sentence has an input vector (nothing to reproduce), the tables are
/// still being generated, or compare mode's sentence B cannot be read.
pub fn script(view: &View) -> Result<String> {
    let model = view.model;
    if !model.is_ready() {
        bail!("the tables are still being generated; ask again in a moment");
    }
    let kept = Kept::of(model, view.tokens, view.scheme);
    if kept.ids.is_empty() {
        bail!("no token of the sentence has an input vector to reproduce");
    }
    let other = match view.other {
        Some(text) => {
            let read = sentence::read(model, text, true, view.by_ids)?;
            let mut tokens = read.tokens;
            tokens.truncate(MAX_COMPARED_TOKENS);
            let kept = Kept::of(model, &tokens, view.scheme);
            if kept.ids.is_empty() {
                bail!("no token of sentence B has an input vector to reproduce");
            }
            Some((text, tokens, kept))
        }
        None => None,
    };
    let mut script = Script::default();
    header(&mut script, view);
    let tables = tables::write(&mut script, view);
    script.blank();
    sentence_ids(&mut script, view, view.sentence, &kept, "");
    script.blank();
    script.blank();
    head::embed_function(&mut script, view, tables);
    script.blank();
    script.blank();
    script.line("token_vectors, position_vectors, input_vectors = embed(ids, positions)");
    script.line("print(\"ids\", ids.tolist())");
    for name in ["token_vectors", "position_vectors", "input_vectors"] {
        script.line(format!("print({}, {name}, sep=\"\\n\")", string(name)));
    }
    distance(&mut script, &kept, view.scheme);
    let limit = if other.is_some() {
        MAX_COMPARED_TOKENS
    } else {
        MAX_VIEW_TOKENS
    };
    let attention = view.attention.or_else(|| {
        other.as_ref().map(|_| Head::Seeded {
            seed: model.seed().unwrap_or(DEFAULT_SEED),
            mask: Mask::None,
        })
    });
    let Some(attention) = attention else {
        return Ok(script.finish());
    };
    script.blank();
    match attention {
        Head::Seeded { seed, mask } => {
            head::seeded(&mut script, view, seed, mask);
            script.blank();
            script.blank();
            script.line(format!(
                "attention_weights, attention_outputs = self_attention({})",
                first(&kept, limit, "")
            ));
            script.line("print(\"attention_weights\", attention_weights.float(), sep=\"\\n\")");
        }
        Head::Layer0 {
            layer,
            head,
            with_positions,
        } => {
            let ids =
                SentenceIds::of(layer, view.tokens, limit.min(layer.token_limit().tokens())).ids;
            layer0::function(&mut script, layer, with_positions);
            script.blank();
            script.blank();
            layer0_ids(&mut script, &kept, &ids, "");
            script.line("attention_weights, attention_outputs = layer0(layer0_ids)");
            script.line(format!(
                "print(\"attention_weights of head {head}, as on screen\", attention_weights[{head}], sep=\"\\n\")"
            ));
        }
    }
    script.line("print(\"attention_outputs\", attention_outputs, sep=\"\\n\")");
    if let Some((text, tokens, kept_b)) = &other {
        script.blank();
        compare(
            &mut script,
            view,
            attention,
            text,
            tokens,
            kept_b,
            &kept,
            limit,
        );
    }
    Ok(script.finish())
}

/// `ids[:limit]`-style slices of the kept tokens for attention: the whole when it fits.
fn first(kept: &Kept, limit: usize, suffix: &str) -> String {
    if kept.ids.len() <= limit {
        format!("input_vectors{suffix}, positions{suffix}")
    } else {
        format!("input_vectors{suffix}[:{limit}], positions{suffix}[:{limit}]")
    }
}

/// The ids layer 0 reads: the kept ids when they are the same, else their own list.
fn layer0_ids(script: &mut Script, kept: &Kept, ids: &[usize], suffix: &str) {
    if kept.ids == ids {
        script.line(format!("layer0_ids{suffix} = ids{suffix}"));
    } else if kept.ids.starts_with(ids) {
        script.line(format!("layer0_ids{suffix} = ids{suffix}[:{}]", ids.len()));
    } else {
        script.line(format!(
            "layer0_ids{suffix} = torch.tensor({})  # the tokens with a row in layer 0's table",
            list(ids)
        ));
    }
}

/// The first lines: what the script shows, and what it needs.
fn header(script: &mut Script, view: &View) {
    let scheme = match view.scheme {
        PositionScheme::None => "positions off".to_owned(),
        scheme => format!("{} positions", scheme.label()),
    };
    let table = match (view.model.source(), view.vocab) {
        (Some(_), _) => format!("the model {}", view.model.label()),
        (None, None) => format!("the {} table", view.model.label()),
        (None, Some(kind)) => format!("the {} vocabulary", kind.name()),
    };
    script.comment(&format!(
        "What embedlens shows for {}, reproduced in PyTorch: {table}, {scheme}.",
        string(view.sentence)
    ));
    script.comment("Numbers print with four decimals, as on screen.");
}

/// The sentence's ids and positions, and the tokens left out.
fn sentence_ids(script: &mut Script, view: &View, text: &str, kept: &Kept, suffix: &str) {
    for reason in &kept.left_out {
        script.comment(&format!("Left out, as on screen: {reason}."));
    }
    if view.by_ids {
        script.comment("The ids as typed.");
    } else {
        tables::ids_comment(script, view, text, kept, suffix);
    }
    script.line(format!(
        "ids{suffix} = torch.tensor({})",
        tables::row_ids(view, kept)
    ));
    script.line(format!("positions{suffix} = {}", kept.positions_code()));
}

/// The distance between the first repeated word's first two copies, as the readout gives it.
fn distance(script: &mut Script, kept: &Kept, scheme: PositionScheme) {
    let Some((first, second)) = kept.first_copies() else {
        return;
    };
    // The word goes into an f-string: its braces are doubled.
    let word = kept.words[first].replace('{', "{{").replace('}', "}}");
    let places = format!(
        "{word} at {} and {}",
        kept.positions[first], kept.positions[second]
    );
    script.blank();
    script.comment(&format!(
        "{places}: the same row, so the same token vector; the distance between their input \
         vectors is what positions add."
    ));
    script.line(format!(
        "distance = torch.dist(input_vectors[{first}], input_vectors[{second}])"
    ));
    let row = kept.ids[first];
    let mut said = format!(
        "{places}: same row {row}, Euclidean distance \
         {{torch.dist(token_vectors[{first}], token_vectors[{second}]):.4f}}"
    );
    if scheme.is_additive() {
        let _ = write!(said, "; with {scheme} positions {{distance:.4f}}");
    }
    script.line(format!("print(f{})", string(&said)));
}

/// Compare mode: B the same way, then each word's output in A and in B.
#[expect(clippy::too_many_arguments, reason = "one call, from script")]
fn compare(
    script: &mut Script,
    view: &View,
    attention: Head,
    text: &str,
    tokens: &[Token],
    kept_b: &Kept,
    kept: &Kept,
    limit: usize,
) {
    script.comment(&format!(
        "Compare mode's sentence B, {}, the same way.",
        string(text)
    ));
    sentence_ids(script, view, text, kept_b, "_b");
    script.line("token_vectors_b, position_vectors_b, input_vectors_b = embed(ids_b, positions_b)");
    let (a_words, a_ids, b_ids): (Vec<String>, Vec<usize>, Vec<usize>) = match attention {
        Head::Seeded { .. } => {
            script.line(format!(
                "attention_weights_b, attention_outputs_b = self_attention({})",
                first(kept_b, limit, "_b")
            ));
            let take = |ids: &[usize]| ids.iter().take(limit).copied().collect();
            (kept.words.clone(), take(&kept.ids), take(&kept_b.ids))
        }
        Head::Layer0 { layer, .. } => {
            let limit = limit.min(layer.token_limit().tokens());
            let b_ids = SentenceIds::of(layer, tokens, limit).ids;
            layer0_ids(script, kept_b, &b_ids, "_b");
            script.line("attention_weights_b, attention_outputs_b = layer0(layer0_ids_b)");
            let a = SentenceIds::of(layer, view.tokens, limit);
            let words = a
                .members
                .iter()
                .map(|&index| view.tokens[index].text.clone())
                .collect();
            (words, a.ids, b_ids)
        }
    };
    script.line("print(\"ids_b\", ids_b.tolist())");
    script.line("print(\"attention_outputs_b\", attention_outputs_b, sep=\"\\n\")");
    let some = |ids: &[usize]| -> Vec<Option<usize>> { ids.iter().copied().map(Some).collect() };
    let links = id_links(&some(&a_ids), &some(&b_ids));
    if links.is_empty() {
        script.comment("A and B share no word, so no output has a twin to compare.");
        return;
    }
    let words: Vec<String> = links
        .iter()
        .map(|&(a, b)| {
            let word = a_words.get(a).map_or("", String::as_str);
            format!("({}, {a}, {b})", string(word))
        })
        .collect();
    script.blank();
    script.comment(
        "Each word A and B both hold (the first copy in A with the first in B, and so on): its \
         output in A and in B, and whether they are equal bit for bit.",
    );
    script.line(format!("for word, a, b in [{}]:", words.join(", ")));
    script.line("    same = torch.equal(attention_outputs[a], attention_outputs_b[b])");
    script.line("    largest = (attention_outputs[a] - attention_outputs_b[b]).abs().max()");
    script.line(
        "    print(f\"{word:>12}  A {a}  B {b}  torch.equal {same}  largest difference {largest:.4f}\")",
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tables::weights::DEFAULT_SEED;

    fn snippet_of(
        kind: VocabKind,
        text: &str,
        scheme: PositionScheme,
        attention: Option<Head>,
        other: Option<&str>,
    ) -> Result<String> {
        let model = EmbeddingModel::builtin(kind, DEFAULT_SEED);
        let tokens = model.tokenize(text).unwrap();
        script(&View {
            model: &model,
            vocab: Some(kind),
            sentence: text,
            tokens: &tokens,
            by_ids: false,
            special_tokens: true,
            scheme,
            attention,
            other,
        })
    }

    const SEEDED: Option<Head> = Some(Head::Seeded {
        seed: DEFAULT_SEED,
        mask: Mask::Causal,
    });

    #[test]
    fn the_tables_are_drawn_in_embedlens_order_and_the_ids_written_out() {
        let text = snippet_of(
            VocabKind::Seed,
            "fox bites the fox",
            PositionScheme::Learned,
            None,
            None,
        )
        .unwrap();
        let draw = "torch.manual_seed(123)\ntoken_table = torch.nn.Embedding(6, 3)\n\
                    position_table = torch.nn.Embedding(16, 3)\n";
        assert!(text.contains(draw), "{text}");
        assert!(text.contains("ids = torch.tensor([2, 4, 0, 2])"), "{text}");
        assert!(text.contains("positions = torch.arange(4)"), "{text}");
        assert!(text.contains("distance = torch.dist(input_vectors[0], input_vectors[3])"));
        assert!(!text.contains("self_attention"), "no attention asked for");
    }

    #[test]
    fn a_word_without_a_row_is_left_out_and_the_positions_kept() {
        let text = snippet_of(
            VocabKind::Seed,
            "fox zorp fox",
            PositionScheme::Sinusoidal,
            None,
            None,
        )
        .unwrap();
        assert!(
            text.contains("Left out, as on screen: \"zorp\" at 1"),
            "{text}"
        );
        assert!(text.contains("positions = torch.tensor([0, 2])"), "{text}");
        assert!(text.contains("angles.sin()"), "{text}");
    }

    #[test]
    fn the_seeded_head_has_its_mask_and_the_scheme_inside_attention() {
        let rope = snippet_of(
            VocabKind::Words,
            "the dog bites the dog",
            PositionScheme::Rope,
            SEEDED,
            None,
        )
        .unwrap();
        assert!(rope.contains("torch.nn.Linear(8, 8, bias=False)"), "{rope}");
        assert!(
            rope.contains("queries, keys = rope(queries, positions)"),
            "{rope}"
        );
        assert!(rope.contains("masked_fill(hidden"), "{rope}");
        assert!(rope.contains("RoPE adds nothing here"), "{rope}");
        let alibi = snippet_of(
            VocabKind::Seed,
            "dog bites man",
            PositionScheme::Alibi,
            SEEDED,
            None,
        )
        .unwrap();
        assert!(alibi.contains("scores = scores - 0.5 * "), "{alibi}");
    }

    #[test]
    fn compare_mode_writes_b_and_checks_each_word() {
        let text = snippet_of(
            VocabKind::Seed,
            "dog bites man",
            PositionScheme::None,
            None,
            Some("man bites dog"),
        )
        .unwrap();
        assert!(text.contains("ids_b = torch.tensor([5, 4, 3])"), "{text}");
        assert!(
            text.contains(
                "for word, a, b in [(\"dog\", 0, 2), (\"bites\", 1, 1), (\"man\", 2, 0)]:"
            ),
            "{text}"
        );
        assert!(text.contains("torch.equal"), "{text}");
    }

    #[test]
    fn nothing_to_reproduce_is_an_error() {
        let error = snippet_of(VocabKind::Seed, "zorp", PositionScheme::None, None, None)
            .unwrap_err()
            .to_string();
        assert!(error.contains("no token"), "{error}");
    }
}
