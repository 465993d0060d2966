//! The display text of a model tokenizer's ids, known before the tokenizer is built: what
//! `--ids`, `inspect` and the explorer's first frame read, with the whole vocabulary cached
//! only when a search or a lookup by text needs it.

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::{Result, anyhow, bail};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Map, Value};
use unicode_width::UnicodeWidthStr;

use super::MAX_SPECIAL_TOKEN_BYTES;
use super::display::{DisplayVocab, byte_level_bytes, visible, visible_bytes};

/// The most ids a `tokenizer.json` may hand out: real vocabularies stop near a million, and
/// every id up to the highest costs two cached strings, used or not (a 70-byte file naming id
/// 49,999,999 took over 2 GB when this was 50 million).
pub const MAX_IDS: usize = 4_000_000;

/// Widths of token texts are counted up to this many columns: no pane gives a token more.
pub const WIDEST_COUNTED: usize = 32;

/// The most ids whose widest text is counted the first time it is asked for; a larger
/// vocabulary's is counted when its reader of text is built (on the explorer's worker).
pub const COUNTED_AT_ONCE: usize = 4096;

/// The display text of one id, from wherever the vocabulary lives (a GGUF file's metadata, a
/// parsed `tokenizer.json`); `None` for an id no token uses.
pub type NameOf = Arc<dyn Fn(usize) -> Option<String> + Send + Sync>;

/// Every id's display text: one at a time from its source, or all of them cached once for
/// search and lookups by text; or names read as a whole when first needed ([`Names::later`]).
pub struct Names {
    len: usize,
    name_of: NameOf,
    byte_level: bool,
    cache: OnceLock<DisplayVocab>,
    widest: OnceLock<usize>,
    /// For names read later: how they are read, and what was read.
    later: Option<Box<Later>>,
}

/// Reads a vocabulary's names as a whole.
type ReadNames = Box<dyn FnOnce() -> Result<Names> + Send>;

/// Names read the first time one is asked for: the reader until then, then the names or why
/// they could not be read.
struct Later {
    read: Mutex<Option<ReadNames>>,
    names: OnceLock<Result<Names, String>>,
}

impl Later {
    /// The names, read now if they are not yet (waiting for a read another thread began).
    fn names(&self) -> Option<&Names> {
        self.names
            .get_or_init(|| {
                let read = self.read.lock().ok().and_then(|mut read| read.take());
                match read {
                    Some(read) => read().map_err(|error| format!("{error:#}")),
                    None => Err("the names were being read when that failed".to_owned()),
                }
            })
            .as_ref()
            .ok()
    }

    /// The names if they are read, without waiting.
    fn read(&self) -> Option<&Names> {
        self.names.get().and_then(|names| names.as_ref().ok())
    }
}

impl fmt::Debug for Names {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Names")
            .field("len", &self.len())
            .field("byte_level", &self.byte_level)
            .field("cached", &self.cache.get().is_some())
            .field("read", &self.is_read())
            .finish_non_exhaustive()
    }
}

impl Names {
    /// `len` ids (the highest plus one), each named by `name_of`; `byte_level` when the
    /// vocabulary is GPT-2-style byte-level BPE (`Ġfox`).
    pub fn new(len: usize, byte_level: bool, name_of: NameOf) -> Self {
        Self {
            len,
            name_of,
            byte_level,
            cache: OnceLock::new(),
            widest: OnceLock::new(),
            later: None,
        }
    }

    /// Names read by `read` as a whole the first time one is asked for (the explorer's
    /// tokenizer worker asks, after the first frame; a command that prints names asks at
    /// once); until then [`Self::len`] is `count`, the ids known without reading them (a GGUF
    /// file's token array, or its table's rows), and [`Self::is_read`] says they are not read.
    pub fn later(count: usize, read: impl FnOnce() -> Result<Names> + Send + 'static) -> Self {
        Self {
            later: Some(Box::new(Later {
                read: Mutex::new(Some(Box::new(read))),
                names: OnceLock::new(),
            })),
            ..Self::new(count, false, Arc::new(|_| None))
        }
    }

