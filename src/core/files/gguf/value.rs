//! The values a GGUF file's metadata holds, and how to show them briefly.

use std::fmt;

/// One metadata value: a number, a flag, a string, or an array of values.
#[derive(Clone, Debug, PartialEq)]
pub enum MetadataValue {
    /// `UINT8`.
    U8(u8),
    /// `INT8`.
    I8(i8),
    /// `UINT16`.
    U16(u16),
    /// `INT16`.
    I16(i16),
    /// `UINT32`.
    U32(u32),
    /// `INT32`.
    I32(i32),
    /// `UINT64`.
    U64(u64),
    /// `INT64`.
    I64(i64),
    /// `FLOAT32`.
    F32(f32),
    /// `FLOAT64`.
    F64(f64),
    /// `BOOL`.
    Bool(bool),
    /// `STRING` (UTF-8; invalid bytes read as U+FFFD).
    String(String),
    /// `ARRAY`: values of one type.
    Array(Vec<MetadataValue>),
}

/// Array items shown before the rest are counted instead.
const SHOWN_ITEMS: usize = 4;
/// Characters of a string shown before the rest is cut.
const SHOWN_CHARS: usize = 60;

impl MetadataValue {
    /// A whole number that is not negative, whatever integer type holds it.
    #[must_use]
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Self::U8(n) => Some(n.into()),
            Self::U16(n) => Some(n.into()),
            Self::U32(n) => Some(n.into()),
            Self::U64(n) => Some(n),
            Self::I8(n) => u64::try_from(n).ok(),
            Self::I16(n) => u64::try_from(n).ok(),
            Self::I32(n) => u64::try_from(n).ok(),
            Self::I64(n) => u64::try_from(n).ok(),
            _ => None,
        }
    }

    /// A whole number, whatever integer type holds it.
    #[must_use]
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Self::I8(n) => Some(n.into()),
            Self::I16(n) => Some(n.into()),
            Self::I32(n) => Some(n.into()),
            Self::I64(n) => Some(n),
            _ => self.as_u64().and_then(|n| i64::try_from(n).ok()),
        }
    }

    /// A number of any type, as f64.
    #[must_use]
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Self::F32(x) => Some(x.into()),
            Self::F64(x) => Some(x),
            #[expect(
                clippy::cast_precision_loss,
                reason = "metadata integers given where a float is read are small"
            )]
            _ => self.as_i64().map(|n| n as f64),
        }
    }

    /// The text of a string.
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::String(text) => Some(text),
            _ => None,
        }
    }

    /// A flag.
    #[must_use]
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Self::Bool(flag) => Some(flag),
            _ => None,
        }
    }

    /// The items of an array.
    #[must_use]
    pub fn as_array(&self) -> Option<&[MetadataValue]> {
        match self {
            Self::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The file's name for the value's type (`u32`, `string`, `array`).
    #[must_use]
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::U8(_) => "u8",
            Self::I8(_) => "i8",
            Self::U16(_) => "u16",
            Self::I16(_) => "i16",
            Self::U32(_) => "u32",
            Self::I32(_) => "i32",
            Self::U64(_) => "u64",
            Self::I64(_) => "i64",
            Self::F32(_) => "f32",
            Self::F64(_) => "f64",
            Self::Bool(_) => "bool",
            Self::String(_) => "string",
            Self::Array(_) => "array",
        }
    }
}

impl fmt::Display for MetadataValue {
    /// Numbers and flags as they are; strings quoted with escapes and cut after 60
    /// characters; arrays by their first few items and a count (`[“a”, “b”, … 49,152 strings]`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::U8(n) => write!(f, "{n}"),
            Self::I8(n) => write!(f, "{n}"),
            Self::U16(n) => write!(f, "{n}"),
            Self::I16(n) => write!(f, "{n}"),
            Self::U32(n) => write!(f, "{n}"),
            Self::I32(n) => write!(f, "{n}"),
            Self::U64(n) => write!(f, "{n}"),
            Self::I64(n) => write!(f, "{n}"),
            Self::F32(x) => write!(f, "{x}"),
            Self::F64(x) => write!(f, "{x}"),
            Self::Bool(flag) => write!(f, "{flag}"),
            Self::String(text) => {
                let shown: String = text.chars().take(SHOWN_CHARS).collect();
                let cut = text.chars().count() > SHOWN_CHARS;
                write!(f, "{shown:?}")?;
                if cut {
                    write!(f, "… ({} characters)", text.chars().count())?;
                }
                Ok(())
            }
            Self::Array(items) => {
                let kind = items.first().map_or("value", MetadataValue::type_name);
                if items.len() <= SHOWN_ITEMS + 1 {
                    let all: Vec<String> = items.iter().map(ToString::to_string).collect();
                    return write!(f, "[{}]", all.join(", "));
                }
                let first: Vec<String> = items[..SHOWN_ITEMS]
                    .iter()
                    .map(ToString::to_string)
                    .collect();
                write!(f, "[{}, … {} {kind}s]", first.join(", "), items.len())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_arrays_and_strings_are_abbreviated() {
        let tokens = MetadataValue::Array(
            (0..49_152)
                .map(|i| MetadataValue::String(format!("t{i}")))
                .collect(),
        );
        assert_eq!(
            tokens.to_string(),
            r#"["t0", "t1", "t2", "t3", … 49152 strings]"#
        );
        let short = MetadataValue::Array(vec![MetadataValue::U32(1), MetadataValue::U32(2)]);
        assert_eq!(short.to_string(), "[1, 2]");
        let template = MetadataValue::String("x\n".repeat(100));
        let shown = template.to_string();
        assert!(shown.ends_with("… (200 characters)"), "{shown}");
        assert!(shown.starts_with(r#""x\nx\n"#), "{shown}");
    }

    #[test]
    fn integers_read_whatever_their_width() {
        assert_eq!(MetadataValue::I32(7).as_u64(), Some(7));
        assert_eq!(MetadataValue::I32(-1).as_u64(), None);
        assert_eq!(MetadataValue::U8(3).as_f64(), Some(3.0));
        assert_eq!(MetadataValue::String("a".into()).as_u64(), None);
    }
}
