//! Benchmarks of the core: the PyTorch-compatible generator and lookups.

use criterion::{Criterion, criterion_group, criterion_main};
use embedlens::core::positional::PositionScheme;
use embedlens::core::tokenizer::VocabKind;
use embedlens::core::torch_init::TorchGenerator;
use embedlens::core::weights::EmbeddingModel;
use std::hint::black_box;

fn generator(c: &mut Criterion) {
    c.bench_function("torch_init: nn.Embedding(2037, 8)", |b| {
        b.iter(|| TorchGenerator::manual_seed(black_box(123)).embedding(2037, 8));
    });
}

fn lookups(c: &mut Criterion) {
    let model = EmbeddingModel::builtin(VocabKind::Words, 123);
    let text = "the quick brown fox jumps over the lazy dog . ".repeat(100);
    c.bench_function("tokenize + embed 1,000 tokens (words, sinusoidal)", |b| {
        b.iter(|| {
            let tokens = model
                .tokenize(black_box(&text))
                .expect("words has a vocabulary");
            model.embed(&tokens, PositionScheme::Sinusoidal)
        });
    });
}

criterion_group!(benches, generator, lookups);
criterion_main!(benches);
