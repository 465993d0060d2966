//! Attention's outputs of two sentences, word by word: the numbers behind "identical for all
//! shared words, bit for bit". Each word that is in both sentences gets one row with its
//! output in A and in B and how they compare; a word in only one sentence gets a row of its
//! own, with nothing to compare.

use ndarray::ArrayView1;

use crate::core::explain::verdict::VectorMatch;

/// One row of the outputs table: a token of A, of B, or of both.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputRow {
    /// The token's text.
    pub text: String,
    /// Its index in A, when it is in A.
    pub a: Option<usize>,
    /// Its index in B, when it is in B.
    pub b: Option<usize>,
    /// How its outputs in A and B compare; `None` for a token in only one sentence.
    pub difference: Option<VectorMatch>,
}

/// The rows for two sentences whose tokens `pairs` link (token `i` of A is token `j` of B):
/// A's tokens in order, each beside its partner in B, then B's tokens without a partner.
///
/// `outputs_a[i]` is token `i`'s output in A; `texts_a[i]` its text; likewise for B.
#[must_use]
pub fn output_rows(
    texts: [&[String]; 2],
    outputs: [&[ArrayView1<f32>]; 2],
    pairs: &[(usize, usize)],
) -> Vec<OutputRow> {
    let [texts_a, texts_b] = texts;
    let [outputs_a, outputs_b] = outputs;
    let count_a = texts_a.len().min(outputs_a.len());
    let count_b = texts_b.len().min(outputs_b.len());
    let partner = |i: usize| {
        pairs
            .iter()
            .find(|&&(a, b)| a == i && b < count_b)
            .map(|&(_, b)| b)
    };
    let mut rows: Vec<OutputRow> = (0..count_a)
        .map(|i| {
            let b = partner(i);
            OutputRow {
                text: texts_a[i].clone(),
                a: Some(i),
                b,
                difference: b.map(|j| VectorMatch::of(outputs_a[i], outputs_b[j])),
            }
        })
        .collect();
    let paired: Vec<usize> = rows.iter().filter_map(|row| row.b).collect();
    rows.extend(
        (0..count_b)
            .filter(|j| !paired.contains(j))
            .map(|j| OutputRow {
                text: texts_b[j].clone(),
                a: None,
                b: Some(j),
                difference: None,
            }),
    );
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array1, arr1};

    fn texts(words: &[&str]) -> Vec<String> {
        words.iter().map(|&word| word.to_owned()).collect()
    }

    #[test]
    fn each_shared_word_is_one_row_with_its_two_outputs_compared() {
        // dog bites man against man bites dog: dog moved, bites stayed, man moved and changed.
        let a: Vec<Array1<f32>> = vec![arr1(&[1.0, 2.0]), arr1(&[3.0, 4.0]), arr1(&[5.0, 6.0])];
        let b: Vec<Array1<f32>> = vec![arr1(&[5.0, 6.5]), arr1(&[3.0, 4.0]), arr1(&[1.0, 2.0])];
        let a_views: Vec<_> = a.iter().map(|vector| vector.view()).collect();
        let b_views: Vec<_> = b.iter().map(|vector| vector.view()).collect();
        let (a_texts, b_texts) = (
            texts(&["dog", "bites", "man"]),
            texts(&["man", "bites", "dog"]),
        );
        let rows = output_rows(
            [&a_texts, &b_texts],
            [&a_views, &b_views],
            &[(0, 2), (1, 1), (2, 0)],
        );
        assert_eq!(rows.len(), 3);
        assert_eq!((rows[0].a, rows[0].b), (Some(0), Some(2)));
        assert_eq!(rows[0].difference, Some(VectorMatch::Identical));
        assert_eq!(rows[1].difference, Some(VectorMatch::Identical));
        assert_eq!(rows[2].text, "man");
        assert_eq!(rows[2].difference, Some(VectorMatch::DiffersBy(0.5)));
    }

    #[test]
    fn a_word_in_one_sentence_only_has_nothing_to_compare() {
        let a = [arr1(&[1.0f32]), arr1(&[2.0])];
        let b = [arr1(&[1.0f32]), arr1(&[7.0])];
        let a_views: Vec<_> = a.iter().map(|vector| vector.view()).collect();
        let b_views: Vec<_> = b.iter().map(|vector| vector.view()).collect();
        let (a_texts, b_texts) = (texts(&["dog", "man"]), texts(&["dog", "fox"]));
        let rows = output_rows([&a_texts, &b_texts], [&a_views, &b_views], &[(0, 0)]);
        let summary: Vec<_> = rows
            .iter()
            .map(|row| (row.text.as_str(), row.a, row.b, row.difference))
            .collect();
        assert_eq!(
            summary,
            [
                ("dog", Some(0), Some(0), Some(VectorMatch::Identical)),
                ("man", Some(1), None, None),
                ("fox", None, Some(1), None),
            ]
        );
    }
}
