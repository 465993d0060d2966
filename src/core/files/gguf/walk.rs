//! Walking a GGUF array of strings to find where it ends, remembering where every 64th string
//! starts so that one can later be read by its index.
//!
//! A string is a u64 length and that many bytes, so each start is known only from the one
//! before: a walk is a chain of dependent reads, a few processor cycles a string however it is
//! written, and a 151,936-token vocabulary's tokens and merges are 300,000 strings between the
//! metadata's start and the tensor list. So a piece of the array is walked as several chains
//! side by side, which the processor runs at once: every chain but the first starts at a
//! guess, the first length field after an evenly spaced byte (a length under 256 is a byte and
//! seven zero bytes, which token text does not hold), and walks until it reaches the next
//! chain's start. Nothing is believed until it is checked, in order: a chain counts only when
//! the walk before it, itself checked, ended exactly on that chain's start. Where one did not,
//! the strings are walked one after another from where the checked walk ended, up to the next
//! chain's start, which is checked in its turn. So the result (where the array ends, where each
//! string starts, the error for a damaged array) is the one a walk string by string gives; a
//! bad guess costs only time.
//!
//! The strings are walked where they lie, in the mapped file, a piece of [`PIECE`] bytes at a
//! time. Copying them out first (`pread` into a small buffer, as this walk once did) costs
//! more than mapping their pages: measured on the 2-core EPYC VM with the page cache in 4 KiB
//! pieces, 0.93-0.96 ms against 1.54-1.61 ms to open a GGUF file with a 151,936-token
//! vocabulary (8.9 MB of metadata; medians of the two interleaved, under load). Pieces of
//! 64 KiB also paid the chains' last, wasted steps 136 times: walking the same bytes in
//! memory took 0.48 ms in 64 KiB pieces, 0.25-0.29 ms in pieces of 1 MiB.

/// Every this-many-th string's start is remembered (within each run of strings walked as one).
const STRIDE: usize = 64;
/// The bytes walked as one set of chains: about 35,000 strings of a real vocabulary, so that
/// the chains' last steps (taken [`STRIDE`] at a time past their stops) are a few hundred of
/// them, while the chains (128 KiB apart) stay within the array they walk.
const PIECE: usize = 1 << 20;
/// Strings left in a piece to be worth walking as several chains.
const SIDE_BY_SIDE: usize = 1 << 9;
/// How many chains walk at once: enough to keep the processor's loads busy.
const CHAINS: usize = 8;
/// How far past an evenly spaced byte a chain's start is looked for.
const SEARCH: usize = 1024;

/// Strings walked as one chain: the index of the first, and where every [`STRIDE`]-th starts.
#[derive(Debug, PartialEq, Eq)]
struct Run {
    first: usize,
    marks: Vec<usize>,
}

/// Where the strings of an array start: every [`STRIDE`]-th string of each run.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct StringIndex {
    runs: Vec<Run>,
}

impl StringIndex {
    /// The start of the nearest string at or before `index` whose start is remembered, and how
    /// many strings lie between it and string `index` (an `index` the array holds).
    pub fn nearest(&self, index: usize) -> Option<(usize, usize)> {
        let run = self.runs.partition_point(|run| run.first <= index);
        let run = &self.runs[run.checked_sub(1)?];
        let local = index - run.first;
        Some((*run.marks.get(local / STRIDE)?, local % STRIDE))
    }
}

/// Where the string whose length field is at `at` ends, if its field is within `bytes` and it
/// ends by `limit`.
pub fn next_string(bytes: &[u8], at: usize, limit: usize) -> Option<usize> {
    let field: [u8; 8] = bytes.get(at..at.checked_add(8)?)?.try_into().ok()?;
    let len = usize::try_from(u64::from_le_bytes(field)).ok()?;
    (at + 8).checked_add(len).filter(|&next| next <= limit)
}

/// Where a chain is when the string it is at runs past the end (or it was there already).
const BROKEN: usize = usize::MAX;