    /// Whether the names can be given without reading them first (always, but for names
    /// read [`later`](Self::later) and not read yet); never waits.
    pub fn is_read(&self) -> bool {
        self.later
            .as_ref()
            .is_none_or(|later| later.names.get().is_some())
    }

    /// Reads names to be read later, if they are not read yet (waiting for a read another
    /// thread began): what a reader of text checks before it is built, as the names are read
    /// first to turn away what the `tokenizers` crate would panic on (see [`JsonVocab::read`]).
    ///
    /// # Errors
    /// Why they could not be read.
    pub fn read_now(&self) -> Result<()> {
        match &self.later {
            Some(later) if later.names().is_none() => {
                bail!(
                    "{}",
                    self.read_error().unwrap_or("the names could not be read")
                )
            }
            _ => Ok(()),
        }
    }

    /// Why names to be read later could not be read, once that was tried.
    pub fn read_error(&self) -> Option<&str> {
        let later = self.later.as_ref()?;
        later.names.get()?.as_ref().err().map(String::as_str)
    }

    /// The names of a `tokenizer.json`'s ids, read without building the tokenizer (see
    /// [`JsonVocab::read`]).
    ///
    /// # Errors
    /// As [`JsonVocab::read`].
    pub fn from_json(json: &[u8]) -> Result<Self> {
        JsonVocab::read(json).map(JsonVocab::into_names)
    }

    /// Names already worked out, in id order (empty for an id no token uses); the whole
    /// vocabulary is indexed for search only when first searched, as for any other names.
    #[must_use]
    pub fn from_texts(texts: Vec<String>, byte_level: bool) -> Self {
        let len = texts.len();
        Self::new(
            len,
            byte_level,
            Arc::new(move |id| texts.get(id).filter(|text| !text.is_empty()).cloned()),
        )
    }

    /// How many ids there are: the highest plus one (for names read later and not read yet,
    /// the count they were given).
    pub fn len(&self) -> usize {
        match &self.later {
            Some(later) => later.read().map_or(self.len, Self::len),
            None => self.len,
        }
    }

    /// Whether no id has a name.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the vocabulary is GPT-2-style byte-level BPE (names read later are read now).
    pub fn is_byte_level(&self) -> bool {
        match &self.later {
            Some(later) => later.names().is_some_and(Names::is_byte_level),
            None => self.byte_level,
        }
    }

    /// The display text of an id, if a token uses it; never caches the whole vocabulary.
    /// Names read later are read now (see [`Self::is_read`] for a pane that must not wait).
    pub fn text(&self, id: usize) -> Option<String> {
        if let Some(later) = &self.later {
            return later.names()?.text(id);
        }
        match self.cache.get() {
            Some(cached) => cached.text(id).map(str::to_owned),
            None if id < self.len => (self.name_of)(id).filter(|text| !text.is_empty()),
            None => None,
        }
    }

    /// Every display text, cached on first use.
    pub fn all(&self) -> &DisplayVocab {
        if let Some(names) = self.later.as_deref().and_then(Later::names) {
            return names.all();
        }
        self.cache.get_or_init(|| {
            DisplayVocab::new(
                (0..self.len)
                    .map(|id| (self.name_of)(id).unwrap_or_default())
                    .collect(),
            )
        })
    }

    /// The widest display text in columns, counted up to [`WIDEST_COUNTED`], once counted
    /// (see [`Self::count_widest`]); until then [`WIDEST_COUNTED`] itself, the most any pane
    /// gives a token, so that a first frame never reads a large vocabulary's names. A
    /// vocabulary of at most [`COUNTED_AT_ONCE`] ids is counted when first asked.
    pub fn widest(&self) -> usize {
        if let Some(later) = &self.later {
            return later.read().map_or(WIDEST_COUNTED, Names::widest);
        }
        match self.widest.get() {
            Some(&widest) => widest,
            None if self.len <= COUNTED_AT_ONCE => self.count_widest(),
            None => WIDEST_COUNTED,
        }
    }

