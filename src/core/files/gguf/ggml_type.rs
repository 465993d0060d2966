//! ggml's tensor types, as a GGUF file numbers them: names, block sizes, and which ones
//! embedlens can read.

use std::fmt;

use crate::core::tables::table::Dtype;

/// Every type ggml has numbered: (id, name, numbers per block, bytes per block).
const TYPES: [(u32, &str, usize, usize); 34] = [
    (0, "F32", 1, 4),
    (1, "F16", 1, 2),
    (2, "Q4_0", 32, 18),
    (3, "Q4_1", 32, 20),
    (6, "Q5_0", 32, 22),
    (7, "Q5_1", 32, 24),
    (8, "Q8_0", 32, 34),
    (9, "Q8_1", 32, 40),
    (10, "Q2_K", 256, 84),
    (11, "Q3_K", 256, 110),
    (12, "Q4_K", 256, 144),
    (13, "Q5_K", 256, 176),
    (14, "Q6_K", 256, 210),
    (15, "Q8_K", 256, 292),
    (16, "IQ2_XXS", 256, 66),
    (17, "IQ2_XS", 256, 74),
    (18, "IQ3_XXS", 256, 98),
    (19, "IQ1_S", 256, 50),
    (20, "IQ4_NL", 32, 18),
    (21, "IQ3_S", 256, 110),
    (22, "IQ2_S", 256, 82),
    (23, "IQ4_XS", 256, 136),
    (24, "I8", 1, 1),
    (25, "I16", 1, 2),
    (26, "I32", 1, 4),
    (27, "I64", 1, 8),
    (28, "F64", 1, 8),
    (29, "IQ1_M", 256, 56),
    (30, "BF16", 1, 2),
    (34, "TQ1_0", 256, 54),
    (35, "TQ2_0", 256, 66),
    (39, "MXFP4", 32, 17),
    (40, "NVFP4", 64, 36),
    (41, "Q1_0", 128, 18),
];

/// The types embedlens dequantizes, with the table dtype each becomes.
const READABLE: [(u32, Dtype); 13] = [
    (0, Dtype::F32),
    (1, Dtype::F16),
    (30, Dtype::BF16),
    (8, Dtype::Q8_0),
    (2, Dtype::Q4_0),
    (3, Dtype::Q4_1),
    (6, Dtype::Q5_0),
    (7, Dtype::Q5_1),
    (10, Dtype::Q2K),
    (11, Dtype::Q3K),
    (12, Dtype::Q4K),
    (13, Dtype::Q5K),
    (14, Dtype::Q6K),
];

/// A tensor's type as the file numbers it, known to ggml or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GgmlType(pub u32);

impl GgmlType {
    /// ggml's name for it (`Q4_K`), or `None` for a number ggml has not given out.
    #[must_use]
    pub fn name(self) -> Option<&'static str> {
        self.entry().map(|&(_, name, _, _)| name)
    }

    /// (numbers per block, bytes per block), for a type ggml knows.
    #[must_use]
    pub fn block(self) -> Option<(usize, usize)> {
        self.entry().map(|&(_, _, len, bytes)| (len, bytes))
    }

    /// The table dtype embedlens reads it as, or `None` when it cannot dequantize it.
    #[must_use]
    pub fn dtype(self) -> Option<Dtype> {
        READABLE
            .iter()
            .find(|(id, _)| *id == self.0)
            .map(|&(_, dtype)| dtype)
    }

    /// The names of the types embedlens reads, for messages.
    #[must_use]
    pub fn readable_names() -> String {
        READABLE
            .iter()
            .filter_map(|&(id, _)| Self(id).name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn entry(self) -> Option<&'static (u32, &'static str, usize, usize)> {
        TYPES.iter().find(|(id, ..)| *id == self.0)
    }
}

impl fmt::Display for GgmlType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name),
            None => write!(f, "type {}", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readable_types_agree_with_the_table_dtypes() {
        for (id, dtype) in READABLE {
            let (len, bytes) = GgmlType(id).block().unwrap();
            assert_eq!(
                (len, bytes),
                (dtype.block_len(), dtype.block_bytes()),
                "{dtype}"
            );
            assert_eq!(
                GgmlType(id).name().unwrap().to_lowercase(),
                dtype.to_string()
            );
        }
    }

    #[test]
    fn unknown_numbers_are_named_by_number() {
        assert_eq!(GgmlType(4).to_string(), "type 4");
        assert_eq!(GgmlType(16).to_string(), "IQ2_XXS");
        assert_eq!(GgmlType(16).dtype(), None);
    }
}
