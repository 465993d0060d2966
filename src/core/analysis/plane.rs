//! A sentence's vectors as a flat picture: the token vectors (and, with positions added, the
//! input vectors) on their top two principal axes, which dots are which words, the arrows
//! from each token vector to its input vector, and what the picture shows, as data.

use std::fmt::Write as _;

use ndarray::ArrayView1;

use crate::core::analysis::metrics::euclidean_distance;
use crate::core::analysis::projection::principal_plane;
use crate::core::tables::weights::TokenLookup;
use crate::core::text::vocabulary::Token;

/// Which of two compared sentences a vector belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The explorer's one sentence.
    Only,
    /// Compare mode's first sentence.
    A,
    /// Compare mode's second sentence.
    B,
}

impl Side {
    /// The letter before a position in compare mode's labels (`A3`); nothing for one sentence.
    #[must_use]
    pub fn letter(self) -> &'static str {
        match self {
            Self::Only => "",
            Self::A => "A",
            Self::B => "B",
        }
    }
}

/// What a dot stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DotKind {
    /// A token vector: a row of the table, which knows no position.
    Token,
    /// An input vector: token vector + position vector.
    Input,
}

/// One dot: every vector shown that has these exact bits.
#[derive(Clone, Debug, PartialEq)]
pub struct Dot {
    /// Where it lands on the two axes.
    pub at: [f64; 2],
    /// Token or input vector.
    pub kind: DotKind,
    /// Its label: the word, with `×n` for copies at one token dot; `3 fox` (or `A3 fox`) for
    /// an input vector, several joined by spaces when they coincide.
    pub label: String,
    /// Whether the current token is one of its vectors.
    pub current: bool,
    /// Which sentences have a vector here.
    pub sides: Vec<Side>,
}

/// An arrow from a token vector to the input vector it became.
#[derive(Clone, Debug, PartialEq)]
pub struct Arrow {
    /// The token vector's point.
    pub from: [f64; 2],
    /// The input vector's point.
    pub to: [f64; 2],
    /// Whether it is the current token's.
    pub current: bool,
}

/// What the picture shows about the copies of a word, or about the two orders.
#[derive(Clone, Debug, PartialEq)]
pub enum PlaneFinding {
    /// Copies of a word with no positions added: one dot, as the vectors are identical.
    CopiesOneDot {
        /// The word.
        word: String,
        /// Its positions.
        positions: Vec<usize>,
    },
    /// Copies of a word with positions added: one token dot, input dots apart.
    CopiesSplit {
        /// The word.
        word: String,
        /// Its positions.
        positions: Vec<usize>,
        /// The distance between the first two copies' input vectors, over every dimension.
        distance: f64,
    },
    /// No word repeats.
    NoRepeat,
    /// Compare mode: how many of B's vectors sit on a dot of A's.
    Orders {
        /// Whether input vectors (with positions) are shown, not token vectors alone.
        inputs: bool,
        /// B's vectors of that kind that coincide with one of A's.
        shared: usize,
        /// B's vectors of that kind.
        total: usize,
    },
}

/// The picture of one sentence (or two), ready to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct Plane {
    /// The dots, token vectors first.
    pub dots: Vec<Dot>,
    /// Token vector → input vector, where positions moved it.
    pub arrows: Vec<Arrow>,
    /// The share of the spread each axis holds.
    pub explained: [f64; 2],
    /// How many distinct vectors the axes were fitted to.
    pub distinct: usize,
    /// What it shows.
    pub finding: PlaneFinding,
}

/// One sentence's part of the picture.
pub struct Sentence<'a> {
    /// Which sentence.
    pub side: Side,
    /// Its lookups (those without a row are left out).
    pub lookups: &'a [TokenLookup],
    /// The current token's index, if the picture marks one.
    pub current: Option<usize>,
}

/// A vector shown, before it is placed.
struct Member<'a> {
    side: Side,
    index: usize,
    word: &'a str,
    position: usize,
    /// The token as read, to tell copies from different words on one (unknown-token) row.
    read: &'a Token,
    token: ArrayView1<'a, f32>,
    input: ArrayView1<'a, f32>,
}