    /// Counts the widest display text (what the tokenizer's worker does before it builds the
    /// reader of text): the ids are read one by one until one is [`WIDEST_COUNTED`] wide.
    pub fn count_widest(&self) -> usize {
        if let Some(later) = &self.later {
            return later.names().map_or(0, Names::count_widest);
        }
        *self.widest.get_or_init(|| {
            if let Some(cached) = self.cache.get() {
                return cached.widest().min(WIDEST_COUNTED);
            }
            let mut widest = 0;
            for id in 0..self.len {
                let width = (self.name_of)(id).map_or(0, |text| text.width());
                widest = widest.max(width.min(WIDEST_COUNTED));
                if widest == WIDEST_COUNTED {
                    break;
                }
            }
            widest
        })
    }
}

/// The display text of a model vocabulary's token: byte-level tokens (`Ġfox`) as the text
/// their bytes spell (`␣fox`), others with spaces and line breaks made visible.
#[must_use]
pub fn model_token_text(token: &str, byte_level: bool) -> String {
    match byte_level_bytes(token) {
        Some(bytes) if byte_level => visible_bytes(&bytes),
        _ => visible(token),
    }
}

/// What of a `tokenizer.json` names its ids, read without building the tokenizer: every id's
/// token as the file writes it, and the special tokens its post-processor adds; each made
/// into its display text only when it is shown.
pub struct JsonVocab {
    /// The token of each id as the file writes it (empty for an id no token uses), one after
    /// another in one string: a vocabulary is two allocations, not one a token, so it is read
    /// and dropped at once (152,000 tokens each in its own `String` took 18-40 ms to free).
    tokens: PackedTokens,
    /// Whether each id is an added token (shown as written, never as byte-level text).
    added: Vec<bool>,
    /// Whether the vocabulary is byte-level BPE.
    byte_level: bool,
}

/// Texts in id order, one after another.
struct PackedTokens {
    text: String,
    /// Where each id's text ends (it starts where the one before ends).
    ends: Vec<usize>,
}

impl PackedTokens {
    fn get(&self, id: usize) -> Option<&str> {
        let end = *self.ends.get(id)?;
        let start = id.checked_sub(1).map_or(0, |before| self.ends[before]);
        self.text.get(start..end)
    }

    fn len(&self) -> usize {
        self.ends.len()
    }
}

#[derive(Deserialize)]
struct TokenizerFile<'a> {
    #[serde(default)]
    added_tokens: Vec<AddedEntry>,
    #[serde(default, borrow)]
    model: Option<ModelEntry<'a>>,
    #[serde(default)]
    decoder: Option<Value>,
    #[serde(default)]
    pre_tokenizer: Option<Value>,
    #[serde(default)]
    post_processor: Option<Value>,
}

#[derive(Deserialize)]
struct AddedEntry {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    content: Option<String>,
}

#[derive(Deserialize)]
struct ModelEntry<'a> {
    #[serde(default, borrow)]
    vocab: Option<VocabEntry<'a>>,
    #[serde(default)]
    #[expect(
        dead_code,
        reason = "read only to be skipped: the merges are the encoder's"
    )]
    merges: Option<IgnoredAny>,
}

/// A model's `vocab`: token to id (BPE, `WordPiece`, word level), or pieces with scores in id
/// order (unigram). Read as it comes, without a map: of a token written twice, both ids are
/// named.
enum VocabEntry<'a> {
    Map(Vec<(TokenText<'a>, u64)>),
    Pieces(Vec<TokenText<'a>>),
}

impl<'de: 'a, 'a> Deserialize<'de> for VocabEntry<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(VocabVisitor)
    }
}

/// A token as the file writes it: borrowed from the JSON where it holds no escape, so that
/// reading a vocabulary does not allocate a string a token.
struct TokenText<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for TokenText<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(TokenTextVisitor)
    }
}

