"""Writes pairs of tokenizer fixtures for the GGUF metadata tokenizer: for each kind, the
`tokenizer.json` Hugging Face's libraries make, and a GGUF file whose `tokenizer.ggml.*`
metadata holds the same tokenizer the way llama.cpp's converter (convert_hf_to_gguf.py) stores
it. embedlens must read text into the same ids from either.

Run in a scratch virtual environment, never inside the repository:

    python3 -m venv /tmp/venv-gguf
    /tmp/venv-gguf/bin/pip install gguf numpy tokenizers sentencepiece protobuf "transformers<5"
    /tmp/venv-gguf/bin/python scripts/gguf_tokenizer_fixtures.py tests/fixtures/gguf/tokenizers

The committed files were made with gguf 0.19.0, numpy 2.4.6, tokenizers 0.22.2, sentencepiece
0.2.3, protobuf 7.36.2 and transformers 4.57.6 (transformers 5 no longer converts a bare
SentencePiece model with LlamaConverter).

Kinds:
- smollm: byte-level BPE, digits split one by one (tokenizer.ggml.pre "smollm");
- llama3: byte-level BPE with Llama 3's split pattern and ignore_merges ("llama-bpe"), adding
  <|begin_of_text|> in front;
- spm: a SentencePiece BPE model with byte fallback (tokenizer.ggml.model "llama"), converted
  to tokenizer.json by transformers, adding <s> in front.
Each is trained on the small corpus below, so the files stay a few tens of kB.
"""

import json
import sys
import tempfile
from pathlib import Path

import gguf
import numpy as np
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, processors, trainers

CORPUS = [
    "The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs on.",
    "fox bites the fox, and dog bites man, but man bites dog only in the news.",
    "In 2026 there were 12345 foxes and 678 dogs, said the report on page 90.",
    "Embedding layers look up a row for each token id: the same id, the same row.",
    "Position information is added later, so the copies of a word differ at last.",
    "Café, naïve, résumé and coöperate keep their accents; 東京 and 北京 are cities.",
    "Tabs\tand  double  spaces, new\nlines and\r\nWindows lines all count too!",
    "I'm sure they'll say we've done it, isn't it? You'd think so. HELLO World.",
    "emoji 🦊🐶 and symbols like <, >, =, +, -, ->, => and {braces} [brackets].",
] * 4

LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def train_byte_level(pre_tokenizer, specials, ignore_merges=False):
    tokenizer = Tokenizer(models.BPE(ignore_merges=ignore_merges))
    tokenizer.pre_tokenizer = pre_tokenizer
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=420,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(CORPUS, trainer)
    tokenizer.add_tokens(["<tool>"])
    return tokenizer


def add_embedding(writer, rows):
    # A tiny token table, so the file also opens as a model: row i is (i, -i).
    table = np.array([[i, -i] for i in range(rows)], dtype=np.float32)
    writer.add_tensor("token_embd.weight", table)


def write_byte_level_gguf(folder, pre, add_bos):
    """As convert_hf_to_gguf.py's get_vocab_base and SpecialVocab store a BPE tokenizer."""
    data = json.loads((folder / "tokenizer.json").read_text())
    vocab = dict(data["model"]["vocab"])
    added = {item["id"]: item for item in data["added_tokens"]}
    for id, item in added.items():
        vocab[item["content"]] = id
    reverse = {id: token for token, id in vocab.items()}
    tokens, types = [], []
    for id in range(max(reverse) + 1):
        tokens.append(reverse[id])
        if id in added:
            types.append(gguf.TokenType.CONTROL if added[id]["special"] else gguf.TokenType.USER_DEFINED)
        else:
            types.append(gguf.TokenType.NORMAL)
    writer = gguf.GGUFWriter(folder / "model.gguf", "llama")
    writer.add_context_length(64)
    writer.add_embedding_length(2)
    writer.add_rope_freq_base(10000.0)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre(pre)
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    special = gguf.SpecialVocab(folder, load_merges=True)
    special.add_to_gguf(writer)
    if add_bos is not None:
        writer.add_add_bos_token(add_bos)
    add_embedding(writer, len(tokens))
    write(writer)


