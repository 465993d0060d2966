#!/usr/bin/env python3
"""Small checkpoints of each family, and what Hugging Face transformers makes of their layer 0.

Writes tests/fixtures/layer0/<name>/{config.json, model.safetensors, reference.json}. Each
checkpoint is a one-layer model whose every parameter is drawn from a seeded normal
distribution (so biases and norm weights are not the zeros and ones of a fresh model).
reference.json holds, for the same token ids, the layer-0 attention weights of every head and
the self-attention module's output before its output projection (all heads' contexts side by
side), computed by transformers in float32 with eager attention:

- with the model's positions;
- without them: BERT and GPT-2 with their position table set to zeros (adding zeros changes
  no bit), RoPE models with every position id 0 (a rotation by nothing).

Usage (in a scratch virtual environment with torch, transformers, safetensors):
    python scripts/layer0_reference.py            # all families
    python scripts/layer0_reference.py --only gemma3  # one family
    python scripts/layer0_reference.py --check DIR  # one real checkpoint folder: prints JSON
"""

import argparse
import json
import pathlib
import sys

import torch
import transformers

ROOT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "layer0"

# A sentence with a repeated id (10) and a repeated first/last id (3).
IDS = [3, 10, 7, 10, 25, 3, 60]

FAMILIES = {
    "bert": (
        transformers.BertConfig,
        dict(vocab_size=64, hidden_size=32, num_hidden_layers=1, num_attention_heads=4,
             intermediate_size=37, max_position_embeddings=24, type_vocab_size=2),
        torch.float32,
    ),
    "gpt2": (
        transformers.GPT2Config,
        dict(vocab_size=64, n_embd=32, n_layer=1, n_head=4, n_positions=24),
        torch.float32,
    ),
    "llama_gqa_bf16": (
        transformers.LlamaConfig,
        dict(vocab_size=64, hidden_size=32, num_hidden_layers=1, num_attention_heads=4,
             num_key_value_heads=2, intermediate_size=37, max_position_embeddings=64,
             rms_norm_eps=1e-5, rope_theta=500.0),
        torch.bfloat16,
    ),
    "qwen2_biases_f16": (
        transformers.Qwen2Config,
        dict(vocab_size=64, hidden_size=32, num_hidden_layers=1, num_attention_heads=4,
             num_key_value_heads=2, intermediate_size=37, max_position_embeddings=64,
             rms_norm_eps=1e-6, rope_theta=1000000.0),
        torch.float16,
    ),
    "stablelm_partial_rotary": (
        transformers.StableLmConfig,
        dict(vocab_size=64, hidden_size=32, num_hidden_layers=1, num_attention_heads=4,
             num_key_value_heads=4, intermediate_size=37, max_position_embeddings=64,
             partial_rotary_factor=0.5, use_qkv_bias=True, layer_norm_eps=1e-5,
             rope_theta=10000.0),
        torch.float32,
    ),
    "gemma": (
        transformers.GemmaConfig,
        dict(vocab_size=64, hidden_size=32, num_hidden_layers=1, num_attention_heads=4,
             num_key_value_heads=1, head_dim=16, intermediate_size=37,
             max_position_embeddings=64, rms_norm_eps=1e-6, rope_theta=10000.0),
        torch.float32,
    ),
    # Layer 0 is a sliding-attention layer: its RoPE base is rope_local_base_freq (10000), not
    # rope_theta; q_norm and k_norm normalise each head; scores are scaled by
    # query_pre_attn_scalar^-1/2. Both are the values llama.cpp assumes for Gemma 3, so the
    # same checkpoint converted to GGUF must give the same numbers.
    "gemma3": (
        transformers.Gemma3TextConfig,
        dict(vocab_size=64, hidden_size=32, num_hidden_layers=1, num_attention_heads=4,
             num_key_value_heads=2, head_dim=16, intermediate_size=37,
             max_position_embeddings=64, rms_norm_eps=1e-6, rope_theta=1000000.0,
             rope_local_base_freq=10000.0, query_pre_attn_scalar=16, sliding_window=32),
        torch.bfloat16,
    ),
    # Llama 3's frequency-dependent RoPE scaling, with an original context short enough that
    # this small head has a fast, a smoothed and a slow pair (wavelengths 6, 30, 140, 664).
    "llama3_rope_scaling": (
        transformers.LlamaConfig,
        dict(vocab_size=64, hidden_size=32, num_hidden_layers=1, num_attention_heads=4,
             num_key_value_heads=2, intermediate_size=37, max_position_embeddings=1024,
             rms_norm_eps=1e-5, rope_theta=500.0,
             rope_scaling=dict(rope_type="llama3", factor=8.0, low_freq_factor=1.0,
                               high_freq_factor=4.0, original_max_position_embeddings=256)),
        torch.float32,
    ),
    # Qwen3: a plain RMSNorm of each query and key head (q_norm, k_norm), heads wider than
    # hidden / heads.
    "qwen3": (
        transformers.Qwen3Config,
        dict(vocab_size=64, hidden_size=32, num_hidden_layers=1, num_attention_heads=4,
             num_key_value_heads=2, head_dim=16, intermediate_size=37,
             max_position_embeddings=64, rms_norm_eps=1e-6, rope_theta=1000000.0),
        torch.bfloat16,
    ),
    # Gemma 2: scores scaled by query_pre_attn_scalar^-1/2 and capped by a small
    # attn_logit_softcapping (so the cap changes them); layer 0 slides over 32 tokens.
    "gemma2": (
        transformers.Gemma2Config,
        dict(vocab_size=64, hidden_size=32, num_hidden_layers=1, num_attention_heads=4,
             num_key_value_heads=2, head_dim=16, intermediate_size=37,
             max_position_embeddings=64, rms_norm_eps=1e-6, rope_theta=10000.0,
             query_pre_attn_scalar=16, attn_logit_softcapping=1.5, sliding_window=32),
        torch.float32,
    ),
}