struct TokenTextVisitor;

impl<'de> serde::de::Visitor<'de> for TokenTextVisitor {
    type Value = TokenText<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a token")
    }

    fn visit_borrowed_str<E: serde::de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(TokenText(Cow::Borrowed(text)))
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(TokenText(Cow::Owned(text.to_owned())))
    }

    fn visit_string<E: serde::de::Error>(self, text: String) -> Result<Self::Value, E> {
        Ok(TokenText(Cow::Owned(text)))
    }
}

struct VocabVisitor;

impl<'de> serde::de::Visitor<'de> for VocabVisitor {
    type Value = VocabEntry<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a vocabulary: tokens and their ids, or pieces and their scores")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0));
        while let Some(entry) = map.next_entry::<TokenText<'de>, u64>()? {
            entries.push(entry);
        }
        Ok(VocabEntry::Map(entries))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut pieces = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some((piece, _)) = seq.next_element::<(TokenText<'de>, IgnoredAny)>()? {
            pieces.push(piece);
        }
        Ok(VocabEntry::Pieces(pieces))
    }
}

impl JsonVocab {
    /// Reads the names of a `tokenizer.json`'s ids: its model's vocabulary, its added tokens
    /// and the ids its post-processor adds, as the tokenizer built from it would show them.
    ///
    /// # Errors
    /// When the text is not JSON, an added token is longer than [`MAX_SPECIAL_TOKEN_BYTES`],
    /// the post-processor adds a special token it does not define, or the highest id is past
    /// [`MAX_IDS`].
    pub fn read(json: &[u8]) -> Result<Self> {
        let file: TokenizerFile = serde_json::from_slice(json).map_err(|error| match error {
            error if error.is_data() => anyhow!("{error}"),
            error => anyhow!("not valid JSON: {error}"),
        })?;
        // serde reads a struct from an array too; a tokenizer.json is an object.
        if !json.trim_ascii_start().starts_with(b"{") {
            bail!("a tokenizer.json is a JSON object");
        }
        check_added_token_lengths(&file.added_tokens)?;
        let byte_level = [&file.decoder, &file.pre_tokenizer]
            .into_iter()
            .flatten()
            .any(names_byte_level);
        let (processor_ids, undefined) = file
            .post_processor
            .as_ref()
            .map(post_processor_tokens)
            .unwrap_or_default();
        if let Some(id) = undefined {
            bail!(
                "its post-processor's template adds the special token {id}, which its \
                 special_tokens do not define"
            );
        }
        let vocab: Vec<(usize, TokenText)> = match file.model.and_then(|model| model.vocab) {
            Some(VocabEntry::Map(map)) => map
                .into_iter()
                .filter_map(|(token, id)| Some((usize::try_from(id).ok()?, token)))
                .collect(),
            Some(VocabEntry::Pieces(pieces)) => pieces.into_iter().enumerate().collect(),
            None => Vec::new(),
        };
        let added: Vec<(usize, &str)> = file
            .added_tokens
            .iter()
            .filter_map(|token| {
                let id = token.id.as_ref()?.as_u64()?;
                Some((usize::try_from(id).ok()?, token.content.as_deref()?))
            })
            .collect();
        let highest = vocab
            .iter()
            .map(|(id, _)| *id)
            .chain(added.iter().map(|(id, _)| *id))
            .chain(processor_ids.iter().map(|&id| id as usize))
            .max()
            .map_or(0, |id| id.saturating_add(1));
        if highest > MAX_IDS {
            bail!(
                "its highest id is {}, too many to be a vocabulary",
                highest - 1
            );
        }
        let mut by_id = vec![""; highest];
        for (id, token) in &vocab {
            by_id[*id] = &token.0;
        }
        let mut is_added = vec![false; highest];
        for (id, content) in added {
            by_id[id] = content;
            is_added[id] = true;
        }
        let mut text = String::with_capacity(by_id.iter().map(|token| token.len()).sum());
        let ends = by_id
            .iter()
            .map(|token| {
                text.push_str(token);
                text.len()
            })
            .collect();
        Ok(Self {
            tokens: PackedTokens { text, ends },
            added: is_added,
            byte_level,
        })
    }

