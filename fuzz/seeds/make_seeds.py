#!/usr/bin/env python3
"""Writes the fuzzers' seed inputs into this folder: tiny but valid examples of each format.

Run from anywhere: python3 fuzz/seeds/make_seeds.py. The outputs are committed; the fuzzer's
own growing corpus goes to fuzz/corpus/, which git ignores.
"""
import json
import struct
from pathlib import Path

HERE = Path(__file__).resolve().parent


def safetensors(tensors):
    """tensors: [(name, dtype, shape, raw bytes)] -> the file's bytes."""
    header, data = {}, b""
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def f32(values):
    return struct.pack(f"<{len(values)}f", *values)


def f16(values):
    return struct.pack(f"<{len(values)}e", *values)


def bf16(values):
    return b"".join(struct.pack("<f", v)[2:] for v in values)


def counting(n, start=0.0):
    return [(start + i) / 8 for i in range(n)]


def write(target, name, data):
    folder = HERE / target
    folder.mkdir(exist_ok=True)
    (folder / name).write_bytes(data if isinstance(data, bytes) else data.encode())


write("tokenize", "fox", "fox bites the fox")
write("tokenize", "unicode", "naïve café — 東京 🦊\n<|endoftext|> done")
write("tokenize", "ids", "3, 1 4,99 x")

write("safetensors", "gpt2", safetensors([
    ("wpe.weight", "F16", [4, 3], f16(counting(12, 1))),
    ("wte.weight", "F32", [6, 3], f32(counting(18))),
]))
write("safetensors", "bert", safetensors([
    ("embeddings.LayerNorm.bias", "F32", [2], f32([0.0, 0.5])),
    ("embeddings.LayerNorm.weight", "F32", [2], f32([1.0, 2.0])),
    ("embeddings.position_embeddings.weight", "BF16", [3, 2], bf16(counting(6, 2))),
    ("embeddings.token_type_embeddings.weight", "F32", [2, 2], f32(counting(4, 3))),
    ("embeddings.word_embeddings.weight", "F32", [5, 2], f32(counting(10))),
]))
write("safetensors", "llama", safetensors([
    ("model.embed_tokens.weight", "BF16", [4, 2], bf16(counting(8))),
    ("model.norm.weight", "F32", [2], f32([1.0, 1.0])),
]))


def added(id, content):
    return {"id": id, "content": content, "single_word": False, "lstrip": False,
            "rstrip": False, "normalized": False, "special": True}


words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "quick", "fox", "dog", "bites", "man"]
cls_sep = {
    "type": "TemplateProcessing",
    "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
               {"Sequence": {"id": "A", "type_id": 0}},
               {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
    "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
    "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                       "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}},
}
write("tokenizer_json", "word_level.json", json.dumps({
    "version": "1.0", "truncation": None, "padding": None,
    "added_tokens": [added(i, w) for i, w in enumerate(words[:4])],
    "normalizer": {"type": "Lowercase"}, "pre_tokenizer": {"type": "Whitespace"},
    "post_processor": cls_sep, "decoder": None,
    "model": {"type": "WordLevel", "vocab": {w: i for i, w in enumerate(words)}, "unk_token": "[UNK]"},
}))
pieces = words + ["##s", "##ing", "b", "##ite"]
write("tokenizer_json", "word_piece.json", json.dumps({
    "version": "1.0", "truncation": None, "padding": None,
    "added_tokens": [added(i, w) for i, w in enumerate(words[:4])],
    "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                   "strip_accents": None, "lowercase": True},
    "pre_tokenizer": {"type": "BertPreTokenizer"},
    "post_processor": cls_sep, "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
    "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
              "max_input_chars_per_word": 100, "vocab": {w: i for i, w in enumerate(pieces)}},
}))
# Byte-level BPE in GPT-2's style, with bytes outside printable ASCII left to the alphabet.
alphabet = {}
printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
extra = 0
for byte in range(256):
    if byte in printable:
        alphabet[byte] = chr(byte)
    else:
        alphabet[byte] = chr(256 + extra)
        extra += 1
vocab = {alphabet[b]: b for b in range(256)}
for token in ["fo", "fox", "Ġf", "Ġfo", "Ġfox"]:
    vocab[token] = len(vocab)
byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": True}
write("tokenizer_json", "byte_level.json", json.dumps({
    "version": "1.0", "truncation": None, "padding": None,
    "added_tokens": [added(len(vocab), "<|endoftext|>")],
    "normalizer": None, "pre_tokenizer": byte_level, "post_processor": byte_level,
    "decoder": byte_level,
    "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
              "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
              "ignore_merges": False, "vocab": vocab,
              "merges": ["Ġ f", "Ġf o", "Ġfo x", "f o", "fo x"]},
}, ensure_ascii=False))
write("tokenizer_json", "unigram.json", json.dumps({
    "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
    "normalizer": None,
    "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
    "post_processor": None,
    "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
    "model": {"type": "Unigram", "unk_id": 0, "byte_fallback": False,
              "vocab": [["<unk>", 0.0], ["▁", -2.0], ["▁the", -1.0], ["▁fox", -1.5], ["f", -3.0],
                        ["o", -3.0], ["x", -3.0], ["t", -3.0], ["h", -3.0], ["e", -3.0]]},
}, ensure_ascii=False))

# Explorer sessions: a flags byte, then keys by their index in the target's KEYS table.
KEY = {"Enter": 65, "Right": 58, "Left": 57, "p": 15, "m": 12, "v": 21, "a": 0, "s": 18,
       "o": 14, "t": 19, "c": 2, "x": 23, "]": 48, "L": 27, "?": 44, "/": 45, "f": 5,
       "Tab": 66, "Backspace": 69, "1": 31, "2": 32, "End": 62}
def keys(*names):
    return bytes(KEY[name] for name in names)
write("explorer", "step_positions", b"\x00" + keys("Enter", "Right", "Right", "Right", "p", "m", "p"))
write("explorer", "words_attention", b"\x21" + keys("Enter", "a", "Right", "s", "o", "t", "x", "]", "c"))
write("explorer", "lesson", b"\x08" + keys("Enter", "1", "Enter", "2", "Enter", "Enter", "Left"))
write("explorer", "search_resize", b"\x01" + keys("Enter", "/", "f", "Enter", "v")
      + bytes([0xE0, 49, 15]) + keys("End") + bytes([0xE0, 219, 69]) + bytes([0xF3]) + "東a".encode()[:3])
# A burst of 1,000 Right arrows (0xD8: key, count / 8), then a burst that mixes keys, a resize
# and a paste (0xD0: the number of events that follow), each applied before one frame.
write("explorer", "bursts_resizes", b"\x00" + keys("Enter") + bytes([0xD8, KEY["Right"], 125])
      + bytes([0xD0, 6]) + keys("Left", "p") + bytes([0xE0, 30, 10]) + keys("a", "End")
      + bytes([0xF2]) + b"ab" + keys("Right"))

# Shard indexes: one that names the folder's own shard, and ones that reach outside it.
def index(shard):
    return json.dumps({"metadata": {"total_size": 32},
                       "weight_map": {"model.embed_tokens.weight": shard}})
write("index_json", "own_shard", index("model-00001-of-00001.safetensors"))
write("index_json", "parent", index("../outside.safetensors"))
write("index_json", "absolute", index("/etc/passwd"))
write("index_json", "link", index("link.safetensors"))
