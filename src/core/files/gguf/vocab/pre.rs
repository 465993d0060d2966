//! llama.cpp's pre-tokenizers, by the names its converter writes to `tokenizer.ggml.pre`: how
//! each splits text into words before byte-level BPE merges them (llama.cpp's
//! `llama-vocab.cpp`, `llm_tokenizer_bpe`), and what each does by default (BOS, whole words).
//!
//! A split is a list of patterns applied in turn, each cutting every piece so far into its
//! matches and the stretches between them, as Hugging Face's `Split` with `Isolated` does.
//! Where llama.cpp rewrote a model's pattern for C++'s regex engine, the model's own pattern
//! (from its `tokenizer.json`) is used: the ids llama.cpp tests against are Hugging Face's.

use serde_json::{Value, json};

/// GPT-2's pattern (`ByteLevel`'s own, with `use_regex`).
const GPT2: &str = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+";
/// Llama 3's pattern, as its `tokenizer.json` writes it.
const LLAMA3: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// Qwen 2's: Llama 3's with digits one at a time.
const QWEN2: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// Qwen 3.5's: Qwen 2's with combining marks kept with their letters.
const QWEN35: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// GPT-4o's (also Llama 4's): words split at case changes, contractions kept on.
const GPT4O: &str = r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// Tekken's (Mistral Nemo): GPT-4o's without contractions, digits one at a time.
const TEKKEN: &str = r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// `DeepSeek`-V3's (and Hunyuan's) words.
const DEEPSEEK3: &str = r##"[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"##;
/// BLOOM's (and Poro's): anything up to a space or a sentence mark.
const BLOOM: &str = r" ?[^(\s|.,!?…。，、।۔،)]+";
/// CJK runs, as `DeepSeek`'s first models keep them whole.
const DEEPSEEK_CJK: &str = "[一-龥ࠀ-一가-퟿]+";
/// `DeepSeek` LLM's letters: the Latin, Greek, Cyrillic and other cased scripts.
const DEEPSEEK_LETTERS: &str = "\\s?[A-Za-z\u{b5}\u{c0}-\u{d6}\u{d8}-\u{f6}\u{f8}-\u{1ba}\u{1bc}-\u{1bf}\u{1c4}-\u{293}\u{295}-\u{2af}\u{370}-\u{373}\u{376}\u{377}\u{37b}-\u{37d}\u{37f}\u{386}\u{388}-\u{38a}\u{38c}\u{38e}-\u{3a1}\u{3a3}-\u{3f5}\u{3f7}-\u{481}\u{48a}-\u{52f}\u{531}-\u{556}\u{10a0}-\u{10c5}\u{13a0}-\u{13f5}\u{13f8}-\u{13fd}\u{1c90}-\u{1cba}\u{1cbd}-\u{1cbf}\u{1d00}-\u{1d2b}\u{1d6b}-\u{1d77}\u{1d79}-\u{1d9a}\u{1e00}-\u{1f15}\u{1f18}-\u{1f1d}\u{1f20}-\u{1f45}\u{1f48}-\u{1f4d}\u{1f50}-\u{1f57}\u{1f59}\u{1f5b}\u{1f5d}\u{1f5f}-\u{1f7d}\u{1f80}-\u{1fb4}\u{1fb6}-\u{1fbc}\u{1fbe}\u{1fc2}-\u{1fc4}\u{1fc6}-\u{1fcc}\u{1fd0}-\u{1fd3}\u{1fd6}-\u{1fdb}\u{1fe0}-\u{1fec}\u{1ff2}-\u{1ff4}\u{1ff6}-\u{1ffc}\u{2102}\u{2107}\u{210a}-\u{2113}\u{2115}\u{2119}-\u{211d}\u{2124}\u{2126}\u{2128}\u{212a}-\u{212d}\u{212f}-\u{2134}\u{2139}\u{213c}-\u{213f}\u{2145}-\u{2149}\u{214e}\u{2183}\u{2184}\u{2c00}-\u{2c7b}\u{2c7e}-\u{2ce4}\u{2ceb}-\u{2cee}\u{2cf2}\u{2cf3}\u{a640}-\u{a66d}\u{a680}-\u{a69b}\u{a722}-\u{a76f}\u{a771}-\u{a787}\u{a78b}-\u{a78e}\u{ab70}-\u{abbf}\u{fb00}-\u{fb06}\u{fb13}-\u{fb17}\u{ff21}-\u{ff3a}\u{ff41}-\u{ff5a}\u{10400}-\u{1044f}\u{104b0}-\u{104d3}\u{104d8}-\u{104fb}\u{10c80}-\u{10cb2}\u{10cc0}-\u{10cf2}\u{118a0}-\u{118df}\u{1e900}-\u{1e943}]+";

