//! What the benchmarks share: the one definition of "a read of the table" that the
//! nearest-rows scan is measured against, in `layer0` and in `scale` alike.

/// Threads the bounds are measured on: this machine's two cores.
pub const THREADS: usize = 2;

/// The bytes summed eight at a time by [`THREADS`] threads, a share each: the mapped read.
///
/// Given a table's mapped bytes that an earlier pass has touched (criterion's warm-up), this is
/// the fastest this machine reads them: the bound the nearest-rows scan, which shares its rows
/// among the cores in the same way, is measured against.
pub fn sum_bytes(bytes: &[u8]) -> u64 {
    let share = bytes.len().div_ceil(THREADS).next_multiple_of(64);
    std::thread::scope(|scope| {
        let sums: Vec<_> = bytes
            .chunks(share)
            .map(|part| {
                scope.spawn(move || {
                    let mut sums = [0u64; 8];
                    for line in part.chunks_exact(64) {
                        for (sum, word) in sums.iter_mut().zip(line.chunks_exact(8)) {
                            *sum = sum.wrapping_add(u64::from_le_bytes(
                                word.try_into().expect("eight bytes"),
                            ));
                        }
                    }
                    sums.into_iter().fold(0, u64::wrapping_add)
                })
            })
            .collect();
        sums.into_iter()
            .map(|sum| sum.join().expect("no panic"))
            .fold(0, u64::wrapping_add)
    })
}