def write(writer):
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def smollm(folder):
    pre = pre_tokenizers.Sequence(
        [pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.ByteLevel(add_prefix_space=False)]
    )
    tokenizer = train_byte_level(pre, ["<|endoftext|>", "<|im_start|>", "<|im_end|>"])
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(
        json.dumps({"bos_token": "<|im_start|>", "eos_token": "<|im_end|>", "unk_token": "<|endoftext|>"})
    )
    write_byte_level_gguf(folder, "smollm", add_bos=False)


def llama3(folder):
    pre = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(LLAMA3_PATTERN), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer = train_byte_level(pre, ["<|begin_of_text|>", "<|end_of_text|>"], ignore_merges=True)
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<|begin_of_text|> $A",
        pair="<|begin_of_text|> $A <|begin_of_text|> $B",
        special_tokens=[("<|begin_of_text|>", 0)],
    )
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(
        json.dumps({"bos_token": "<|begin_of_text|>", "eos_token": "<|end_of_text|>"})
    )
    # SpecialVocab finds add_bos_token in the post-processor.
    write_byte_level_gguf(folder, "llama-bpe", add_bos=None)


def spm(folder):
    import sentencepiece
    from transformers.convert_slow_tokenizer import LlamaConverter

    class Original:
        """What LlamaConverter reads of a slow LlamaTokenizer (legacy, as Llama 2 ships)."""

        legacy = True
        add_prefix_space = True

        def __init__(self, vocab_file):
            self.vocab_file = vocab_file
            self.sp = sentencepiece.SentencePieceProcessor(model_file=vocab_file)

        def convert_ids_to_tokens(self, id):
            return self.sp.id_to_piece(id)

    with tempfile.TemporaryDirectory() as scratch:
        corpus = Path(scratch) / "corpus.txt"
        corpus.write_text("\n".join(CORPUS) + "\n")
        # As Llama 2's tokenizer.model: BPE, byte fallback, no normalization of the text.
        sentencepiece.SentencePieceTrainer.train(
            input=str(corpus),
            model_prefix=str(Path(scratch) / "tokenizer"),
            model_type="bpe",
            vocab_size=700,
            byte_fallback=True,
            character_coverage=1.0,
            normalization_rule_name="identity",
            remove_extra_whitespaces=False,
            split_digits=True,
            num_threads=1,
            minloglevel=2,
        )
        model = Path(scratch) / "tokenizer.model"
        (folder / "tokenizer.model").write_bytes(model.read_bytes())
        converted = LlamaConverter(Original(str(model))).converted()
        # LlamaTokenizerFast's own post-processor: <s> in front.
        converted.post_processor = processors.TemplateProcessing(
            single="<s> $A", pair="<s> $A <s> $B", special_tokens=[("<s>", 1)]
        )
        converted.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(
        json.dumps({"add_bos_token": True, "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"})
    )
    vocab = gguf.vocab.SentencePieceVocab(folder)
    tokens, scores, types = zip(*vocab.all_tokens())
    writer = gguf.GGUFWriter(folder / "model.gguf", "llama")
    writer.add_context_length(64)
    writer.add_embedding_length(2)
    writer.add_rope_freq_base(10000.0)
    writer.add_tokenizer_model("llama")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(list(tokens))
    writer.add_token_scores(list(scores))
    writer.add_token_types(list(types))
    writer.add_add_space_prefix(True)
    gguf.SpecialVocab(folder, load_merges=False, n_vocab=len(tokens)).add_to_gguf(writer)
    add_embedding(writer, len(tokens))
    write(writer)
    (folder / "tokenizer.model").unlink()


def main(out):
    for kind in (smollm, llama3, spm):
        folder = out / kind.__name__
        folder.mkdir(parents=True, exist_ok=True)
        kind(folder)
        (folder / "tokenizer_config.json").unlink()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
