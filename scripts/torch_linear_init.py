"""Reference weights of the book's SelfAttention_v2, for tests/fixtures/torch-linear-init.json.

torch.manual_seed(seed), then nn.Linear(d_in, d_out, bias=False) three times (W_query, W_key,
W_value, in that order), as SelfAttention_v2(d_in, d_out, qkv_bias=False) creates them. Each
weight is stored as PyTorch holds it, d_out x d_in, as float32 bit patterns.

Run: python scripts/torch_linear_init.py > tests/fixtures/torch-linear-init.json
"""

import json

import numpy as np
import torch

CASES = [(123, 3, 3), (123, 3, 2), (789, 5, 4), (1, 16, 16), (42, 33, 7), (123, 48, 16)]


def linear_bits(layer):
    weight = layer.weight.detach().numpy().astype(np.float32)
    return weight.view(np.uint32).tolist()


def main():
    cases = {}
    for seed, d_in, d_out in CASES:
        torch.manual_seed(seed)
        layers = [torch.nn.Linear(d_in, d_out, bias=False) for _ in range(3)]
        cases[f"seed{seed}_{d_in}x{d_out}"] = {
            "seed": seed,
            "d_in": d_in,
            "d_out": d_out,
            "bits": [linear_bits(layer) for layer in layers],
        }
    about = (
        f"PyTorch {torch.__version__} on the CPU: torch.manual_seed(seed), then "
        "nn.Linear(d_in, d_out, bias=False) for W_query, W_key and W_value in that order. "
        "'bits' holds each weight (d_out rows of d_in) as float32 bit patterns."
    )
    print(json.dumps({"about": about, "cases": cases}))


if __name__ == "__main__":
    main()