/// How a pre-tokenizer splits text, and what else llama.cpp does for it by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct PreTokenizer {
    /// The patterns, applied in turn.
    pub(super) patterns: &'static [&'static str],
    /// A word the vocabulary holds whole is one token, whatever the merges say.
    pub(super) ignore_merges: bool,
    /// llama.cpp adds the beginning-of-sequence token unless the file says otherwise.
    pub(super) adds_bos: bool,
    /// The text is put in Unicode normal form C first (Qwen's `tokenizer.json` does).
    pub(super) nfc: bool,
}

const fn split(patterns: &'static [&'static str]) -> PreTokenizer {
    PreTokenizer {
        patterns,
        ignore_merges: false,
        adds_bos: false,
        nfc: false,
    }
}

const fn whole_words(mut pre: PreTokenizer) -> PreTokenizer {
    pre.ignore_merges = true;
    pre
}

const fn with_bos(mut pre: PreTokenizer) -> PreTokenizer {
    pre.adds_bos = true;
    pre
}

const fn nfc(mut pre: PreTokenizer) -> PreTokenizer {
    pre.nfc = true;
    pre
}

/// Every `tokenizer.ggml.pre` name llama.cpp reads with a byte-level split, and its split.
const TABLE: &[(&[&str], PreTokenizer)] = &[
    (
        &[
            "llama3",
            "llama-v3",
            "llama-bpe",
            "falcon3",
            "falcon-h1",
            "pixtral",
            "midm-2.0",
            "lfm2",
            "jina-v5-nano",
        ],
        with_bos(whole_words(split(&[LLAMA3]))),
    ),
    (&["dbrx", "smaug-bpe", "chatglm-bpe"], split(&[LLAMA3])),
    (&["glm4", "glm5"], whole_words(split(&[LLAMA3]))),
    (
        &["jais-2"],
        split(&[
            r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s{512}(?!\S)|\s{256}(?!\S)|\s{128}(?!\S)|\s{64}(?!\S)|\s{32}(?!\S)|\s{16}(?!\S)|\s{8}(?!\S)|\s{4}(?!\S)|\s{1,2}(?!\S)|\s{1}",
        ]),
    ),
    (
        &["deepseek-llm"],
        split(&[
            r"[\r\n]",
            DEEPSEEK_LETTERS,
            r"\s?[!-/:-~！-／：-～‘-‟　-。]+",
            r"\s+$",
            DEEPSEEK_CJK,
            r"\p{N}+",
        ]),
    ),
    (
        &["deepseek-v3", "hunyuan-dense", "joyai-llm", "hy_v4"],
        split(&[r"\p{N}{1,3}", "[一-龥぀-ゟ゠-ヿ]+", DEEPSEEK3]),
    ),
    (
        &["spark2_5"],
        split(&[
            r"\p{N}{1,3}",
            "[一-龥぀-ゟ゠-ヿ]+",
            r##"[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+|[\r\n]|\s+(?!\S)|\s+"##,
            r"\p{N}",
        ]),
    ),
    (
        &["deepseek-coder"],
        split(&[
            r"[\r\n]",
            r"\s?\p{L}+",
            r"\s?\p{P}+",
            DEEPSEEK_CJK,
            r"\p{N}",
        ]),
    ),
    (
        &["falcon"],
        split(&[r"[\p{P}\$\+<=>\^~\|`]+", GPT2, "[0-9][0-9][0-9]"]),
    ),
    (
        &[
            "starcoder",
            "refact",
            "command-r",
            "smollm",
            "codeshell",
            "exaone",
            "minerva-7b",
            "mellum2",
        ],
        split(&[r"\p{N}", GPT2]),
    ),
    (
        &[
            "gpt-2",
            "gpt2",
            "phi-2",
            "jina-es",
            "jina-de",
            "gigachat",
            "jina-v2-es",
            "jina-v2-de",
            "a.x-4.0",
            "mellum",
            "modern-bert",
            "mpt",
            "olmo",
            "jais",
            "trillion",
            "granite-docling",
            "exaone4",
            "jina-v1-en",
            "jina-v2-code",
            "roberta-bpe",
        ],
        split(&[GPT2]),
    ),
    (
        &[
            "qwen2",
            "deepseek-r1-qwen",
            "kormo",
            "f2llmv2",
            "stablelm2",
            "hunyuan",
            "solar-open",
            "megrez",
            "grok-2",
        ],
        nfc(split(&[QWEN2])),
    ),
    (&["qwen35"], split(&[QWEN35])),
    (&["poro-chat", "bloom", "gpt3-finnish"], split(&[BLOOM])),
    (&["viking"], split(&[BLOOM, r"\p{N}"])),
    (&["tekken"], with_bos(whole_words(split(&[TEKKEN])))),
    (
        &["gpt-4o", "llama4", "kanana2", "talkie", "minimax-m2"],
        split(&[GPT4O]),
    ),
    (
        &["tiny_aya", "cohere2moe"],
        split(&[r"\d{1,3}(?=(?:\d{3})*\b)", GPT4O]),
    ),
    (
        &["bailingmoe", "bailingmoe2", "llada-moe"],
        split(&[
            r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+",
        ]),
    ),
    (
        &["seed-coder"],
        split(&[
            r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1}| ?[^\s\p{L}\p{N}\r\n]+|\s*[\r\n]+|\s+(?!\S)|\s+",
        ]),
    ),
    (
        &["ufakzeka"],
        split(&[
            r"[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
        ]),
    ),
    (&["laguna"], split(&["[^\n]+|[\n]+", QWEN2])),
    (
        &["exaone-moe"],
        split(&[
            r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?(?:\p{L}\p{M}*(?: \p{L}\p{M}*)*)+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]?|\s*[\r\n]|\s+(?!\S)|\s+",
        ]),
    ),
    (
        &["minicpm5"],
        whole_words(split(&[
            r"\p{N}{1,3}",
            r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}+| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
        ])),
    ),
    (
        &["default"],
        split(&[r"[\p{P}\$\+<=>\^~\|]+", GPT2, r"\p{N}+", "[0-9][0-9][0-9]"]),
    ),
];

