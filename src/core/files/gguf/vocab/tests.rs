//! The metadata tokenizers against published ones, and their refusals.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::*;

/// Text that reaches every part of a tokenizer: merges, unseen words, digits, accents, CJK,
/// emoji (byte fallback), runs of spaces and line breaks, typed special and added tokens.
const TEXTS: [&str; 12] = [
    "The quick brown fox jumps over the lazy dog.",
    "fox bites the fox",
    "In 2026 there were 12345 foxes; 3.14159 of them were zebras.",
    "Café naïve résumé, 東京 and 大阪, Ärger über Öl",
    "emoji 🦊🐶🧪 and ∑ ∫ ≠ ∞",
    "Tabs\tand  double  spaces\n\nnew lines\r\nand   three",
    "  leading and trailing  ",
    "I'm sure they'LL say we've DONE it",
    "<|im_start|>user hello<|im_end|> <s>x</s> <tool> call",
    "<|begin_of_text|>bos typed",
    "",
    "xyzzy qwertyuiop zzzz",
];

fn folder(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/gguf/tokenizers")
        .join(kind)
}

fn ids(tokenizer: &TextTokenizer, text: &str, special: bool) -> Vec<usize> {
    let tokens = tokenizer.tokenize(text, special).unwrap();
    tokens.iter().map(|token| token.id.unwrap()).collect()
}

#[test]
fn metadata_tokenizers_give_the_ids_of_the_published_tokenizer_json() {
    for kind in ["smollm", "llama3", "spm"] {
        let published = TextTokenizer::from_file(&folder(kind).join("tokenizer.json")).unwrap();
        let file = GgufFile::open(&folder(kind).join("model.gguf")).unwrap();
        let rebuilt = metadata_tokenizer(&file).unwrap().build(kind).unwrap();
        assert_eq!(rebuilt.vocab_size(), published.vocab_size(), "{kind}");
        for text in TEXTS {
            for special in [false, true] {
                assert_eq!(
                    ids(&rebuilt, text, special),
                    ids(&published, text, special),
                    "{kind}, special tokens {special}: {text:?}"
                );
            }
        }
        for id in 0..published.vocab_size() {
            assert_eq!(
                rebuilt.token_text(id),
                published.token_text(id),
                "{kind} id {id}"
            );
        }
    }
}

/// GPT-2's printable stand-in for each byte (its `bytes_to_unicode`): printable Latin-1
/// bytes stand for themselves, the rest take the characters from U+0100 on, in order.
fn byte_level(bytes: &[u8]) -> String {
    let printable = |b: u8| matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
    let mut table = ['\0'; 256];
    let mut next = 0x100u32;
    for byte in 0..=255u8 {
        table[usize::from(byte)] = if printable(byte) {
            char::from(byte)
        } else {
            next += 1;
            char::from_u32(next - 1).unwrap()
        };
    }
    bytes.iter().map(|&b| table[usize::from(b)]).collect()
}

/// GPT-2's merges, recovered from tiktoken's ranks: a token's bytes, merged by the ranks
/// below its own, end as exactly the two tokens its merge joins.
fn gpt2_merges(tokens: &[Vec<u8>]) -> Vec<String> {
    let rank: HashMap<&[u8], usize> = tokens
        .iter()
        .enumerate()
        .map(|(id, t)| (t.as_slice(), id))
        .collect();
    let mut merges = Vec::new();
    for (id, token) in tokens.iter().enumerate().filter(|(_, t)| t.len() > 1) {
        let mut parts: Vec<&[u8]> = token.chunks(1).collect();
        loop {
            let best = (0..parts.len() - 1)
                .filter_map(|i| {
                    let joined = [parts[i], parts[i + 1]].concat();
                    rank.get(joined.as_slice())
                        .filter(|&&r| r < id)
                        .map(|&r| (r, i))
                })
                .min();
            let Some((_, i)) = best else { break };
            let joined = &token[parts[..i].iter().map(|p| p.len()).sum::<usize>()..]
                [..parts[i].len() + parts[i + 1].len()];
            parts.splice(i..=i + 1, [joined]);
        }
        assert_eq!(parts.len(), 2, "id {id}");
        merges.push(format!("{} {}", byte_level(parts[0]), byte_level(parts[1])));
    }
    merges
}

