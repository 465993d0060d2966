//! Tests of the tokenizers behind [`TextTokenizer`], the model ones especially.

use std::path::Path;

use serde_json::{Value, json};

use super::display::byte_level_char;
use super::*;
use crate::core::test_fixtures::{TempDir, added_token, bert_post_processor};
use crate::core::text::vocabulary::VocabKind;

fn gpt2() -> TextTokenizer {
    TextTokenizer::gpt2().expect("GPT-2's ranks are built in")
}

fn ids(tokenizer: &TextTokenizer, text: &str, special_tokens: bool) -> Vec<usize> {
    tokenizer
        .tokenize(text, special_tokens)
        .unwrap()
        .iter()
        .map(|token| token.id.unwrap())
        .collect()
}

fn texts(tokens: &[Token]) -> Vec<&str> {
    tokens.iter().map(|token| token.text.as_str()).collect()
}

/// Spans sit on character boundaries, in order, without overlap; what they leave out of the
/// text is whitespace (a pre-tokenizer's splits), or nothing at all when `whole` is set.
fn assert_spans_cover(text: &str, tokens: &[Token], whole: bool) {
    let mut end = 0;
    for (position, token) in tokens.iter().enumerate() {
        let span = &token.span;
        assert_eq!(token.position, position);
        assert!(
            span.start <= span.end && span.end <= text.len(),
            "{token:?}"
        );
        assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
        assert!(span.start >= end, "{token:?} overlaps the token before");
        let gap = &text[end..span.start];
        assert!(
            gap.trim().is_empty() && (gap.is_empty() || !whole),
            "{gap:?} left out"
        );
        end = span.end;
    }
    let rest = &text[end..];
    assert!(
        rest.trim().is_empty() && (rest.is_empty() || !whole),
        "{rest:?} left out"
    );
}

#[test]
fn gpt2_gives_tiktokens_ids() {
    let gpt2 = gpt2();
    assert_eq!(gpt2.name(), "gpt2");
    assert_eq!(gpt2.vocab_size(), 50_257);
    assert_eq!(gpt2.max_id(), Some(50_256));
    assert_eq!(ids(&gpt2, "fox", true), [12_792]);
    assert_eq!(ids(&gpt2, " fox", true), [21_831]);
    assert_eq!(ids(&gpt2, "Hello world", true), [15_496, 995]);
    assert_eq!(ids(&gpt2, "dog bites man", true), [9_703, 26_081, 582]);
    assert_eq!(ids(&gpt2, "man bites dog", true), [805, 26_081, 3_290]);
}

#[test]
fn gpt2_reads_end_of_text_as_special_only_when_asked() {
    let gpt2 = gpt2();
    let tokens = gpt2.tokenize("<|endoftext|>", true).unwrap();
    assert_eq!(tokens.len(), 1);
    assert_eq!(tokens[0].id, Some(GPT2_END_OF_TEXT));
    assert!(tokens[0].special);
    assert_eq!(tokens[0].text, "<|endoftext|>");
    assert_eq!(tokens[0].span, 0..13);
    let ordinary = gpt2.tokenize("<|endoftext|>", false).unwrap();
    assert!(ordinary.len() > 1 && ordinary.iter().all(|token| !token.special));
    assert!(
        !ordinary
            .iter()
            .any(|token| token.id == Some(GPT2_END_OF_TEXT))
    );
    assert_spans_cover("<|endoftext|>", &ordinary, true);
}

#[test]
fn gpt2_shows_leading_spaces() {
    let gpt2 = gpt2();
    let tokens = gpt2.tokenize("the quick fox", false).unwrap();
    assert_eq!(texts(&tokens), ["the", "␣quick", "␣fox"]);
    assert_eq!(tokens[2].span, 9..13);
    assert_eq!(gpt2.token_text(21_831).as_deref(), Some("␣fox"));
    assert_eq!(gpt2.token_text(12_792).as_deref(), Some("fox"));
    assert_eq!(gpt2.token_text(50_257), None);
    assert_eq!(gpt2.id_of("␣fox"), Some(21_831));
    assert_eq!(gpt2.id_of(" fox"), Some(21_831));
    assert_eq!(gpt2.id_of("Ġfox"), Some(21_831));
    assert_eq!(gpt2.id_of("fox"), Some(12_792));
    assert_eq!(gpt2.id_of("no such token here"), None);
}

