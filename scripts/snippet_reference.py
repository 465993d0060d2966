#!/usr/bin/env python3
"""Runs embedlens's PyTorch snippets with real PyTorch and keeps what they compute.

For each case below, `embedlens snippet ARGS` prints a script; this runs it with PyTorch (and
transformers for the model cases) and writes tests/fixtures/snippet/<case>.json holding the
arguments, the script's text (the checkout's folder written {ROOT}), what it printed, and every
variable the snippet leaves (ids, token_vectors, position_vectors, input_vectors, distance,
attention_weights, attention_outputs and B's), each float32 exactly as PyTorch holds it.
tests/snippet_reference.rs compares embedlens's own numbers with them (bit for bit for the
built-in tables, within 1e-5 for a model) and the snippet's text with the script run here, so a
changed snippet needs this script run again.

Versions it was run with (pinned; other versions may print or compute otherwise):
    torch==2.15.0  transformers==5.24.0  safetensors==0.8.0  (Python 3.11, x86-64 CPU)

Usage, in a scratch virtual environment with those packages and a built embedlens:
    cargo build
    python scripts/snippet_reference.py [--embedlens target/debug/embedlens] [--only CASE]
"""

import argparse
import contextlib
import io
import json
import pathlib
import subprocess

import torch
import transformers

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "snippet"

CASES = {
    "seed": ["fox bites the fox"],
    "seed_learned_head": ["fox bites the fox", "--positions", "learned", "--attention"],
    "seed_learned_head_causal": [
        "fox bites the fox", "--positions", "learned", "--attention", "--causal"],
    "words_sinusoidal_head": [
        "--vocab", "words", "the cat sat on the mat, the cat slept.", "--positions",
        "sinusoidal", "--attention"],
    "words_rope_head": [
        "--vocab", "words", "the dog bites the dog", "--positions", "rope", "--attention"],
    "words_alibi_head_causal": [
        "--vocab", "words", "the dog bites the dog", "--positions", "alibi", "--attention",
        "--causal"],
    "gpt2_dim16_seed7_learned": [
        "--vocab", "gpt2", "--dim", "16", "--seed", "7", "fox bites the fox", "--positions",
        "learned"],
    "compare_seed": ["dog bites man", "--compare", "man bites dog"],
    "compare_words_learned": [
        "--vocab", "words", "the dog bites the man", "--compare", "the man bites the dog",
        "--positions", "learned"],
    "bert_learned_layer0": [
        "--model", "tests/fixtures/layer0/bert", "the dog bites the man", "--positions",
        "learned", "--attention", "--head", "1"],
    "bert_layer0_without_positions": [
        "--model", "tests/fixtures/layer0/bert", "the dog bites the man", "--attention"],
    "llama_rope_layer0": [
        "--model", "tests/fixtures/layer0/llama_gqa_bf16", "--ids", "3,10,7,10,25,3,60",
        "--positions", "rope", "--attention"],
    # No tokenizer beside this checkpoint: its sentences are ids typed as numbers.
    "llama_compare_layer0": [
        "--model", "tests/fixtures/layer0/llama_gqa_bf16", "3 10 7 10", "--compare", "10 7 10 3",
        "--positions", "rope"],
}

# The variables a snippet may leave.
NAMES = [
    "ids", "token_vectors", "position_vectors", "input_vectors", "distance",
    "attention_weights", "attention_outputs", "ids_b", "token_vectors_b", "position_vectors_b",
    "input_vectors_b", "attention_weights_b", "attention_outputs_b",
]


def plain(value):
    """A tensor as nested lists of Python numbers (float32 read exactly as float64)."""
    if isinstance(value, torch.Tensor):
        return value.double().tolist() if value.is_floating_point() else value.tolist()
    return value


def run_case(embedlens, name, args):
    script = subprocess.run(
        [embedlens, "snippet", *args], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    namespace = {"__name__": "__main__"}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(script, f"<snippet {name}>", "exec"), namespace)
    values = {key: plain(namespace[key]) for key in NAMES if key in namespace}
    return {
        "args": args,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "script": script.replace(str(ROOT), "{ROOT}"),
        "printed": printed.getvalue().replace(str(ROOT), "{ROOT}"),
        "values": values,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedlens", default=str(ROOT / "target" / "debug" / "embedlens"))
    parser.add_argument("--only", metavar="CASE")
    options = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    for name, args in CASES.items():
        if options.only and name != options.only:
            continue
        fixture = run_case(options.embedlens, name, args)
        (OUT / f"{name}.json").write_text(json.dumps(fixture, indent=1) + "\n")
        print(f"{name}: {sorted(fixture['values'])}")


if __name__ == "__main__":
    main()