#[test]
fn gpt2_from_metadata_gives_the_ids_of_gpt2s_own_tokenizer() {
    use super::super::writer::GgufWriter;
    use crate::core::text::tokenizer::GPT2_END_OF_TEXT;
    let published = TextTokenizer::gpt2().unwrap();
    let bpe = tiktoken_rs::r50k_base().unwrap();
    let tokens: Vec<Vec<u8>> = (0..GPT2_END_OF_TEXT)
        .map(|id| bpe.decode_bytes(&[u32::try_from(id).unwrap()]).unwrap())
        .collect();
    let merges = gpt2_merges(&tokens);
    assert_eq!(merges.len(), 50_000);
    let mut strings: Vec<String> = tokens.iter().map(|t| byte_level(t)).collect();
    strings.push("<|endoftext|>".to_owned());
    let mut types = vec![MetadataValue::I32(1); GPT2_END_OF_TEXT];
    types.push(MetadataValue::I32(3));
    // As llama.cpp's converter stores GPT-2.
    let writer = GgufWriter::new()
        .text("tokenizer.ggml.model", "gpt2")
        .text("tokenizer.ggml.pre", "gpt-2")
        .texts("tokenizer.ggml.tokens", &strings)
        .metadata("tokenizer.ggml.token_type", MetadataValue::Array(types))
        .texts("tokenizer.ggml.merges", &merges)
        .number("tokenizer.ggml.bos_token_id", 50_256)
        .number("tokenizer.ggml.eos_token_id", 50_256);
    let file = GgufFile::from_bytes(
        std::sync::Arc::new(writer.to_bytes()),
        Path::new("gpt2.gguf"),
    )
    .unwrap();
    let rebuilt = metadata_tokenizer(&file).unwrap().build("gpt2").unwrap();
    // (tiktoken reads a typed <|endoftext|> as text; GPT-2's tokenizer.json, like the
    // rebuilt one, as the special token. The sample texts type none.)
    for text in TEXTS {
        assert_eq!(
            ids(&rebuilt, text, false),
            ids(&published, text, false),
            "{text:?}"
        );
    }
}

#[test]
fn what_was_built_is_said() {
    let file = GgufFile::open(&folder("smollm").join("model.gguf")).unwrap();
    let summary = metadata_tokenizer(&file).unwrap().summary;
    assert_eq!(
        summary,
        "byte-level BPE (tokenizer.ggml.model gpt2, pre-tokenizer smollm), 421 tokens, 161 merges"
    );
    let file = GgufFile::open(&folder("spm").join("model.gguf")).unwrap();
    let summary = metadata_tokenizer(&file).unwrap().summary;
    assert!(
        summary.starts_with("SentencePiece BPE (tokenizer.ggml.model llama), 700 tokens"),
        "{summary}"
    );
}

#[test]
fn a_special_token_or_piece_past_the_bound_is_refused_by_id_and_length() {
    use super::super::writer::GgufWriter;
    let read = |model: &str, types: Vec<MetadataValue>| {
        let long = "x".repeat(MAX_SPECIAL_TOKEN_BYTES + 1);
        let writer = GgufWriter::new()
            .text("tokenizer.ggml.model", model)
            .texts("tokenizer.ggml.tokens", &["a", "b", long.as_str()])
            .texts("tokenizer.ggml.merges", &["a b"])
            .metadata("tokenizer.ggml.token_type", MetadataValue::Array(types))
            .metadata(
                "tokenizer.ggml.scores",
                MetadataValue::Array(vec![MetadataValue::F32(0.0); 3]),
            );
        let file =
            GgufFile::from_bytes(std::sync::Arc::new(writer.to_bytes()), Path::new("m.gguf"))
                .unwrap();
        metadata_tokenizer(&file).map_or_else(|error| format!("{error:#}"), |_| String::new())
    };
    let normal = || vec![MetadataValue::I32(1); 3];
    let control = vec![
        MetadataValue::I32(1),
        MetadataValue::I32(1),
        MetadataValue::I32(3),
    ];
    let error = read("gpt2", control);
    assert!(
        error.contains("its special or added token 2 is 1025 bytes long"),
        "{error}"
    );
    let error = read("llama", normal());
    assert!(
        error.contains("its SentencePiece piece 2 is 1025 bytes long"),
        "{error}"
    );
    // A long ordinary token of a byte-level vocabulary costs nothing quadratic.
    let error = read("gpt2", normal());
    assert!(!error.contains("bytes long"), "{error}");
}