/// The picture of the sentences' token vectors and, with `inputs`, their input vectors.
///
/// `None` when no token has a row.
#[must_use]
pub fn plane(sentences: &[Sentence], inputs: bool) -> Option<Plane> {
    let members: Vec<Member> = sentences
        .iter()
        .flat_map(|sentence| {
            sentence
                .lookups
                .iter()
                .enumerate()
                .filter_map(move |(index, lookup)| {
                    Some(Member {
                        side: sentence.side,
                        index,
                        word: lookup.token.text.as_str(),
                        position: lookup.token.position,
                        read: &lookup.token,
                        token: lookup.token_vector.as_ref()?.view(),
                        input: lookup.input_vector.as_ref()?.view(),
                    })
                })
        })
        .collect();
    if members.is_empty() {
        return None;
    }
    let mut vectors: Vec<ArrayView1<f32>> = members.iter().map(|member| member.token).collect();
    if inputs {
        vectors.extend(members.iter().map(|member| member.input));
    }
    let projection = principal_plane(&vectors)?;
    let is_current = |member: &Member| {
        sentences
            .iter()
            .any(|sentence| sentence.side == member.side && sentence.current == Some(member.index))
    };
    let kinds: &[DotKind] = if inputs {
        &[DotKind::Token, DotKind::Input]
    } else {
        &[DotKind::Token]
    };
    let dots = dots(
        &members,
        kinds,
        &|vector| projection.place(vector),
        &is_current,
    );
    let arrows = if inputs {
        members
            .iter()
            .filter(|member| member.token != member.input)
            .map(|member| Arrow {
                from: projection.place(member.token),
                to: projection.place(member.input),
                current: is_current(member),
            })
            .collect()
    } else {
        Vec::new()
    };
    let finding = finding(sentences, &members, inputs);
    Some(Plane {
        dots,
        arrows,
        explained: projection.explained,
        distinct: distinct_count(&vectors),
        finding,
    })
}

/// One dot for each distinct vector of each kind, labelled by the members that have it.
fn dots(
    members: &[Member],
    kinds: &[DotKind],
    place: &dyn Fn(ArrayView1<f32>) -> [f64; 2],
    is_current: &dyn Fn(&Member) -> bool,
) -> Vec<Dot> {
    let mut dots: Vec<Dot> = Vec::new();
    let mut bits_of: Vec<Vec<u32>> = Vec::new();
    // Copies in the first sentence each token dot holds.
    let mut copies: Vec<usize> = Vec::new();
    for &kind in kinds {
        for member in members {
            let vector = match kind {
                DotKind::Token => member.token,
                DotKind::Input => member.input,
            };
            let bits: Vec<u32> = vector.iter().map(|value| value.to_bits()).collect();
            let found = dots
                .iter()
                .zip(&bits_of)
                .position(|(dot, seen)| dot.kind == kind && *seen == bits);
            let index = found.unwrap_or_else(|| {
                dots.push(Dot {
                    at: place(vector),
                    kind,
                    label: String::new(),
                    current: false,
                    sides: Vec::new(),
                });
                bits_of.push(bits);
                copies.push(0);
                dots.len() - 1
            });
            let dot = &mut dots[index];
            dot.current |= is_current(member);
            if !dot.sides.contains(&member.side) {
                dot.sides.push(member.side);
            }
            match kind {
                DotKind::Token => {
                    // Different words on one row (a vocabulary's unknown-token row) are each
                    // named: the dot is not one word's copies.
                    let word = member.word.trim();
                    if dot.label.is_empty() {
                        word.clone_into(&mut dot.label);
                    } else if !dot.label.split(" / ").any(|named| named == word) {
                        let _ = write!(dot.label, " / {word}");
                    }
                    if member.side != Side::B {
                        copies[index] += 1;
                    }
                }
                DotKind::Input => {
                    if !dot.label.is_empty() {
                        dot.label.push(' ');
                    }
                    let _ = write!(
                        dot.label,
                        "{}{} {}",
                        member.side.letter(),
                        member.position,
                        member.word.trim()
                    );
                }
            }
        }
    }
    for (dot, &count) in dots.iter_mut().zip(&copies) {
        if dot.kind == DotKind::Token && count > 1 {
            let _ = write!(dot.label, " ×{count}");
        }
    }
    dots
}

fn distinct_count(vectors: &[ArrayView1<f32>]) -> usize {
    let mut seen: Vec<Vec<u32>> = Vec::new();
    for vector in vectors {
        let bits: Vec<u32> = vector.iter().map(|value| value.to_bits()).collect();
        if !seen.contains(&bits) {
            seen.push(bits);
        }
    }
    seen.len()
}