/// Where the string whose length field is at `at` ends, or [`BROKEN`].
#[inline]
fn step(bytes: &[u8], at: usize, limit: usize) -> usize {
    let Some(field) = bytes.get(at..at.wrapping_add(8)) else {
        return BROKEN;
    };
    let len = field.try_into().map_or(BROKEN, |field| {
        usize::try_from(u64::from_le_bytes(field)).unwrap_or(BROKEN)
    });
    let next = (at + 8).saturating_add(len);
    if next <= limit { next } else { BROKEN }
}

/// Walks `count` strings from byte `start` of `bytes`: where the last ends, and where they
/// start.
///
/// # Errors
/// Where the first string that runs past the end of the bytes starts.
pub fn walk_strings(
    bytes: &[u8],
    count: usize,
    start: usize,
) -> Result<(usize, StringIndex), usize> {
    walk_pieces(bytes, count, start, PIECE)
}

/// [`walk_strings`], `piece_len` bytes at a time.
fn walk_pieces(
    bytes: &[u8],
    count: usize,
    start: usize,
    piece_len: usize,
) -> Result<(usize, StringIndex), usize> {
    let total = bytes.len();
    let mut runs = Vec::new();
    let (mut base, mut done) = (start, 0);
    while done < count {
        let piece = Piece {
            bytes: bytes
                .get(base..total.min(base.saturating_add(piece_len)))
                .unwrap_or_default(),
            base,
            limit: total.saturating_sub(base),
        };
        match piece.walk(done, count, &mut runs).map_err(|at| base + at)? {
            Checked::Ended(end) => return Ok((base + end, StringIndex { runs })),
            Checked::Reached { at: 0, .. } => return Err(base),
            Checked::Reached { at, done: walked } => (base, done) = (base + at, walked),
        }
    }
    Ok((base, StringIndex { runs }))
}

/// A piece of the bytes from byte `base` on, walked with positions counted from `base`.
struct Piece<'a> {
    bytes: &'a [u8],
    base: usize,
    /// Where strings may end (the end of the source).
    limit: usize,
}

/// How far a walk went.
enum Checked {
    /// The array ends here.
    Ended(usize),
    /// Its strings are walked up to here (string `done` starts here), the rest is not read yet.
    Reached { at: usize, done: usize },
}