#[test]
fn gpt2_spans_stay_on_character_boundaries() {
    let gpt2 = gpt2();
    let text = "naïve café 東京 🦊\n<|endoftext|> done";
    for special_tokens in [false, true] {
        let tokens = gpt2.tokenize(text, special_tokens).unwrap();
        assert_spans_cover(text, &tokens, true);
    }
    // The fox is four bytes GPT-2 has no single piece for: the first piece spans the
    // character, the rest sit empty at its end, and each shows its bytes.
    let fox = gpt2.tokenize("🦊", false).unwrap();
    assert!(fox.len() > 1);
    assert_eq!(fox[0].span, 0..4);
    assert!(fox[1..].iter().all(|token| token.span == (4..4)));
    assert!(fox[0].text.starts_with("<0xF0>"), "{:?}", fox[0].text);
}

#[test]
fn gpt2_caches_display_strings() {
    let gpt2 = gpt2();
    assert!((10..=256).contains(&gpt2.widest_token()));
    assert!(gpt2.listing().is_none());
    assert!(gpt2.has_unknown_token());
    let found = gpt2.search("fox", 5);
    assert_eq!(found[0], 12_792, "the exact text comes first");
    assert_eq!(found.len(), 5);
    assert_eq!(gpt2.search(" fox", 1), [21_831]);
    assert_eq!(gpt2.search("Ġfox", 1), [21_831]);
    for id in found {
        let text = gpt2.token_text(id).unwrap().to_lowercase();
        assert!(text.contains("fox"), "{text}");
    }
}

/// A BERT-like word-level tokenizer whose file pads to 16 and truncates to 3.
fn bert_like_json() -> String {
    let words = [
        "[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "quick", "fox", "dog", "bites", "man",
    ];
    let vocab: serde_json::Map<String, Value> = words
        .iter()
        .enumerate()
        .map(|(id, word)| ((*word).to_owned(), json!(id)))
        .collect();
    json!({
        "version": "1.0",
        "truncation": {"direction": "Right", "max_length": 3, "strategy": "LongestFirst", "stride": 0},
        "padding": {"strategy": {"Fixed": 16}, "direction": "Right", "pad_to_multiple_of": null,
                    "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"},
        "added_tokens": [added_token(0, "[PAD]"), added_token(1, "[UNK]"), added_token(2, "[CLS]"), added_token(3, "[SEP]")],
        "normalizer": {"type": "Lowercase"},
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": bert_post_processor(),
        "decoder": null,
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"}
    })
    .to_string()
}

#[test]
fn hugging_face_ignores_the_files_padding_and_truncation() {
    let dir = TempDir::new("bert-like");
    let path = dir.write("tokenizer.json", &bert_like_json());
    let tokenizer = TextTokenizer::from_file(&path).unwrap();
    assert!(
        tokenizer.name().ends_with("bert-like"),
        "{}",
        tokenizer.name()
    );
    assert_eq!(tokenizer.vocab_size(), 10);
    assert_eq!(tokenizer.max_id(), Some(9));

    let text = "The quick fox bites the dog";
    let tokens = tokenizer.tokenize(text, true).unwrap();
    assert_eq!(
        texts(&tokens),
        [
            "[CLS]", "the", "quick", "fox", "bites", "the", "dog", "[SEP]"
        ]
    );
    assert_eq!(ids(&tokenizer, text, true), [2, 4, 5, 6, 8, 4, 7, 3]);
    let specials: Vec<bool> = tokens.iter().map(|token| token.special).collect();
    assert_eq!(
        specials,
        [true, false, false, false, false, false, false, true]
    );
    assert_eq!(tokens[0].span, 0..0);
    assert_eq!(tokens[1].span, 0..3);
    assert_eq!(tokens[7].span, text.len()..text.len());
    assert_spans_cover(text, &tokens, false);

    let plain = tokenizer.tokenize(text, false).unwrap();
    assert_eq!(
        texts(&plain),
        ["the", "quick", "fox", "bites", "the", "dog"]
    );
    assert!(plain.iter().all(|token| !token.special));
    assert_spans_cover(text, &plain, false);
}