def randomise(model, seed):
    """Every parameter from a seeded normal distribution, embeddings wider than the rest."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, parameter in sorted(model.named_parameters()):
            scale = 1.0 if "emb" in name or "wte" in name or "wpe" in name else 0.3
            values = torch.randn(parameter.shape, generator=generator) * scale
            parameter.copy_(values.to(parameter.dtype))


def base_of(model):
    """The bare transformer inside a model with a head (or the model itself)."""
    return getattr(model, "base_model", model)


def attention_module(model):
    """Layer 0's self-attention module, and the module its output projection is."""
    base = base_of(model)
    if hasattr(base, "encoder"):  # BERT
        return base.encoder.layer[0].attention.self, None
    if hasattr(base, "h"):  # GPT-2
        attention = base.h[0].attn
        return attention, attention.c_proj
    attention = base.layers[0].self_attn  # Llama-style
    projection = getattr(attention, "o_proj", None) or getattr(attention, "dense", None)
    return attention, projection


def run(model, ids, with_positions):
    """Layer 0's weights (heads × T × T) and output (T × heads·head_dim) for one sentence."""
    base = base_of(model)
    attention, projection = attention_module(model)
    captured = {}

    def keep_output(module, args, output):
        captured["context"] = output[0].detach().clone()

    def keep_input(module, args):
        captured["context"] = args[0].detach().clone()

    if projection is None:
        handle = attention.register_forward_hook(keep_output)
    else:
        handle = projection.register_forward_pre_hook(keep_input)
    tensor = torch.tensor([ids])
    kwargs = dict(output_attentions=True)
    saved = None
    table = None
    if not with_positions:
        if hasattr(base, "embeddings"):
            table = base.embeddings.position_embeddings.weight
        elif hasattr(base, "wpe"):
            table = base.wpe.weight
        else:
            kwargs["position_ids"] = torch.zeros_like(tensor)
        if table is not None:
            saved = table.detach().clone()
            with torch.no_grad():
                table.zero_()
    try:
        with torch.no_grad():
            output = base(input_ids=tensor, **kwargs)
    finally:
        handle.remove()
        if saved is not None:
            with torch.no_grad():
                table.copy_(saved)
    weights = output.attentions[0][0]
    context = captured["context"][0]
    return {
        "weights": weights.double().tolist(),
        "outputs": context.reshape(len(ids), -1).double().tolist(),
    }


def reference(model, ids):
    model.eval()
    return {
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "ids": ids,
        "with_positions": run(model, ids, True),
        "without_positions": run(model, ids, False),
    }


# Word-level tokenizers for the BERT and GPT-2 checkpoints, so the command line can read
# "the dog bites the man"; the reference values use ids and do not depend on them.
WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "dog", "bites", "man", "fox", "a"]
WORDS += [f"w{i}" for i in range(len(WORDS), 64)]


def word_tokenizer(special):
    vocab = {word: index for index, word in enumerate(WORDS)}
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
        "normalizer": None, "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None,
        "decoder": None, "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"},
    }
    if special:
        tokenizer["added_tokens"] = [
            {"id": i, "content": WORDS[i], "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": False, "special": True} for i in range(4)]
        tokenizer["post_processor"] = {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {
                "[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]},
            },
        }
    return tokenizer


def write_families(only=None):
    for seed, (name, (config_class, settings, dtype)) in enumerate(FAMILIES.items()):
        if only is not None and name != only:
            continue
        torch.manual_seed(seed)
        config = config_class(**settings)
        model = transformers.AutoModel.from_config(config, attn_implementation="eager")
        randomise(model, seed)
        folder = ROOT / name
        folder.mkdir(parents=True, exist_ok=True)
        model.to(dtype).save_pretrained(folder, safe_serialization=True)
        # The reference runs the saved numbers in float32, as embedlens does.
        loaded = transformers.AutoModel.from_pretrained(
            folder, dtype=torch.float32, attn_implementation="eager")
        values = reference(loaded, IDS)
        (folder / "reference.json").write_text(json.dumps(values) + "\n")
        if name in ("bert", "gpt2"):
            tokenizer = word_tokenizer(special=name == "bert")
            (folder / "tokenizer.json").write_text(json.dumps(tokenizer, indent=1) + "\n")
        print(f"{name}: {folder}")


def check(folder, text_or_ids):
    """A real checkpoint: layer 0 for the given ids, as JSON on standard output."""
    ids = [int(i) for i in text_or_ids.split(",")]
    model = transformers.AutoModel.from_pretrained(
        folder, dtype=torch.float32, attn_implementation="eager")
    json.dump(reference(model, ids), sys.stdout)
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", metavar="DIR", help="a real checkpoint folder")
    parser.add_argument("--only", metavar="NAME", help="write one family's fixture only")
    parser.add_argument("--ids", default="101,3899,7087,2158,102",
                        help="comma-separated token ids for --check")
    args = parser.parse_args()
    if args.check:
        check(args.check, args.ids)
    else:
        write_families(args.only)


if __name__ == "__main__":
    main()
