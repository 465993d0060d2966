//! The values a GGUF file's metadata holds, and how to show them briefly.
//!
//! An array of numbers or strings is left where it is in the file ([`PackedArray`]) and read an
//! item at a time: a vocabulary's 150,000 tokens, merges and scores would otherwise be 450,000
//! values made when the file is opened, for a model that may only be asked for its rows.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use super::walk::{StringIndex, next_string, walk_strings};
use crate::core::tables::table::Bytes;

/// One metadata value: a number, a flag, a string, or an array of values.
#[derive(Clone, Debug)]
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
    /// `ARRAY` of numbers or strings as the file holds them, read an item at a time.
    Packed(PackedArray),
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

    /// The items of an array, read or packed.
    #[must_use]
    pub fn items(&self) -> Option<Items<'_>> {
        match self {
            Self::Array(items) => Some(Items::Read(items)),
            Self::Packed(packed) => Some(Items::Packed(packed)),
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
            Self::Array(_) | Self::Packed(_) => "array",
        }
    }
}

impl PartialEq for MetadataValue {
    /// The same value, however it is held: an array read is equal to the same items packed.
    fn eq(&self, other: &Self) -> bool {
        match (self.items(), other.items()) {
            (Some(left), Some(right)) => left.len() == right.len() && left.iter().eq(right.iter()),
            (None, None) => match (self, other) {
                (Self::U8(a), Self::U8(b)) => a == b,
                (Self::I8(a), Self::I8(b)) => a == b,
                (Self::U16(a), Self::U16(b)) => a == b,
                (Self::I16(a), Self::I16(b)) => a == b,
                (Self::U32(a), Self::U32(b)) => a == b,
                (Self::I32(a), Self::I32(b)) => a == b,
                (Self::U64(a), Self::U64(b)) => a == b,
                (Self::I64(a), Self::I64(b)) => a == b,
                (Self::F32(a), Self::F32(b)) => a == b,
                (Self::F64(a), Self::F64(b)) => a == b,
                (Self::Bool(a), Self::Bool(b)) => a == b,
                (Self::String(a), Self::String(b)) => a == b,
                _ => false,
            },
            _ => false,
        }
    }
}

/// The type of a packed array's items: a number of a fixed width, or a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemType {
    /// `UINT8`.
    U8,
    /// `INT8`.
    I8,
    /// `UINT16`.
    U16,
    /// `INT16`.
    I16,
    /// `UINT32`.
    U32,
    /// `INT32`.
    I32,
    /// `FLOAT32`.
    F32,
    /// `UINT64`.
    U64,
    /// `INT64`.
    I64,
    /// `FLOAT64`.
    F64,
    /// `STRING`: a u64 length, then that many bytes of UTF-8.
    String,
}

impl ItemType {
    /// The type a GGUF value type code names, if its items can be left packed (numbers and
    /// strings; flags are checked as they are read, arrays of arrays are read whole).
    #[must_use]
    pub fn from_code(code: u32) -> Option<Self> {
        Some(match code {
            0 => Self::U8,
            1 => Self::I8,
            2 => Self::U16,
            3 => Self::I16,
            4 => Self::U32,
            5 => Self::I32,
            6 => Self::F32,
            8 => Self::String,
            10 => Self::U64,
            11 => Self::I64,
            12 => Self::F64,
            _ => return None,
        })
    }

    /// Its GGUF value type code.
    #[must_use]
    pub fn code(self) -> u32 {
        match self {
            Self::U8 => 0,
            Self::I8 => 1,
            Self::U16 => 2,
            Self::I16 => 3,
            Self::U32 => 4,
            Self::I32 => 5,
            Self::F32 => 6,
            Self::String => 8,
            Self::U64 => 10,
            Self::I64 => 11,
            Self::F64 => 12,
        }
    }

    /// The bytes one item takes, for a number.
    #[must_use]
    pub fn width(self) -> Option<usize> {
        match self {
            Self::U8 | Self::I8 => Some(1),
            Self::U16 | Self::I16 => Some(2),
            Self::U32 | Self::I32 | Self::F32 => Some(4),
            Self::U64 | Self::I64 | Self::F64 => Some(8),
            Self::String => None,
        }
    }
}