#[test]
fn hugging_face_unknown_words_and_typed_markers() {
    let dir = TempDir::new("markers");
    let path = dir.write("words.json", &bert_like_json());
    let tokenizer = TextTokenizer::from_file(&path).unwrap();
    assert_eq!(tokenizer.name(), "words");
    let tokens = tokenizer.tokenize("[CLS] zebra", false).unwrap();
    assert_eq!(
        texts(&tokens),
        ["[CLS]", "zebra"],
        "an unknown word keeps what was typed"
    );
    assert!(tokens[0].special, "a typed marker is still special");
    assert!(!tokens[0].unknown);
    assert_eq!(tokens[0].span, 0..5);
    assert!(!tokens[1].special, "an unknown word was read from the text");
    assert!(tokens[1].unknown, "it reads the [UNK] row");
    assert_eq!(
        tokenizer.token_text(tokens[1].id.unwrap()).as_deref(),
        Some("[UNK]")
    );
    assert_eq!(tokens[1].span, 6..11);
    let two = tokenizer.tokenize("zebra okapi", false).unwrap();
    assert_eq!(two[0].id, two[1].id, "one unknown-token row");
    assert!(!two[0].is_copy_of(&two[1]), "but two different words");
    assert_eq!(tokenizer.id_of("fox"), Some(6));
    assert_eq!(tokenizer.token_text(3).as_deref(), Some("[SEP]"));
    assert_eq!(tokenizer.search("[", 10), [0, 1, 2, 3]);
    assert_eq!(tokenizer.search("o", 10), [6, 7]);
}

/// A `WordPiece` tokenizer that lower-cases and strips accents, as BERT does.
fn word_piece_json() -> String {
    let words = [
        "[UNK]", "[CLS]", "[SEP]", "na", "##ive", "caf", "##e", "東", "##京",
    ];
    let vocab: serde_json::Map<String, Value> = words
        .iter()
        .enumerate()
        .map(|(id, word)| ((*word).to_owned(), json!(id)))
        .collect();
    json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [added_token(0, "[UNK]"), added_token(1, "[CLS]"), added_token(2, "[SEP]")],
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": false,
                       "strip_accents": true, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab}
    })
    .to_string()
}

#[test]
fn hugging_face_spans_are_bytes_of_the_typed_text() {
    let dir = TempDir::new("word-piece");
    let path = dir.write("tokenizer.json", &word_piece_json());
    let tokenizer = TextTokenizer::from_file(&path).unwrap();
    let text = "Naïve café 東京";
    let tokens = tokenizer.tokenize(text, true).unwrap();
    assert_eq!(
        texts(&tokens),
        ["[CLS]", "na", "##ive", "caf", "##e", "東", "##京", "[SEP]"]
    );
    let pieces: Vec<&str> = tokens
        .iter()
        .map(|token| &text[token.span.clone()])
        .collect();
    assert_eq!(pieces, ["", "Na", "ïve", "caf", "é", "東", "京", ""]);
    assert_spans_cover(text, &tokens, false);
    assert_eq!(tokenizer.id_of("##ive"), Some(4));
}

/// A GPT-2-style byte-level BPE: the 256 byte characters, then `fox` and `Ġfox` merged.
fn byte_level_json() -> String {
    let mut vocab = serde_json::Map::new();
    for byte in 0..=u8::MAX {
        vocab.insert(byte_level_char(byte).to_string(), json!(byte));
    }
    for (id, token) in [
        (256, "fo"),
        (257, "fox"),
        (258, "Ġf"),
        (259, "Ġfo"),
        (260, "Ġfox"),
    ] {
        vocab.insert(token.to_owned(), json!(id));
    }
    let byte_level = json!({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false,
                            "use_regex": true});
    json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [added_token(261, "<|endoftext|>")],
        "normalizer": null,
        "pre_tokenizer": byte_level,
        "post_processor": byte_level,
        "decoder": byte_level,
        "model": {"type": "BPE", "dropout": null, "unk_token": null,
                  "continuing_subword_prefix": null, "end_of_word_suffix": null,
                  "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
                  "vocab": vocab,
                  "merges": ["Ġ f", "Ġf o", "Ġfo x", "f o", "fo x"]}
    })
    .to_string()
}

