//! Any text through every built-in tokenizer: the seed and words vocabularies, GPT-2's
//! byte-pair encoding, and ids typed as numbers.
//!
//! Spans must sit on character boundaries, in order and never overlapping, and every token
//! must name a row its tokenizer can show.
#![no_main]

use std::sync::LazyLock;

use embedlens::core::text::tokenizer::TextTokenizer;
use embedlens::core::text::vocabulary::{
    VocabKind, Vocabulary, copies_of, first_repeat, ids_from_text,
};
use libfuzzer_sys::fuzz_target;

mod common;

/// Built once per process: GPT-2's display strings take a moment to cache.
static TOKENIZERS: LazyLock<Vec<TextTokenizer>> = LazyLock::new(|| {
    vec![
        TextTokenizer::Words(Vocabulary::builtin(VocabKind::Seed).expect("built in")),
        TextTokenizer::Words(Vocabulary::builtin(VocabKind::Words).expect("built in")),
        TextTokenizer::gpt2().expect("GPT-2's ranks are built in"),
    ]
});

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for tokenizer in TOKENIZERS.iter() {
        let name = tokenizer.name();
        let word_level = matches!(tokenizer, TextTokenizer::Words(_));
        for special_tokens in [false, true] {
            let tokens = tokenizer
                .tokenize(&text, special_tokens)
                .unwrap_or_else(|error| panic!("{name} refused {text:?}: {error:#}"));
            common::check_spans(&text, &tokens, !word_level, name);
            for token in &tokens {
                if word_level {
                    assert_eq!(token.text, text[token.span.clone()], "{name}: {token:?}");
                }
                if let Some(id) = token.id {
                    assert!(id < tokenizer.vocab_size(), "{name}: {token:?} has no row");
                    assert!(tokenizer.token_text(id).is_some(), "{name}: {token:?}");
                }
            }
            if let Some(first) = tokens.first() {
                assert!(copies_of(&tokens, 0).contains(&first.position));
            }
            // `first_repeat` is one pass with a map; `copies_of` per token says the same, slowly.
            if tokens.len() <= 64 {
                let slowly = (0..tokens.len()).find_map(|index| {
                    match copies_of(&tokens, index).as_slice() {
                        [first, second, ..] if *first == index => Some(*second),
                        _ => None,
                    }
                });
                assert_eq!(first_repeat(&tokens), slowly, "{name}: {text:?}");
            }
        }
        // Searching a vocabulary for the text: GPT-2's 50,257 strings are too slow per run.
        let _ = tokenizer.id_of(&text);
        if word_level {
            let _ = tokenizer.search(&text, 5);
        }
    }
    for rows in [0, 6, usize::MAX] {
        let tokens = ids_from_text(&text, rows);
        common::check_spans(&text, &tokens, false, "ids");
        for token in &tokens {
            assert!(token.id.is_none_or(|id| id < rows), "ids: {token:?}");
            assert_ne!(token.text, ",", "ids: commas separate ids");
        }
    }
});