#[test]
fn tokenizers_that_cannot_be_rebuilt_say_why() {
    use super::super::writer::GgufWriter;
    let read = |writer: GgufWriter| {
        let file =
            GgufFile::from_bytes(std::sync::Arc::new(writer.to_bytes()), Path::new("m.gguf"))
                .unwrap();
        format!("{:#}", metadata_tokenizer(&file).unwrap_err())
    };
    assert_eq!(
        read(GgufWriter::new()),
        "the file has no tokenizer.ggml.model"
    );
    let base = || GgufWriter::new().texts("tokenizer.ggml.tokens", &["a", "b", "ab"]);
    let error = read(base().text("tokenizer.ggml.model", "rwkv"));
    assert!(
        error.contains("tokenizer.ggml.model is \"rwkv\""),
        "{error}"
    );
    // Kimi K2's split is code of llama.cpp's own, not a pattern.
    let error = read(
        base()
            .text("tokenizer.ggml.model", "gpt2")
            .text("tokenizer.ggml.pre", "kimi-k2"),
    );
    assert!(error.contains("pre-tokenizer \"kimi-k2\""), "{error}");
    let error = read(base().text("tokenizer.ggml.model", "gpt2"));
    assert!(error.contains("needs tokenizer.ggml.merges"), "{error}");
    let error = read(base().text("tokenizer.ggml.model", "llama"));
    assert!(error.contains("needs tokenizer.ggml.scores"), "{error}");
    let twice = GgufWriter::new()
        .text("tokenizer.ggml.model", "gpt2")
        .texts("tokenizer.ggml.tokens", &["a", "b", "a"])
        .texts("tokenizer.ggml.merges", &["a b"]);
    assert_eq!(read(twice), "the token \"a\" appears twice, as ids 0 and 2");
    let bad_bos = base()
        .text("tokenizer.ggml.model", "gpt2")
        .texts("tokenizer.ggml.merges", &["a b"])
        .number("tokenizer.ggml.bos_token_id", 9);
    assert!(
        read(bad_bos)
            .contains("tokenizer.ggml.bos_token_id is 9, not the id of one of its 3 tokens")
    );
}

#[test]
fn sentencepiece_merges_rank_by_score_then_by_the_halves_lengths() {
    let tokens = ["a", "b", "c", "ab", "bc", "abc"];
    let vocab = Vocab {
        tokens: tokens.to_vec(),
        ids: tokens.iter().enumerate().map(|(id, t)| (*t, id)).collect(),
        types: vec![1; 6],
    };
    let merges = merges_from_scores(&vocab, &[0.0, 0.0, 0.0, -1.0, -1.0, -2.0]);
    // "ab" and "bc" tie on score and lengths, so stay in id order; "abc" splits as a+bc
    // and ab+c, ordered by the halves' ids, then ranked by the left half's length.
    assert_eq!(merges, [("a", "b"), ("b", "c"), ("ab", "c"), ("a", "bc")]);
}

/// A tiny vocabulary of the given kind: `a`, `b`, `ab`, then the control tokens `<s>` (3) and
/// `</s>` (4), with the keys given.
fn tiny(model: &str, keys: impl FnOnce(GgufWriter) -> GgufWriter) -> TextTokenizer {
    let types = [1, 1, 1, 3, 3].map(MetadataValue::I32).to_vec();
    let writer = GgufWriter::new()
        .text("tokenizer.ggml.model", model)
        .texts("tokenizer.ggml.tokens", &["a", "b", "ab", "<s>", "</s>"])
        .metadata("tokenizer.ggml.token_type", MetadataValue::Array(types))
        .metadata(
            "tokenizer.ggml.scores",
            MetadataValue::Array([0.0, 0.0, -1.0, 0.0, 0.0].map(MetadataValue::F32).to_vec()),
        )
        .texts("tokenizer.ggml.merges", &["a b"])
        .number("tokenizer.ggml.bos_token_id", 3)
        .number("tokenizer.ggml.eos_token_id", 4);
    let file = GgufFile::from_bytes(
        std::sync::Arc::new(keys(writer).to_bytes()),
        Path::new("m.gguf"),
    )
    .unwrap();
    metadata_tokenizer(&file).unwrap().build(model).unwrap()
}

