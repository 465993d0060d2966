//! Benchmarks of the printers: numbers a second that `matrix` writes in each format.
//!
//! The table is made once, outside the timing, so only formatting and writing are measured;
//! the output goes to `io::sink()`, as `> /dev/null` would take it. Criterion reports the
//! rate in numbers a second (its "elements").

use std::hint::black_box;
use std::io;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use embedlens::cli::Format;
use embedlens::core::tables::weights::EmbeddingModel;
use embedlens::print::write_matrix;

/// GPT-2's vocabulary at 64 numbers a row: 3.2 million numbers, each row named by its token.
fn printers(c: &mut Criterion) {
    let model = EmbeddingModel::gpt2(123, 64);
    model.wait_until_ready();
    let numbers = model.rows() * model.dims();
    let mut group = c.benchmark_group("matrix printer (gpt2, 50257x64)");
    group.sample_size(10).throughput(Throughput::Elements(
        u64::try_from(numbers).unwrap_or(u64::MAX),
    ));
    for (name, format) in [("csv", Format::Csv), ("json", Format::Json)] {
        group.bench_function(name, |b| {
            b.iter(|| write_matrix(black_box(&model), format, &mut io::sink()));
        });
    }
    group.finish();
}

criterion_group!(benches, printers);
criterion_main!(benches);