/// An array of numbers or strings left in the file's bytes, whose items it has walked past
/// once (each string's length checked) to know where it ends.
#[derive(Clone)]
pub struct PackedArray {
    bytes: Arc<dyn Bytes>,
    item: ItemType,
    count: usize,
    start: usize,
    end: usize,
    /// Where every 64th string starts (its length field), for a string array.
    index: Arc<StringIndex>,
}

impl fmt::Debug for PackedArray {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PackedArray")
            .field("item", &self.item)
            .field("count", &self.count)
            .field("start", &self.start)
            .finish_non_exhaustive()
    }
}

impl PackedArray {
    /// The `count` items of type `item` from byte `start` of `bytes`, walked past: the numbers
    /// measured, each string's length read.
    ///
    /// # Errors
    /// Where the items run past the end of the bytes: the byte the first item that does
    /// starts at.
    pub fn walk(
        bytes: Arc<dyn Bytes>,
        item: ItemType,
        count: usize,
        start: usize,
    ) -> Result<Self, usize> {
        let all = bytes.bytes();
        let (end, index) = if let Some(width) = item.width() {
            let end = count
                .checked_mul(width)
                .and_then(|len| start.checked_add(len))
                .filter(|&end| end <= all.len())
                .ok_or(start)?;
            (end, StringIndex::default())
        } else {
            walk_strings(all, count, start)?
        };
        Ok(Self {
            bytes,
            item,
            count,
            start,
            end,
            index: Arc::new(index),
        })
    }

    /// The type of its items.
    #[must_use]
    pub fn item_type(&self) -> ItemType {
        self.item
    }

    /// How many items it holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether it holds none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Its items' bytes as the file holds them.
    #[must_use]
    pub fn raw(&self) -> &[u8] {
        &self.bytes.bytes()[self.start..self.end]
    }

    /// The bytes of the string whose length field is at `at`, and where the next one starts.
    fn string_at(&self, at: usize) -> Option<(&[u8], usize)> {
        let bytes = &self.bytes.bytes()[..self.end];
        let next = next_string(bytes, at, bytes.len())?;
        Some((&bytes[at + 8..next], next))
    }

    /// The bytes of item `index`: a number's little-endian bytes, a string's text.
    fn item_bytes(&self, index: usize) -> Option<&[u8]> {
        if index >= self.count {
            return None;
        }
        if let Some(width) = self.item.width() {
            let at = self.start + index * width;
            return self.bytes.bytes().get(at..at + width);
        }
        let (mut at, steps) = self.index.nearest(index)?;
        for _ in 0..steps {
            at = self.string_at(at)?.1;
        }
        self.string_at(at).map(|(text, _)| text)
    }

    /// Item `index` as a value.
    fn get(&self, index: usize) -> Option<MetadataValue> {
        let bytes = self.item_bytes(index)?;
        Some(decode(self.item, bytes))
    }

    /// Every string's bytes in order, read one after another.
    fn string_bytes(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let mut at = self.start;
        (0..self.count).map_while(move |_| {
            let (text, next) = self.string_at(at)?;
            at = next;
            Some(text)
        })
    }
}

/// An item's value from its bytes (a number's little-endian bytes, a string's text).
fn decode(item: ItemType, bytes: &[u8]) -> MetadataValue {
    /// The first `N` bytes (the reader has checked there are as many as the type takes).
    fn le<const N: usize>(bytes: &[u8]) -> [u8; N] {
        std::array::from_fn(|i| bytes.get(i).copied().unwrap_or(0))
    }
    match item {
        ItemType::U8 => MetadataValue::U8(le::<1>(bytes)[0]),
        ItemType::I8 => MetadataValue::I8(i8::from_le_bytes(le(bytes))),
        ItemType::U16 => MetadataValue::U16(u16::from_le_bytes(le(bytes))),
        ItemType::I16 => MetadataValue::I16(i16::from_le_bytes(le(bytes))),
        ItemType::U32 => MetadataValue::U32(u32::from_le_bytes(le(bytes))),
        ItemType::I32 => MetadataValue::I32(i32::from_le_bytes(le(bytes))),
        ItemType::F32 => MetadataValue::F32(f32::from_le_bytes(le(bytes))),
        ItemType::U64 => MetadataValue::U64(u64::from_le_bytes(le(bytes))),
        ItemType::I64 => MetadataValue::I64(i64::from_le_bytes(le(bytes))),
        ItemType::F64 => MetadataValue::F64(f64::from_le_bytes(le(bytes))),
        ItemType::String => MetadataValue::String(String::from_utf8_lossy(bytes).into_owned()),
    }
}