/// What the picture shows: in compare mode how many of B's dots are A's; else the current
/// word's copies (or the first repeated word's).
fn finding(sentences: &[Sentence], members: &[Member], inputs: bool) -> PlaneFinding {
    if sentences.iter().any(|sentence| sentence.side == Side::B) {
        let vector = |member: &Member<'_>| {
            if inputs { member.input } else { member.token }
                .iter()
                .map(|value| value.to_bits())
                .collect::<Vec<u32>>()
        };
        let a: Vec<Vec<u32>> = members
            .iter()
            .filter(|member| member.side == Side::A)
            .map(vector)
            .collect();
        let b: Vec<&Member> = members
            .iter()
            .filter(|member| member.side == Side::B)
            .collect();
        let shared = b
            .iter()
            .filter(|member| a.contains(&vector(member)))
            .count();
        return PlaneFinding::Orders {
            inputs,
            shared,
            total: b.len(),
        };
    }
    let current = sentences
        .first()
        .and_then(|sentence| sentence.current)
        .and_then(|index| members.iter().find(|member| member.index == index));
    // Copies share a row; different unknown words share one too, but are not copies.
    let copies_of = |of: &Member| -> Vec<&Member> {
        members
            .iter()
            .filter(|member| member.read.is_copy_of(of.read))
            .collect()
    };
    let copies = current
        .map(copies_of)
        .filter(|copies| copies.len() > 1)
        .or_else(|| {
            members
                .iter()
                .map(copies_of)
                .find(|copies| copies.len() > 1)
        });
    let Some(copies) = copies else {
        return PlaneFinding::NoRepeat;
    };
    let word = copies[0].word.trim().to_owned();
    let positions = copies.iter().map(|member| member.position).collect();
    if inputs {
        PlaneFinding::CopiesSplit {
            word,
            positions,
            distance: euclidean_distance(copies[0].input, copies[1].input),
        }
    } else {
        PlaneFinding::CopiesOneDot { word, positions }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tables::positional::PositionScheme;
    use crate::core::tables::weights::{DEFAULT_SEED, EmbeddingModel};
    use crate::core::text::vocabulary::VocabKind;

    fn lookups(sentence: &str, scheme: PositionScheme) -> Vec<TokenLookup> {
        let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
        let tokens = model.tokenize(sentence).unwrap();
        model.embed(&tokens, scheme)
    }

    #[test]
    fn without_positions_the_copies_are_one_dot() {
        let fox = lookups("fox bites the fox", PositionScheme::None);
        let plane = plane(
            &[Sentence {
                side: Side::Only,
                lookups: &fox,
                current: Some(3),
            }],
            false,
        )
        .unwrap();
        assert_eq!(plane.dots.len(), 3, "fox, bites, the");
        assert_eq!(plane.dots[0].label, "fox ×2");
        assert!(plane.dots[0].current);
        assert!(plane.arrows.is_empty());
        assert_eq!(
            plane.finding,
            PlaneFinding::CopiesOneDot {
                word: "fox".to_owned(),
                positions: vec![0, 3]
            }
        );
        assert!((plane.explained[0] + plane.explained[1] - 1.0).abs() < 1e-9);
    }

    #[test]
    fn different_unknown_words_on_one_row_are_not_called_copies() {
        let model = EmbeddingModel::builtin(VocabKind::Words, DEFAULT_SEED);
        let tokens = model.tokenize("zorp the blick").unwrap();
        let lookups = model.embed(&tokens, PositionScheme::None);
        let plane = plane(
            &[Sentence {
                side: Side::Only,
                lookups: &lookups,
                current: Some(0),
            }],
            false,
        )
        .unwrap();
        assert!(
            plane.dots.iter().any(|dot| dot.label == "zorp / blick ×2"),
            "{:?}",
            plane.dots
        );
        assert_eq!(plane.finding, PlaneFinding::NoRepeat);
    }

    #[test]
    #[expect(
        clippy::float_cmp,
        reason = "the copies' points differ, not merely by rounding"
    )]
    fn with_positions_the_copies_split_and_arrows_lead_to_them() {
        let fox = lookups("fox bites the fox", PositionScheme::Learned);
        let plane = plane(
            &[Sentence {
                side: Side::Only,
                lookups: &fox,
                current: Some(0),
            }],
            true,
        )
        .unwrap();
        let inputs: Vec<&Dot> = plane
            .dots
            .iter()
            .filter(|dot| dot.kind == DotKind::Input)
            .collect();
        assert_eq!(inputs.len(), 4);
        assert_eq!(inputs[0].label, "0 fox");
        assert_ne!(inputs[0].at, inputs[3].at);
        assert_eq!(plane.arrows.len(), 4);
        let PlaneFinding::CopiesSplit { distance, .. } = plane.finding else {
            panic!("{:?}", plane.finding);
        };
        let expected = euclidean_distance(
            fox[0].input_vector.as_ref().unwrap().view(),
            fox[3].input_vector.as_ref().unwrap().view(),
        );
        assert!((distance - expected).abs() < f64::EPSILON);
        assert!(distance > 0.0);
    }

    #[test]
    fn two_orders_share_their_token_dots_until_positions_come() {
        let scheme = PositionScheme::Learned;
        let (a, b) = (
            lookups("fox bites the fox", PositionScheme::None),
            lookups("fox the bites fox", PositionScheme::None),
        );
        let sentences = |a, b| {
            [
                Sentence {
                    side: Side::A,
                    lookups: a,
                    current: None,
                },
                Sentence {
                    side: Side::B,
                    lookups: b,
                    current: None,
                },
            ]
        };
        let off = plane(&sentences(&a, &b), false).unwrap();
        assert_eq!(off.dots.len(), 3, "B's dots are A's");
        assert_eq!(
            off.finding,
            PlaneFinding::Orders {
                inputs: false,
                shared: 4,
                total: 4
            }
        );
        let (a, b) = (
            lookups("fox bites the fox", scheme),
            lookups("fox the bites fox", scheme),
        );
        let on = plane(&sentences(&a, &b), true).unwrap();
        assert_eq!(
            on.finding,
            PlaneFinding::Orders {
                inputs: true,
                shared: 2,
                total: 4
            },
            "fox keeps its places; bites and the swap theirs"
        );
        assert!(on.dots.iter().any(|dot| dot.label == "A0 fox B0 fox"));
    }
}