impl Piece<'_> {
    /// Walks the strings from the piece's start, string `done` of `count`, up to the end of the
    /// array or the last whose length field the piece holds; adds the runs.
    fn walk(&self, done: usize, count: usize, runs: &mut Vec<Run>) -> Result<Checked, usize> {
        if self.bytes.len() < 8 {
            // Not even a length field is left.
            return Err(0);
        }
        // A length field at or past here is not all in the piece.
        let fields_end = self.bytes.len() - 7;
        let chains = if count - done >= SIDE_BY_SIDE {
            self.guess(fields_end)
        } else {
            Chains {
                starts: Vec::new(),
                stops: Vec::new(),
            }
        };
        self.walk_chains(chains).check(self, done, count, runs)
    }

    /// Chains over the piece: the first starts at its start, each other at the first length
    /// field after an evenly spaced byte; each stops at the next one's start, the last at
    /// `fields_end`.
    fn guess(&self, fields_end: usize) -> Chains {
        let mut starts = vec![0];
        for chain in 1..CHAINS {
            let spaced = fields_end / CHAINS * chain;
            match length_field_after(self.bytes, spaced) {
                Some(start) if start > *starts.last().unwrap_or(&0) && start < fields_end => {
                    starts.push(start);
                }
                _ => {}
            }
        }
        let stops = starts.iter().skip(1).copied().chain([fields_end]).collect();
        Chains { starts, stops }
    }

    /// Walks the chains at once, each until it reaches its stop or meets a string that runs
    /// past the end. Every chain takes [`STRIDE`] steps at a time, whatever its stop, each
    /// start kept; the starts then say how many of those steps counted.
    fn walk_chains(
        &self,
        Chains {
            starts,
            stops: given,
        }: Chains,
    ) -> Walked {
        let chains = starts.len().min(CHAINS);
        let mut at = [BROKEN; CHAINS];
        let mut stops = [0; CHAINS];
        at[..chains].copy_from_slice(&starts[..chains]);
        stops[..chains].copy_from_slice(&given[..chains]);
        let mut ends: Vec<Option<usize>> = vec![None; chains];
        let mut counts = vec![0; chains];
        let mut marks: Vec<Vec<usize>> = (0..chains)
            .map(|chain| {
                Vec::with_capacity(stops[chain].saturating_sub(at[chain]) / 8 / STRIDE + 1)
            })
            .collect();
        let mut block = [[0; CHAINS]; STRIDE];
        while ends.iter().any(Option::is_none) {
            for steps in &mut block {
                for (kept, place) in steps.iter_mut().zip(&mut at) {
                    *kept = *place;
                    *place = step(self.bytes, *place, self.limit);
                }
            }
            for chain in 0..chains {
                if ends[chain].is_some() {
                    continue;
                }
                let first = block[0][chain];
                // The starts only grow ([`BROKEN`] is the largest): the first past the stop is
                // found by halves.
                let reached = block.partition_point(|steps| steps[chain] < stops[chain]);
                match (reached < STRIDE).then_some(reached) {
                    None if at[chain] == BROKEN => {
                        marks[chain].push(self.base + first);
                        counts[chain] += STRIDE - 1;
                        ends[chain] = Some(block[STRIDE - 1][chain]);
                    }
                    None => {
                        marks[chain].push(self.base + first);
                        counts[chain] += STRIDE;
                    }
                    Some(reached) => {
                        if reached > 0 {
                            marks[chain].push(self.base + first);
                        }
                        // A string that runs past the end stops the chain where it starts.
                        let broken = block[reached][chain] == BROKEN;
                        let walked = reached - usize::from(broken);
                        counts[chain] += walked;
                        ends[chain] = Some(block[walked][chain]);
                    }
                }
            }
        }
        Walked {
            starts: starts[..chains].to_vec(),
            ends: ends.into_iter().map(|end| end.unwrap_or(BROKEN)).collect(),
            counts,
            marks,
        }
    }

    /// Walks at most `most` strings from byte `at`, the first being string `first`, stopping at
    /// the first that starts at or past `until` or whose length field the piece does not hold;
    /// adds them as a run. Where the walk stopped and how many strings it walked.
    fn walk_run(
        &self,
        mut at: usize,
        first: usize,
        most: usize,
        until: usize,
        runs: &mut Vec<Run>,
    ) -> Result<(usize, usize), usize> {
        let mut marks = Vec::new();
        let mut walked = 0;
        while walked < most && at < until && at + 8 <= self.bytes.len() {
            if walked % STRIDE == 0 {
                marks.push(self.base + at);
            }
            at = next_string(self.bytes, at, self.limit).ok_or(at)?;
            walked += 1;
        }
        runs.push(Run { first, marks });
        Ok((at, walked))
    }
}

/// The chains' guessed starts and where each stops.
struct Chains {
    starts: Vec<usize>,
    stops: Vec<usize>,
}

/// What each chain walked, not yet checked.
struct Walked {
    starts: Vec<usize>,
    ends: Vec<usize>,
    /// How many strings each walked.
    counts: Vec<usize>,
    marks: Vec<Vec<usize>>,
}

