//! Tests of the embedding matrix and its lookups.

use super::*;
use crate::core::analysis::metrics::euclidean_distance;

use ndarray::ArrayView1;

#[test]
fn a_seeded_position_table_is_learnable_never_learned() {
    let seeded = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED).table_kind();
    let phrase = seeded.position_table();
    assert!(phrase.contains("learnable"), "{phrase}");
    assert!(phrase.contains("randomly initialised"), "{phrase}");
    assert!(
        !phrase.contains("learned") && !phrase.contains("trained"),
        "{phrase}"
    );
    let trained = EmbeddingModel::builtin(VocabKind::Trained, DEFAULT_SEED).table_kind();
    assert_eq!(trained.position_table(), "learned position table");
}

fn four_decimals(v: ArrayView1<f32>) -> String {
    v.iter()
        .map(|x| format!("{x:.4}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn lookup_returns_the_row() {
    let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
    assert_eq!(
        (model.rows(), model.dims(), model.context_length()),
        (6, 3, 16)
    );
    assert_eq!(
        four_decimals(model.lookup(5).unwrap().view()),
        "-2.8400 -0.7849 -1.4096"
    );
    assert_eq!(model.lookup(6), None);
}

#[test]
fn the_same_id_gives_the_same_vector_at_any_position() {
    let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
    let tokens = model.tokenize("fox bites the fox").unwrap();
    let lookups = model.embed(&tokens, PositionScheme::None);
    assert_eq!(lookups[0].token_vector, lookups[3].token_vector);
    assert_eq!(lookups[0].input_vector, lookups[3].input_vector);
    assert_eq!(
        four_decimals(lookups[3].token_vector.as_ref().unwrap().view()),
        "1.2753 -0.2010 -0.1606"
    );
}

#[test]
fn positions_pull_the_copies_apart() {
    let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
    let tokens = model.tokenize("fox bites the fox").unwrap();
    for scheme in [PositionScheme::Learned, PositionScheme::Sinusoidal] {
        let lookups = model.embed(&tokens, scheme);
        assert_eq!(lookups[0].token_vector, lookups[3].token_vector);
        let first = lookups[0].input_vector.as_ref().unwrap();
        let second = lookups[3].input_vector.as_ref().unwrap();
        assert!(
            euclidean_distance(first.view(), second.view()) > 0.1,
            "{scheme}"
        );
        let expected =
            lookups[3].token_vector.as_ref().unwrap() + &lookups[3].position.vector().unwrap();
        assert_eq!(second, &expected);
    }
}

#[test]
fn learned_position_table_is_the_next_layer_drawn() {
    let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
    // Row 0 of manual_seed(123); Embedding(6,3); Embedding(16,3), from the reference file.
    assert_eq!(
        model
            .position_table()
            .unwrap()
            .row(0)
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect::<Vec<_>>(),
        [3_221_786_473, 1_065_792_425, 3_200_706_369]
    );
}

#[test]
fn positions_past_the_learned_table_are_flagged() {
    let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
    let text = ["the"; 17].join(" ");
    let lookups = model.embed(&model.tokenize(&text).unwrap(), PositionScheme::Learned);
    assert_eq!(
        lookups[16].position.warning().as_deref(),
        Some("position 16 is beyond the context length 16")
    );
    assert_eq!(lookups[16].input_vector, None);
    assert!(lookups[15].input_vector.is_some());
}

#[test]
fn words_without_a_row_have_no_vectors() {
    let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
    let lookups = model.embed(&model.tokenize("the cat").unwrap(), PositionScheme::Learned);
    assert_eq!(lookups[1].token.id, None);
    assert_eq!(lookups[1].token_vector, None);
    assert_eq!(lookups[1].position, PositionVector::Absent);
    assert_eq!(lookups[1].input_vector, None);
}

#[test]
fn shaped_tables_take_ids_only() {
    let model = EmbeddingModel::shaped(6, 3, 16, DEFAULT_SEED).unwrap();
    assert_eq!(
        model.token_table(),
        EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED).token_table()
    );
    assert!(model.tokenize("fox").is_err());
    let tokens = model.tokens_from_ids(&[3, 1, 4]).unwrap();
    assert_eq!(tokens[2].text, "#4");
    let error = model.tokens_from_ids(&[6]).unwrap_err().to_string();
    assert!(error.contains("id 6 has no row"), "{error}");
    assert!(EmbeddingModel::shaped(0, 3, 16, 1).is_err());
}

#[test]
fn shapes_beyond_the_limit_are_refused_without_overflow() {
    for (rows, dims, context_length) in [
        (100_000_000, 100_000_000, 16),
        (4_294_967_296, 4_294_967_297, 16),
        (usize::MAX, usize::MAX, usize::MAX),
        (6, 3, 1 << 40),
        (MAX_GENERATED_VALUES, 1, 1),
    ] {
        let error = EmbeddingModel::shaped(rows, dims, context_length, 1)
            .expect_err("too large")
            .to_string();
        assert!(
            error.contains("at most 268435456"),
            "{rows}x{dims}, {context_length}: {error}"
        );
    }
    let error = EmbeddingModel::shaped(100_000_000, 100_000_000, 16, 1)
        .expect_err("too large")
        .to_string();
    assert!(error.contains("(40 PB)"), "{error}");
    // Exactly at the limit is allowed (checked without making it: 1 GiB).
    check_generated_size(MAX_GENERATED_VALUES - 16, 1, 16).expect("at the limit");
}

#[test]
fn built_in_tables_are_generated_and_their_block_sums_token_and_position() {
    let model = EmbeddingModel::builtin(VocabKind::Seed, DEFAULT_SEED);
    assert_eq!(model.family(), ModelFamily::Generated);
    assert_eq!(model.block(), &EmbeddingBlock::Sum);
    assert!(model.detection().is_empty() && model.warnings().is_empty());
    assert_eq!((model.source(), model.position_offset()), (None, 0));
    // The model's own block uses its learned rows whatever scheme is on screen.
    let lookups = model.embed(&model.tokenize("fox bites").unwrap(), PositionScheme::None);
    let expected = lookups[1].token_vector.as_ref().unwrap()
        + &model.position_table().unwrap().row(1).unwrap();
    assert_eq!(lookups[1].model_embedding.as_ref(), Some(&expected));
    assert_eq!(model.model_embedding(&lookups[1]), Some(expected));
    assert_eq!(model.non_finite_warning(0), None);
}

#[test]
fn generated_tables_are_random_and_say_their_seed() {
    let seeded = EmbeddingModel::builtin(VocabKind::Words, 7);
    assert_eq!(seeded.table_kind(), TableKind::Random { seed: 7 });
    assert!(!seeded.is_trained());
    assert!(!EmbeddingModel::shaped(2, 2, 2, 1).unwrap().is_trained());
    let table = Table::from(ndarray::Array2::<f32>::zeros((2, 2)));
    let from_file = EmbeddingModel::new("file", None, table, None);
    assert_eq!(from_file.table_kind(), TableKind::Trained);
}

#[test]
fn the_seed_changes_every_table() {
    let a = EmbeddingModel::builtin(VocabKind::Words, 1);
    let b = EmbeddingModel::builtin(VocabKind::Words, 2);
    assert_ne!(a.token_table(), b.token_table());
    assert_eq!(a.dims(), 8);
    assert_eq!(a.context_length(), 64);
}