    /// The names of its ids: byte-level tokens (`Ġfox`) as the text their bytes spell, added
    /// tokens and the rest with spaces and line breaks made visible.
    #[must_use]
    pub fn into_names(self) -> Names {
        let Self {
            tokens,
            added,
            byte_level,
        } = self;
        Names::new(
            tokens.len(),
            byte_level,
            Arc::new(move |id| {
                let token = tokens.get(id).filter(|token| !token.is_empty())?;
                Some(if added[id] {
                    visible(token)
                } else {
                    model_token_text(token, byte_level)
                })
            }),
        )
    }
}

/// Refuses an added token longer than [`MAX_SPECIAL_TOKEN_BYTES`], naming its id and length:
/// the `tokenizers` crate's matcher of added tokens takes time that grows with the square of
/// their length (a 30,000-character token took 82 s to open).
fn check_added_token_lengths(added: &[AddedEntry]) -> Result<()> {
    for token in added {
        let length = token.content.as_deref().map_or(0, str::len);
        if length > MAX_SPECIAL_TOKEN_BYTES {
            let id = token
                .id
                .as_ref()
                .map_or_else(|| "without an id".to_owned(), ToString::to_string);
            bail!(
                "its added token {id} is {length} bytes long; embedlens reads added tokens of at \
                 most {MAX_SPECIAL_TOKEN_BYTES} bytes (real ones are tens of bytes)"
            );
        }
    }
    Ok(())
}

/// Whether a decoder or pre-tokenizer, or one in its sequence, is `ByteLevel`.
fn names_byte_level(part: &Value) -> bool {
    match part.get("type").and_then(Value::as_str) {
        Some("ByteLevel") => true,
        Some("Sequence") => ["decoders", "pretokenizers"]
            .into_iter()
            .filter_map(|key| part.get(key).and_then(Value::as_array))
            .flatten()
            .any(names_byte_level),
        _ => false,
    }
}

/// The special tokens a post-processor adds (`[CLS]`, `<s>`), read from its JSON, nested
/// `Sequence`s included: their ids, which need not be in the model's vocabulary, and the first
/// token a template names but does not define.
///
/// tokenizers 0.22 checks templates built in code, not templates read from a file, and then
/// panics (`no entry found for key`) on the first encode that adds special tokens.
pub fn post_processor_tokens(processor: &Value) -> (Vec<u32>, Option<String>) {
    let mut ids = Vec::new();
    let mut undefined = None;
    for_each_object(
        processor,
        &mut |fields| match fields.get("type").and_then(Value::as_str) {
            Some("TemplateProcessing") => {
                let defined = fields.get("special_tokens").and_then(Value::as_object);
                for token in defined.into_iter().flat_map(Map::values) {
                    let token_ids = token.get("ids").and_then(Value::as_array);
                    ids.extend(token_ids.into_iter().flatten().filter_map(as_id));
                }
                let named = ["single", "pair"]
                    .into_iter()
                    .filter_map(|template| fields.get(template).and_then(Value::as_array))
                    .flatten()
                    .filter_map(|piece| piece.pointer("/SpecialToken/id").and_then(Value::as_str));
                for name in named {
                    if undefined.is_none() && !defined.is_some_and(|d| d.contains_key(name)) {
                        undefined = Some(name.to_owned());
                    }
                }
            }
            Some("BertProcessing" | "RobertaProcessing") => {
                let pairs = ["sep", "cls"].into_iter().filter_map(|key| fields.get(key));
                ids.extend(pairs.filter_map(|pair| pair.get(1)).filter_map(as_id));
            }
            _ => {}
        },
    );
    (ids, undefined)
}

fn as_id(value: &Value) -> Option<u32> {
    value.as_u64().and_then(|id| u32::try_from(id).ok())
}