/// The items of an array, read into values or packed in the file, read alike.
#[derive(Clone, Copy, Debug)]
pub enum Items<'a> {
    /// Values already read.
    Read(&'a [MetadataValue]),
    /// Items left in the file.
    Packed(&'a PackedArray),
}

impl<'a> Items<'a> {
    /// How many items there are.
    #[must_use]
    pub fn len(self) -> usize {
        match self {
            Self::Read(items) => items.len(),
            Self::Packed(packed) => packed.len(),
        }
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// Item `index`, as a value.
    #[must_use]
    pub fn get(self, index: usize) -> Option<MetadataValue> {
        match self {
            Self::Read(items) => items.get(index).cloned(),
            Self::Packed(packed) => packed.get(index),
        }
    }

    /// Item `index` as a number, whatever integer type holds it.
    #[must_use]
    pub fn i64(self, index: usize) -> Option<i64> {
        self.get(index).as_ref().and_then(MetadataValue::as_i64)
    }

    /// Item `index` as text, invalid UTF-8 read as U+FFFD; `None` when it is not a string.
    #[must_use]
    pub fn text(self, index: usize) -> Option<Cow<'a, str>> {
        match self {
            Self::Read(items) => items.get(index)?.as_str().map(Cow::Borrowed),
            Self::Packed(packed) if packed.item == ItemType::String => {
                packed.item_bytes(index).map(String::from_utf8_lossy)
            }
            Self::Packed(_) => None,
        }
    }

    /// Every item, as values.
    pub fn iter(self) -> impl Iterator<Item = MetadataValue> + 'a {
        (0..self.len()).map_while(move |index| self.get(index))
    }

    /// Every item as text exactly as the file holds it, in order; `None` when the items are not
    /// strings, or one is not UTF-8 (named by its index).
    ///
    /// # Errors
    /// The index of the first item that is not UTF-8 text.
    #[must_use]
    pub fn strs(self) -> Option<Result<Vec<&'a str>, usize>> {
        match self {
            Self::Read(items) => Some(
                items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| item.as_str().ok_or(index))
                    .collect(),
            ),
            Self::Packed(packed) if packed.item == ItemType::String => Some(
                packed
                    .string_bytes()
                    .enumerate()
                    .map(|(index, bytes)| std::str::from_utf8(bytes).map_err(|_| index))
                    .collect(),
            ),
            Self::Packed(_) => None,
        }
    }

    /// Every item as an f32, when they are f32s.
    #[must_use]
    pub fn f32s(self) -> Option<Vec<f32>> {
        self.iter()
            .map(|item| match item {
                MetadataValue::F32(x) => Some(x),
                _ => None,
            })
            .collect()
    }

    /// Every item as a whole number, when they are integers.
    #[must_use]
    pub fn i64s(self) -> Option<Vec<i64>> {
        self.iter().map(|item| item.as_i64()).collect()
    }

    /// The name of the items' type, for a listing.
    fn type_name(self) -> &'static str {
        match self {
            Self::Read(items) => items.first().map_or("value", MetadataValue::type_name),
            Self::Packed(packed) => decode(packed.item, &[0; 8]).type_name(),
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
            Self::Array(_) | Self::Packed(_) => {
                let Some(items) = self.items() else {
                    return Ok(());
                };
                let kind = items.type_name();
                if items.len() <= SHOWN_ITEMS + 1 {
                    let all: Vec<String> = items.iter().map(|item| item.to_string()).collect();
                    return write!(f, "[{}]", all.join(", "));
                }
                let first: Vec<String> = items
                    .iter()
                    .take(SHOWN_ITEMS)
                    .map(|item| item.to_string())
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
