"""Checks embedlens against the reference on a real GGUF file, as a user would see it.

    python3 -m venv /tmp/venv-gguf && /tmp/venv-gguf/bin/pip install gguf numpy tokenizers
    /tmp/venv-gguf/bin/python scripts/gguf_check_real.py MODEL.gguf target/debug/embedlens \
        [--tokenizer tokenizer.json]

Rows: every 997th id of token_embd.weight (and the first and last), read by `embedlens lookup
--ids ... --format json`, must equal `gguf.quants.dequantize` of the same rows bit for bit; so
must the rows of each `--tensor NAME` (read as the token table with `--token-tensor`), to reach
the quantized types a file keeps for its other weights.
Ids: with a published tokenizer.json, `embedlens lookup --model MODEL.gguf` (which rebuilds the
tokenizer from the file's metadata) must give the same ids as that file for each sample text.
"""

import argparse
import json
import subprocess

import numpy as np
from gguf import GGUFReader
from gguf.quants import dequantize

TEXTS = [
    "The quick brown fox jumps over the lazy dog.",
    "fox bites the fox",
    "In 2026 there were 12345 foxes; 3.14159 of them were zebras.",
    "Café naïve résumé, 東京 and 大阪, Ärger über Öl",
    "emoji 🦊🐶🧪 and ∑ ∫ ≠ ∞",
    "Tabs\tand  double  spaces\n\nnew lines\r\nand   three",
    "I'm sure they'LL say we've DONE it",
]


def embedlens(binary, model, *args):
    out = subprocess.run([binary, "lookup", "--model", model, "--format", "json", *args],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["tokens"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("binary")
    parser.add_argument("--tokenizer")
    parser.add_argument("--tensor", action="append", default=[])
    args = parser.parse_args()

    reader = GGUFReader(args.model)
    for name in ["token_embd.weight", *args.tensor]:
        table = next(t for t in reader.tensors if t.name == name)
        rows = int(table.shape[1])
        ids = sorted({0, rows - 1, *range(0, rows, 997 if rows > 5000 else 97)})
        chosen = [] if name == "token_embd.weight" else ["--token-tensor", name]
        tokens = embedlens(args.binary, args.model, *chosen, "--ids", ",".join(map(str, ids)))
        for id, token in zip(ids, tokens):
            want = dequantize(np.asarray(table.data[id:id + 1]), table.tensor_type).astype(np.float32).ravel()
            got = np.array(token["token_vector"], dtype=np.float32)
            assert token["id"] == id
            assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), f"{name} row {id} differs"
        print(f"rows: {len(ids)} rows of {name} ({table.tensor_type.name}, {rows}×{table.shape[0]}) "
              "equal gguf.quants.dequantize bit for bit")

    if args.tokenizer:
        from tokenizers import Tokenizer

        published = Tokenizer.from_file(args.tokenizer)
        for text in TEXTS:
            want = published.encode(text, add_special_tokens=False).ids
            got = [token["id"] for token in embedlens(args.binary, args.model, "--no-special-tokens", text)]
            assert got == want, f"{text!r}: embedlens {got}, tokenizer.json {want}"
        print(f"ids: {len(TEXTS)} texts tokenize to the ids of {args.tokenizer}")


if __name__ == "__main__":
    main()
