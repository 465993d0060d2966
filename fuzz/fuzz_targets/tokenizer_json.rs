//! Any bytes as a `tokenizer.json`: reading it must answer Ok or Err, never panic; a tokenizer
//! that reads must tokenise text with spans on character boundaries and ids it can show.
#![no_main]

use embedlens::core::text::tokenizer::{HuggingFaceTokenizer, TextTokenizer};
use libfuzzer_sys::fuzz_target;

mod common;

const TEXTS: [&str; 7] = [
    "fox bites the fox",
    "",
    "  \t\n",
    "naïve café — 東京 🦊\n",
    "[CLS] the [SEP] <s></s>",
    "<|endoftext|>Hello, world!",
    "a\u{301}\u{200d}b",
];

fuzz_target!(|data: &[u8]| {
    let Ok(tokenizer) = HuggingFaceTokenizer::from_json(data, "fuzz") else {
        return;
    };
    let tokenizer = TextTokenizer::HuggingFace(tokenizer);
    let vocab_size = tokenizer.vocab_size();
    for text in TEXTS {
        for special_tokens in [false, true] {
            // A word-level vocabulary without an unknown token may refuse a word: that is an Err.
            let Ok(tokens) = tokenizer.tokenize(text, special_tokens) else {
                continue;
            };
            common::check_spans(text, &tokens, false, text);
            for token in &tokens {
                let id = token.id.expect("a model tokenizer gives every token an id");
                assert!(
                    id < vocab_size,
                    "{token:?}: id past vocab_size {vocab_size}"
                );
            }
        }
    }
    let _ = tokenizer.max_id();
    let _ = tokenizer.widest_token();
    let _ = tokenizer.token_text(0);
    let _ = tokenizer.token_text(vocab_size.saturating_sub(1));
    let _ = tokenizer.id_of("the");
    let _ = tokenizer.id_of(" fox");
    let _ = tokenizer.search("fox", 5);
    let _ = tokenizer.search(" ", 5);
});
