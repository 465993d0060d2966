//! Benchmarks of the core: the PyTorch-compatible generator and lookups.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use embedlens::core::tables::positional::PositionScheme;
use embedlens::core::tables::torch_init::TorchGenerator;
use embedlens::core::tables::weights::EmbeddingModel;
use embedlens::core::text::vocabulary::VocabKind;
use std::hint::black_box;

fn generator(c: &mut Criterion) {
    c.bench_function("torch_init: nn.Embedding(2037, 8)", |b| {
        b.iter(|| TorchGenerator::manual_seed(black_box(123)).embedding(2037, 8));
    });
    // GPT-2's table at the book's width: PyTorch's own call takes about 62 ms on this machine.
    let mut group = c.benchmark_group("torch_init throughput");
    group
        .sample_size(20)
        .throughput(Throughput::Elements(50_257 * 256));
    group.bench_function("nn.Embedding(50257, 256)", |b| {
        b.iter(|| TorchGenerator::manual_seed(black_box(123)).embedding(50_257, 256));
    });
    group.finish();
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