/// Calls `visit` on every JSON object in `value`, itself included.
fn for_each_object(value: &Value, visit: &mut impl FnMut(&Map<String, Value>)) {
    match value {
        Value::Array(items) => items.iter().for_each(|item| for_each_object(item, visit)),
        Value::Object(fields) => {
            visit(fields);
            fields
                .values()
                .for_each(|field| for_each_object(field, visit));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// Names `len` ids `t0`, `t1`…, counting how many are read.
    fn counted(len: usize) -> (Names, Arc<AtomicUsize>) {
        let reads = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&reads);
        let names = Names::new(
            len,
            false,
            Arc::new(move |id| {
                counter.fetch_add(1, Ordering::Relaxed);
                Some(format!("t{id}"))
            }),
        );
        (names, reads)
    }

    #[test]
    fn a_large_vocabularys_widest_name_is_counted_only_when_asked_to() {
        let (names, reads) = counted(COUNTED_AT_ONCE + 1);
        assert_eq!(names.widest(), WIDEST_COUNTED);
        assert_eq!(names.text(10).as_deref(), Some("t10"));
        assert_eq!(reads.load(Ordering::Relaxed), 1, "only the name asked for");
        assert_eq!(names.count_widest(), "t4096".len());
        assert_eq!(names.widest(), "t4096".len());
        assert_eq!(reads.load(Ordering::Relaxed), 1 + COUNTED_AT_ONCE + 1);
    }

    #[test]
    fn a_small_vocabularys_widest_name_is_counted_when_first_asked() {
        let (names, _) = counted(100);
        assert_eq!(names.widest(), "t99".len());
    }

    #[test]
    fn names_read_later_are_read_once_when_first_asked_for() {
        let reads = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&reads);
        let names = Names::later(10, move || {
            counter.fetch_add(1, Ordering::Relaxed);
            Names::from_json(br#"{"model": {"vocab": {"a": 0, "b": 2}}}"#)
        });
        // Counted by what it was given, and not read, until a name is asked for.
        assert!(!names.is_read());
        assert_eq!((names.len(), names.widest()), (10, WIDEST_COUNTED));
        assert_eq!(reads.load(Ordering::Relaxed), 0);
        assert_eq!(names.text(2).as_deref(), Some("b"));
        assert!(names.is_read() && names.read_now().is_ok());
        assert_eq!((names.len(), names.text(1), names.widest()), (3, None, 1));
        assert_eq!(names.all().id("a"), Some(0));
        assert_eq!(reads.load(Ordering::Relaxed), 1, "read once");

        let broken = Names::later(10, || Names::from_json(b"not JSON"));
        assert_eq!(broken.text(0), None);
        let why = broken.read_now().expect_err("not JSON").to_string();
        assert!(why.starts_with("not valid JSON"), "{why}");
        assert_eq!(broken.read_error(), Some(why.as_str()));
    }

    #[test]
    fn tokens_are_named_whether_written_with_escapes_or_not() {
        // Ids out of order, one unused (3), escapes, an added token over a vocabulary token,
        // and pieces with scores.
        let json = br#"{"added_tokens": [{"id": 4, "content": "<s>"}],
            "model": {"vocab": {"tab\there": 2, "caf\u00e9": 1, "plain": 0, "x": 4}}}"#;
        let names = Names::from_json(json).expect("names");
        assert_eq!(names.len(), 5);
        let texts: Vec<_> = (0..5).map(|id| names.text(id)).collect();
        assert_eq!(
            texts,
            [
                Some("plain".to_owned()),
                Some("café".to_owned()),
                Some(visible("tab\there")),
                None,
                Some("<s>".to_owned()),
            ]
        );
        let pieces = br#"{"model": {"vocab": [["\u2581a", -1.0], ["b", -2.0]]}}"#;
        let names = Names::from_json(pieces).expect("pieces");
        assert_eq!(names.text(0), Some(visible("\u{2581}a")));
        assert_eq!(names.text(1).as_deref(), Some("b"));
    }
}
