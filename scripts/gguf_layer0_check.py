#!/usr/bin/env python3
"""A real GGUF file's layer 0 in transformers, beside `embedlens attention` on the same file.

Reads the file with the `gguf` package (dequantizing its weights as llama.cpp does), undoes
what llama.cpp's converter changed (the interleaved query and key rows of Llama-family files,
the 1 added to Gemma's norm weights), builds a one-layer Hugging Face model holding only the
rows of the given ids, runs layer 0 as scripts/layer0_reference.py does, and prints the largest
gaps from embedlens's JSON: attention weights absolute, outputs relative to each token's
largest number.

Usage (in a scratch virtual environment with torch, transformers and gguf):
    embedlens attention --model FILE.gguf "dog bites man" --format json > ours.json
    python scripts/gguf_layer0_check.py FILE.gguf ours.json [--no-positions]
"""

import argparse
import json
import pathlib
import sys

import gguf
import numpy as np
import torch
import transformers

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from layer0_reference import run  # noqa: E402


def tensors(reader):
    """Every tensor's numbers as float32, rows × cols (outermost first)."""
    out = {}
    for tensor in reader.tensors:
        shape = tuple(int(d) for d in reversed(tensor.shape.tolist()))
        values = gguf.quants.dequantize(tensor.data, tensor.tensor_type)
        out[tensor.name] = np.asarray(values, dtype=np.float32).reshape(shape)
    return out


def field(reader, key, default=None):
    found = reader.fields.get(key)
    if found is None:
        return default
    value = found.contents()
    return value[0] if isinstance(value, list) else value


def unpermute(rows, heads):
    """Undoes llama.cpp's `permute`: row 2k of a head goes back to k, row 2k + 1 to k + half."""
    width = rows.shape[0] // heads
    return (rows.reshape(heads, width // 2, 2, *rows.shape[1:])
            .swapaxes(1, 2).reshape(rows.shape))


def build(path, ids):
    reader = gguf.GGUFReader(path)
    arch = field(reader, "general.architecture")
    weights = tensors(reader)
    hidden = int(field(reader, f"{arch}.embedding_length"))
    heads = int(field(reader, f"{arch}.attention.head_count"))
    kv_heads = int(field(reader, f"{arch}.attention.head_count_kv", heads))
    head_dim = int(field(reader, f"{arch}.attention.key_length", hidden // heads))
    settings = dict(
        vocab_size=len(ids), hidden_size=hidden, num_hidden_layers=1,
        num_attention_heads=heads, num_key_value_heads=kv_heads, head_dim=head_dim,
        intermediate_size=8, max_position_embeddings=int(field(reader, f"{arch}.context_length")),
        rms_norm_eps=float(field(reader, f"{arch}.attention.layer_norm_rms_epsilon")),
        rope_theta=float(field(reader, f"{arch}.rope.freq_base", 10000.0)),
    )
    norm_shift = 0.0
    if arch == "llama":
        config = transformers.LlamaConfig(**settings)
    elif arch == "qwen2":
        config = transformers.Qwen2Config(**settings)
    elif arch == "qwen3":
        config = transformers.Qwen3Config(**settings)
    elif arch == "gemma":
        config = transformers.GemmaConfig(**settings)
        norm_shift = 1.0
    elif arch == "gemma2":
        settings["sliding_window"] = int(field(reader, f"{arch}.attention.sliding_window", 4096))
        settings["query_pre_attn_scalar"] = head_dim
        settings["attn_logit_softcapping"] = float(field(reader, f"{arch}.attn_logit_softcapping"))
        config = transformers.Gemma2Config(**settings)
        norm_shift = 1.0
    elif arch == "gemma3":
        settings["rope_local_base_freq"] = 10000.0
        settings["sliding_window"] = int(field(reader, f"{arch}.attention.sliding_window", 4096))
        settings["query_pre_attn_scalar"] = head_dim
        config = transformers.Gemma3TextConfig(**settings)
        norm_shift = 1.0
    else:
        raise SystemExit(f"{path}: architecture {arch} is not one this script maps")
    model = transformers.AutoModel.from_config(config, attn_implementation="eager")
    names = {
        "embed_tokens.weight": "token_embd.weight",
        "layers.0.input_layernorm.weight": "blk.0.attn_norm.weight",
        "layers.0.self_attn.q_proj.weight": "blk.0.attn_q.weight",
        "layers.0.self_attn.k_proj.weight": "blk.0.attn_k.weight",
        "layers.0.self_attn.v_proj.weight": "blk.0.attn_v.weight",
        "layers.0.self_attn.q_proj.bias": "blk.0.attn_q.bias",
        "layers.0.self_attn.k_proj.bias": "blk.0.attn_k.bias",
        "layers.0.self_attn.v_proj.bias": "blk.0.attn_v.bias",
        "layers.0.self_attn.q_norm.weight": "blk.0.attn_q_norm.weight",
        "layers.0.self_attn.k_norm.weight": "blk.0.attn_k_norm.weight",
    }
    parameters = dict(model.named_parameters())
    with torch.no_grad():
        for ours, theirs in names.items():
            if theirs not in weights:
                continue
            values = weights[theirs]
            if ours.startswith("embed_tokens"):
                values = values[ids]
            if arch == "llama" and "q_proj" in ours:
                values = unpermute(values, heads)
            if arch == "llama" and "k_proj" in ours:
                values = unpermute(values, kv_heads)
            if "norm" in ours:
                values = values - np.float32(norm_shift)
            parameters[ours].copy_(torch.from_numpy(np.ascontiguousarray(values)))
    if "rope_freqs.weight" in weights:
        # Llama 3's scaling, as the converter stores it: each pair's angle divided.
        divisors = torch.from_numpy(weights["rope_freqs.weight"].reshape(-1))
        rotary = model.rotary_emb
        rotary.inv_freq = rotary.inv_freq / divisors
        rotary.original_inv_freq = rotary.inv_freq
    model.eval()
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gguf")
    parser.add_argument("embedlens_json")
    parser.add_argument("--no-positions", action="store_true")
    args = parser.parse_args()
    ours = json.loads(pathlib.Path(args.embedlens_json).read_text())
    ids = [token["id"] for token in ours["tokens"]]
    model = build(args.gguf, ids)
    theirs = run(model, list(range(len(ids))), not args.no_positions)
    weight_gap = max(
        abs(a - b)
        for head, expected in zip(ours["heads"], theirs["weights"])
        for row_a, row_b in zip(head["weights"], expected)
        for a, b in zip(row_a, row_b))
    output_gap = 0.0
    for token, expected in zip(ours["tokens"], theirs["outputs"]):
        size = max(abs(v) for v in expected)
        output_gap = max(output_gap, max(abs(a - b) for a, b in zip(token["output"], expected)) / size)
    print(f"{args.gguf}: ids {ids}, positions {not args.no_positions}: "
          f"weights within {weight_gap:.1e}, outputs within {output_gap:.1e} (relative)")


if __name__ == "__main__":
    main()