use super::super::writer::GgufWriter;

#[test]
fn the_ends_are_added_as_llama_cpp_adds_them_per_family() {
    let ends = |tokenizer: &TextTokenizer| {
        let ids = ids(tokenizer, "ab", true);
        (ids.first().copied(), ids.last().copied())
    };
    let pre = |name: &'static str| move |w: GgufWriter| w.text("tokenizer.ggml.pre", name);
    // Llama 3 adds <|begin_of_text|> unless the file says otherwise; Qwen 2 adds nothing.
    assert_eq!(ends(&tiny("gpt2", pre("llama-bpe"))), (Some(3), Some(2)));
    let unless = |w: GgufWriter| {
        pre("llama-bpe")(w).metadata("tokenizer.ggml.add_bos_token", MetadataValue::Bool(false))
    };
    assert_eq!(ends(&tiny("gpt2", unless)), (Some(2), Some(2)));
    assert_eq!(ends(&tiny("gpt2", pre("qwen2"))), (Some(2), Some(2)));
    let asked = |w: GgufWriter| {
        pre("qwen2")(w)
            .metadata("tokenizer.ggml.add_bos_token", MetadataValue::Bool(true))
            .metadata("tokenizer.ggml.add_eos_token", MetadataValue::Bool(true))
    };
    assert_eq!(ends(&tiny("gpt2", asked)), (Some(3), Some(4)));
    // SentencePiece adds <s> by default, </s> when asked.
    assert_eq!(ends(&tiny("llama", |w| w)).0, Some(3));
    let eos = |w: GgufWriter| w.metadata("tokenizer.ggml.add_eos_token", MetadataValue::Bool(true));
    assert_eq!(ends(&tiny("llama", eos)).1, Some(4));
    // Gemma 4 always begins with its <bos>, whatever the file says.
    let refused =
        |w: GgufWriter| w.metadata("tokenizer.ggml.add_bos_token", MetadataValue::Bool(false));
    assert_eq!(ends(&tiny("gemma4", refused)), (Some(3), Some(2)));
    // BERT: the beginning token ([CLS]) first and the separator last, always.
    let bert = |w: GgufWriter| w.number("tokenizer.ggml.seperator_token_id", 4);
    let bert = tiny("bert", |w| {
        bert(w).number("tokenizer.ggml.unknown_token_id", 0)
    });
    assert_eq!(ends(&bert), (Some(3), Some(4)));
    // llama.cpp's WordPiece reader adds both whatever the file says.
    let bert = tiny("bert", |w| {
        w.number("tokenizer.ggml.seperator_token_id", 4)
            .number("tokenizer.ggml.unknown_token_id", 0)
            .metadata("tokenizer.ggml.add_bos_token", MetadataValue::Bool(false))
            .metadata("tokenizer.ggml.add_eos_token", MetadataValue::Bool(false))
    });
    assert_eq!(ends(&bert), (Some(3), Some(4)));
    // Without the special tokens, none.
    assert_eq!(ids(&tiny("gpt2", pre("llama-bpe")), "ab", false), [2]);
}

/// How a named pre-tokenizer cuts text, before any merge (in the byte-level alphabet).
fn pieces(name: &str, text: &str) -> Vec<String> {
    use tokenizers::{PreTokenizedString, PreTokenizer, PreTokenizerWrapper};
    let pre = super::pre::lookup(Some(name)).unwrap();
    let wrapper: PreTokenizerWrapper = serde_json::from_value(pre.json()).unwrap();
    let mut string = PreTokenizedString::from(text);
    wrapper.pre_tokenize(&mut string).unwrap();
    string
        .get_splits(
            tokenizers::OffsetReferential::Original,
            tokenizers::OffsetType::Byte,
        )
        .into_iter()
        .map(|(_, (start, end), _)| text[start..end].to_owned())
        .collect()
}