impl Walked {
    /// Checks the chains in order from the piece's start, string `done` of `count`, and walks one
    /// string after another wherever a chain's start is not where the walk before it ended, up
    /// to the next chain's start; adds the runs.
    fn check(
        mut self,
        piece: &Piece,
        mut done: usize,
        count: usize,
        runs: &mut Vec<Run>,
    ) -> Result<Checked, usize> {
        let mut at = 0;
        let mut chain = 0;
        while done < count {
            while chain < self.starts.len() && self.starts[chain] < at {
                chain += 1;
            }
            let left = count - done;
            if self.starts.get(chain) == Some(&at) {
                let mut marks = std::mem::take(&mut self.marks[chain]);
                if self.counts[chain] >= left {
                    // The array ends within this chain: the rest of it is past the end.
                    let end = match marks.get(left / STRIDE) {
                        Some(&mark) => (0..left % STRIDE)
                            .try_fold(mark - piece.base, |at, _| {
                                next_string(piece.bytes, at, piece.limit).ok_or(at)
                            })?,
                        None => self.ends[chain],
                    };
                    marks.truncate(left.div_ceil(STRIDE));
                    runs.push(Run { first: done, marks });
                    return Ok(Checked::Ended(end));
                }
                runs.push(Run { first: done, marks });
                done += self.counts[chain];
                at = self.ends[chain];
                chain += 1;
            } else {
                let until = self.starts.get(chain).copied().unwrap_or(usize::MAX);
                let (next, walked) = piece.walk_run(at, done, left, until, runs)?;
                done += walked;
                at = next;
                if walked == 0 || (chain >= self.starts.len() && at + 8 > piece.bytes.len()) {
                    // The next length field is past the piece.
                    break;
                }
            }
        }
        Ok(if done == count {
            Checked::Ended(at)
        } else {
            Checked::Reached { at, done }
        })
    }
}