#[test]
fn hugging_face_byte_level_shows_spaces_and_bytes() {
    let dir = TempDir::new("byte-level");
    let path = dir.write("tokenizer.json", &byte_level_json());
    let tokenizer = TextTokenizer::from_file(&path).unwrap();
    assert_eq!(tokenizer.vocab_size(), 262);
    assert_eq!(tokenizer.token_text(260).as_deref(), Some("␣fox"));
    assert_eq!(
        tokenizer.token_text(u32::from(b'\n') as usize).as_deref(),
        Some("↵")
    );
    assert_eq!(tokenizer.token_text(0xE6).as_deref(), Some("<0xE6>"));
    assert_eq!(tokenizer.id_of("␣fox"), Some(260));
    assert_eq!(tokenizer.id_of("Ġfox"), Some(260));
    assert_eq!(tokenizer.id_of(" fox"), Some(260));
    assert_eq!(tokenizer.search("Ġfox", 1), [260]);
    assert_eq!(tokenizer.widest_token(), "<|endoftext|>".len());

    let text = "fox fox 🦊<|endoftext|>";
    let tokens = tokenizer.tokenize(text, true).unwrap();
    assert_eq!(
        texts(&tokens),
        [
            "fox",
            "␣fox",
            "␣",
            "<0xF0>",
            "<0x9F>",
            "<0xA6>",
            "<0x8A>",
            "<|endoftext|>"
        ]
    );
    let spans: Vec<_> = tokens.iter().map(|token| token.span.clone()).collect();
    assert_eq!(
        spans,
        [0..3, 3..7, 7..8, 8..12, 12..12, 12..12, 12..12, 12..25]
    );
    assert!(tokens[7].special && !tokens[3].special);
    assert_spans_cover(text, &tokens, true);

    let text = "naïve café 東京 🦊";
    assert_spans_cover(text, &tokenizer.tokenize(text, false).unwrap(), true);
}

#[test]
fn hugging_face_errors_name_the_file() {
    let dir = TempDir::new("errors");
    let broken = dir.write("tokenizer.json", r#"{"model": {"type": "Nonsense"}}"#);
    let message = TextTokenizer::from_file(&broken).unwrap_err().to_string();
    assert!(
        message.starts_with(&broken.display().to_string()),
        "{message}"
    );
    assert!(
        message.contains("not a tokenizer.json the tokenizers library can read"),
        "{message}"
    );

    let missing = dir.join("missing").join("tokenizer.json");
    let message = TextTokenizer::from_file(&missing).unwrap_err().to_string();
    assert_eq!(message, format!("{}: no such file", missing.display()));
    assert!(TextTokenizer::from_file(Path::new("")).is_err());
}

#[test]
fn word_vocabularies_search_too() {
    let seed = TextTokenizer::Words(Vocabulary::builtin(VocabKind::Seed).unwrap());
    assert_eq!(seed.search("FOX", 5), [2]);
    assert_eq!(seed.search("e", 5), [0, 4]);
    assert_eq!(seed.search("o", 1), [2]);
    assert_eq!(seed.max_id(), Some(5));
    assert_eq!(seed.tokenize("fox", true).unwrap()[0].id, Some(2));
}

#[test]
fn an_added_token_past_the_bound_is_refused_by_id_and_length() {
    let long = "y".repeat(super::MAX_SPECIAL_TOKEN_BYTES + 1);
    let json = serde_json::json!({
        "model": {"type": "WordLevel", "vocab": {"a": 0, "[UNK]": 1}, "unk_token": "[UNK]"},
        "added_tokens": [{"id": 2, "content": long, "single_word": false, "lstrip": false,
                          "rstrip": false, "normalized": false, "special": true}],
    });
    let error = HuggingFaceTokenizer::from_json(json.to_string().as_bytes(), "t")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains(
            "its added token 2 is 1025 bytes long; embedlens reads added tokens of at most 1024"
        ),
        "{error}"
    );
}