#[test]
fn each_split_cuts_llama_cpps_tricky_strings_as_its_patterns_say() {
    let text = "ied 4 ½ months";
    // DeepSeek Coder: letters with a space before them, each digit alone (½ is a number).
    assert_eq!(
        pieces("deepseek-coder", text),
        ["ied", " ", "4", " ", "½", " months"]
    );
    // DeepSeek LLM: numbers whole, Latin words with their space; CJK runs whole.
    assert_eq!(
        pieces("deepseek-llm", "3333 我想在apple工作"),
        ["3333", " ", "我想在", "apple", "工作"]
    );
    // Falcon: punctuation runs first, then GPT-2's words, then three digits at a time.
    assert_eq!(
        pieces("falcon", "Hello, world!! 1234567"),
        ["Hello", ",", " world", "!!", " ", "123", "456", "7"]
    );
    // Command R (as StarCoder, SmolLM): digits one by one, then GPT-2's words.
    assert_eq!(
        pieces("command-r", "I've 33 🦙s"),
        ["I", "'ve", " ", "3", "3", " 🦙", "s"]
    );
    // Llama 3: up to three digits, contractions in any case, whitespace runs kept.
    assert_eq!(
        pieces("llama-bpe", "I'VE 12345\n\n  x"),
        ["I", "'VE", " ", "123", "45", "\n\n", " ", " x"]
    );
    // Qwen 3.5: combining marks stay with their letters; Qwen 2 takes one as the mark before
    // a word.
    assert_eq!(
        pieces("qwen35", "re\u{301}sume\u{301}"),
        ["re\u{301}sume\u{301}"]
    );
    assert_eq!(
        pieces("qwen2", "re\u{301}sume\u{301}"),
        ["re", "\u{301}sume", "\u{301}"]
    );
    // llama.cpp's default (a file that names no pre-tokenizer).
    assert_eq!(pieces("default", "a+b=3"), ["a", "+", "b", "=", "3"]);
}

#[test]
fn a_t5_unigram_vocabulary_reads_the_likeliest_pieces_with_spaces_as_llama_cpp_treats_them() {
    let types = [3, 3, 2, 1, 1, 1, 1].map(MetadataValue::I32).to_vec();
    let scores = [0.0, 0.0, 0.0, -1.0, -1.5, -2.0, -3.0].map(MetadataValue::F32);
    let writer = GgufWriter::new()
        .text("tokenizer.ggml.model", "t5")
        .texts(
            "tokenizer.ggml.tokens",
            &["<pad>", "</s>", "<unk>", "▁a", "▁ab", "b", "▁"],
        )
        .metadata("tokenizer.ggml.token_type", MetadataValue::Array(types))
        .metadata(
            "tokenizer.ggml.scores",
            MetadataValue::Array(scores.to_vec()),
        );
    let file =
        GgufFile::from_bytes(std::sync::Arc::new(writer.to_bytes()), Path::new("t5.gguf")).unwrap();
    let plan = tokenizer_plan(&file).unwrap();
    assert_eq!(
        plan.summary,
        "SentencePiece unigram (tokenizer.ggml.model t5), 7 tokens"
    );
    let tokenizer = metadata_tokenizer(&file).unwrap().build("t5").unwrap();
    // ▁ab (-1.5) beats ▁a + b (-3); the end token (1, llama.cpp's default) is added.
    assert_eq!(ids(&tokenizer, "ab", true), [4, 1]);
    // Runs of spaces merge and the ends are trimmed: ▁a ▁ b.
    assert_eq!(ids(&tokenizer, "  a   b ", false), [3, 6, 5]);
    // A character no piece covers is the unknown token, shown as typed and marked unknown.
    assert_eq!(ids(&tokenizer, "ac", false), [3, 2]);
    let tokens = tokenizer.tokenize("ac", false).unwrap();
    assert!(!tokens[0].unknown && tokens[1].unknown, "{tokens:?}");
    assert_eq!(tokens[1].text, "c");
    assert_eq!(ids(&tokenizer, "   ", false), Vec::<usize>::new());
    let built = metadata_encoder(&file).unwrap();
    let direct = TextTokenizer::HuggingFace(
        crate::core::text::tokenizer::HuggingFaceTokenizer::from_parts(
            "t5",
            crate::core::text::tokenizer::Names::from_texts(Vec::new(), false),
            move || Ok(built),
        ),
    );
    assert_eq!(ids(&direct, "  a   b ", true), [3, 6, 5, 1]);
}