/// The first byte at or after `from` (looking [`SEARCH`] bytes on) that reads as the length
/// field of a string shorter than 256 bytes: a byte, then seven zero bytes.
fn length_field_after(bytes: &[u8], from: usize) -> Option<usize> {
    let window = bytes.get(from..)?;
    let window = &window[..window.len().min(SEARCH + 8)];
    window
        .windows(8)
        .position(|field| field[1..] == [0; 7])
        .map(|offset| from + offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The piece the tests walk at a time: small, so that their arrays span many.
    const TEST_PIECE: usize = 1 << 16;

    /// `strings` as GGUF writes them, after `before` bytes of something else.
    fn packed(before: usize, strings: &[Vec<u8>]) -> Vec<u8> {
        let mut bytes = vec![7; before];
        for text in strings {
            bytes.extend_from_slice(&(text.len() as u64).to_le_bytes());
            bytes.extend_from_slice(text);
        }
        bytes
    }

    /// Where each string starts and where the last ends, walked one string at a time.
    fn one_at_a_time(
        bytes: &[u8],
        count: usize,
        start: usize,
    ) -> Result<(usize, Vec<usize>), usize> {
        let mut at = start;
        let mut starts = Vec::new();
        for _ in 0..count {
            starts.push(at);
            at = next_string(bytes, at, bytes.len()).ok_or(at)?;
        }
        Ok((at, starts))
    }

    /// Walks `count` strings both ways and checks that every start and the end agree.
    fn agree(bytes: &[u8], count: usize, start: usize) {
        let expected = one_at_a_time(bytes, count, start);
        // Small pieces, so that strings cross from one to the next and some are longer; and
        // the pieces the open walks, which must agree with them.
        let walked = walk_pieces(bytes, count, start, TEST_PIECE);
        assert_eq!(
            walk_strings(bytes, count, start).map(|(end, _)| end),
            walked.as_ref().map(|(end, _)| *end).map_err(|&at| at)
        );
        match (expected, walked) {
            (Ok((end, starts)), Ok((walked_end, index))) => {
                assert_eq!(walked_end, end);
                for (i, &at) in starts.iter().enumerate() {
                    let (mark, steps) = index.nearest(i).expect("every string is indexed");
                    let found =
                        (0..steps).fold(mark, |at, _| next_string(bytes, at, bytes.len()).unwrap());
                    assert_eq!(found, at, "string {i}");
                }
            }
            (expected, walked) => {
                assert_eq!(walked.map(|(end, _)| end), expected.map(|(end, _)| end));
            }
        }
    }

    fn tokens(count: usize, seed: u64) -> Vec<Vec<u8>> {
        let mut state = seed;
        (0..count)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                let len = usize::try_from(state >> 60).unwrap()
                    + usize::try_from(state >> 62).unwrap() * 20;
                (0..len)
                    .map(|i| b'a' + u8::try_from(i % 26).unwrap())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn side_by_side_finds_what_one_at_a_time_finds() {
        for (count, seed) in [
            (10, 1),
            (SIDE_BY_SIDE - 1, 2),
            (SIDE_BY_SIDE, 3),
            (50_000, 4),
            (50_001, 5),
        ] {
            let strings = tokens(count, seed);
            let mut bytes = packed(13, &strings);
            // What follows the array in a file: a key, its type, a number.
            bytes.extend_from_slice(&packed(0, &[b"tokenizer.ggml.token_type".to_vec()]));
            bytes.extend_from_slice(&[5, 0, 0, 0, 1, 2, 3, 4]);
            agree(&bytes, count, 13);
            // Fewer strings than are there, and more.
            agree(&bytes, count - 1, 13);
            agree(&bytes, count + 1, 13);
        }
    }

    #[test]
    fn misleading_bytes_and_damage_give_the_same_answer() {
        let count = 40_000;
        // Strings whose text looks like length fields, empty strings and long ones.
        let mut strings = tokens(count, 9);
        for (i, text) in strings.iter_mut().enumerate() {
            match i % 97 {
                0 => *text = vec![3, 0, 0, 0, 0, 0, 0, 0, 1],
                1 => text.clear(),
                2 => *text = vec![b'x'; 300],
                // Longer than a piece.
                4 if i % 5 == 0 => *text = vec![b'y'; TEST_PIECE + 5],
                3 => *text = vec![0; 20],
                _ => {}
            }
        }
        let bytes = packed(5, &strings);
        agree(&bytes, count, 5);
        // Cut short, and a length made huge at several places.
        agree(&bytes[..bytes.len() - 3], count, 5);
        let starts = one_at_a_time(&bytes, count, 5).unwrap().1;
        for damaged in [300, 20_000, 39_999] {
            let mut broken = bytes.clone();
            broken[starts[damaged] + 6] = 1;
            agree(&broken, count, 5);
        }
        // Every length the same: guesses land on a string whatever they pick.
        let same = packed(0, &vec![b"ab".to_vec(); count]);
        agree(&same, count, 0);
    }

    mod random {
        use super::*;
        use proptest::prelude::*;

        /// Strings of 0–40 bytes, now and then one whose text reads as a length field, a long
        /// one or one longer than a piece.
        fn strings() -> impl Strategy<Value = Vec<Vec<u8>>> {
            let one = prop_oneof![
                8 => proptest::collection::vec(any::<u8>(), 0..40),
                1 => (0u8..=255).prop_map(|len| vec![len, 0, 0, 0, 0, 0, 0, 0, 9]),
                1 => Just(vec![0; 20]),
                1 => (200usize..600).prop_map(|len| vec![b'x'; len]),
            ];
            (
                proptest::collection::vec(one, 0..6_000),
                prop::bool::weighted(0.05),
            )
                .prop_map(|(mut strings, huge)| {
                    if huge && !strings.is_empty() {
                        strings[0] = vec![b'y'; TEST_PIECE + 3];
                    }
                    strings
                })
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

            #[test]
            fn any_array_walks_as_one_string_at_a_time(
                strings in strings(),
                before in 0usize..20,
                extra in 0usize..3,
                fewer in 0usize..3,
                damage in proptest::option::of((any::<prop::sample::Index>(), 0usize..8, any::<u8>())),
                cut in 0usize..12,
            ) {
                let mut bytes = packed(before, &strings);
                bytes.extend_from_slice(&[5, 0, 0, 0, 1, 2, 3, 4]);
                if let Some((which, byte, value)) = damage
                    && let Ok((_, starts)) = one_at_a_time(&bytes, strings.len(), before)
                    && !starts.is_empty()
                {
                    bytes[starts[which.index(starts.len())] + byte] = value;
                }
                bytes.truncate(bytes.len() - cut.min(bytes.len() - before));
                let count = (strings.len() + extra).saturating_sub(fewer);
                agree(&bytes, count, before);
            }
        }
    }
}