/// The pre-tokenizer a `tokenizer.ggml.pre` name stands for (llama.cpp's `default` when the
/// file names none).
pub(super) fn lookup(name: Option<&str>) -> Option<PreTokenizer> {
    let name = name.unwrap_or("default");
    TABLE
        .iter()
        .find(|(names, _)| names.contains(&name))
        .map(|(_, pre)| *pre)
}

/// Every name known, for a message.
pub(super) fn known_names() -> Vec<&'static str> {
    TABLE
        .iter()
        .flat_map(|(names, _)| names.iter().copied())
        .collect()
}

/// GPT-2's byte-level mapping, with or without its own split.
pub(super) fn byte_level(use_regex: bool) -> Value {
    json!({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": use_regex})
}

impl PreTokenizer {
    /// The `pre_tokenizer` of a `tokenizer.json`: the splits, then the byte-level mapping.
    pub(super) fn json(self) -> Value {
        if self.patterns == [GPT2] {
            return byte_level(true);
        }
        let mut steps: Vec<Value> = self
            .patterns
            .iter()
            .map(|pattern| {
                json!({"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": false})
            })
            .collect();
        steps.push(byte_level(false));
        json!({"type": "Sequence", "pretokenizers": steps})
    }

    /// The `normalizer` of a `tokenizer.json`.
    pub(super) fn normalizer(self) -> Value {
        if self.nfc {
            json!({"type": "NFC"})
        } else {
            Value::Null
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        for (names, pre) in TABLE {
            for pattern in pre.patterns {
                let split = json!({"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": false});
                let built: Result<tokenizers::PreTokenizerWrapper, _> =
                    serde_json::from_value(split);
                assert!(built.is_ok(), "{names:?} {pattern}: {:?}", built.err());
            }
        }
    }
}
