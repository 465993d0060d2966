"""Writes the GGUF reference fixtures: a small GGUF file holding one 2×256 table in each type
embedlens reads, and the f32 values the reference implementation dequantizes them to.

Run in a scratch virtual environment, never inside the repository:

    python3 -m venv /tmp/venv-gguf && /tmp/venv-gguf/bin/pip install gguf numpy
    /tmp/venv-gguf/bin/python scripts/gguf_reference.py tests/fixtures/gguf

The committed files were made with gguf 0.19.0 and numpy 2.4.6.

The file is written by the `gguf` package's own GGUFWriter, and the expected values come from
`gguf.quants.dequantize` (the Python port of ggml's reference code), so the Rust reader is
checked against both. Types the package can quantize (F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0,
Q5_1) are quantized from known values: a seeded normal sample. The `_K` types, which the
package can only dequantize, get seeded random block bytes with finite f16 scales, which
exercises every bit of their layouts.
"""

import json
import sys
from pathlib import Path

import gguf
import numpy as np
from gguf import GGMLQuantizationType as T
from gguf.quants import dequantize, quantize

ROWS, COLS = 2, 256
QUANTIZED_FROM_VALUES = [T.F32, T.F16, T.BF16, T.Q8_0, T.Q4_0, T.Q4_1, T.Q5_0, T.Q5_1]
RANDOM_BLOCKS = [T.Q2_K, T.Q3_K, T.Q4_K, T.Q5_K, T.Q6_K]
# Where each K type keeps its f16 scales, as byte offsets within a block.
SCALE_OFFSETS = {T.Q2_K: [80, 82], T.Q3_K: [108], T.Q4_K: [0, 2], T.Q5_K: [0, 2], T.Q6_K: [208]}


def known_values(rng):
    values = rng.standard_normal((ROWS, COLS)).astype(np.float32)
    values[0, :4] = [0.0, -0.0, 1.0, -1.0]
    return values


def random_blocks(rng, qtype):
    block_size, type_size = gguf.GGML_QUANT_SIZES[qtype]
    blocks = rng.integers(0, 256, size=(ROWS * COLS // block_size, type_size), dtype=np.uint8)
    for offset in SCALE_OFFSETS[qtype]:
        scales = rng.uniform(-0.05, 0.05, size=len(blocks)).astype(np.float16)
        blocks[:, offset:offset + 2] = scales.view(np.uint8).reshape(-1, 2)
    return blocks.reshape(ROWS, -1)


def main(out):
    rng = np.random.default_rng(20261130)
    writer = gguf.GGUFWriter(out / "reference.gguf", "llama")
    writer.add_uint32("llama.context_length", 16)
    writer.add_uint32("llama.embedding_length", COLS)
    writer.add_float32("llama.rope.freq_base", 10000.0)
    writer.add_string("general.name", "embedlens reference")
    writer.add_array("tokenizer.ggml.tokens", ["a", "b"])
    expected = {}
    for qtype in QUANTIZED_FROM_VALUES + RANDOM_BLOCKS:
        if qtype in RANDOM_BLOCKS:
            data = random_blocks(rng, qtype)
        else:
            data = quantize(known_values(rng), qtype)
        if data.dtype != np.uint8:
            data = data.view(np.uint8).reshape(ROWS, -1)
        name = f"{qtype.name.lower()}.weight"
        writer.add_tensor(name, data, raw_dtype=qtype)
        values = dequantize(data, qtype).astype(np.float32).reshape(ROWS, COLS)
        expected[name] = {
            "type": qtype.name,
            "rows": ROWS,
            "cols": COLS,
            # Each row's f32 bit patterns as 8-digit hex words: exact, NaN and -0.0 included.
            "bits": [" ".join(f"{v:08x}" for v in row) for row in values.view(np.uint32)],
        }
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    (out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
