#!/usr/bin/env bash
# Fetches llama.cpp's tokenizer test vocabularies (models/ggml-vocab-*.gguf) for the conformance
# test tests/llama_vocab.rs, from the source distribution of llama-cpp-python on PyPI, pinned by
# version and sha256. The vocabularies are 75 MB (22 MB compressed), too large to keep in git;
# their test strings and expected ids (.inp/.out, a few kB each) are kept in
# tests/fixtures/llama-vocab/, and checked here to be the package's own, every one of them. The files land in tests/fixtures/llama-vocab/gguf/ (ignored by git).
#
# Needs python3 with pip and PyPI (pip prepares the package's metadata, fetching its build tools
# as wheels; nothing is installed). Usage: scripts/fetch_llama_vocab.sh
set -euo pipefail
cd "$(dirname "$0")/.."

version=0.3.36
sha256=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
target=tests/fixtures/llama-vocab/gguf

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps --no-binary llama-cpp-python \
    "llama-cpp-python==$version" -d "$work"
archive="$work/llama_cpp_python-$version.tar.gz"
echo "$sha256  $archive" | sha256sum --check --quiet
mkdir -p "$target"
tar -xzf "$archive" -C "$work" --wildcards \
    "llama_cpp_python-$version/vendor/llama.cpp/models/ggml-vocab-*.gguf" \
    "llama_cpp_python-$version/vendor/llama.cpp/models/ggml-vocab-*.gguf.inp" \
    "llama_cpp_python-$version/vendor/llama.cpp/models/ggml-vocab-*.gguf.out" \
    "llama_cpp_python-$version/vendor/llama.cpp/LICENSE"
# Every test string and expected id the package holds must be the fixture's, byte for byte.
for file in "$work/llama_cpp_python-$version/vendor/llama.cpp/models/"ggml-vocab-*.gguf.{inp,out}; do
    name=$(basename "$file")
    name=${name#ggml-vocab-}
    fixture="tests/fixtures/llama-vocab/${name/.gguf/}"
    cmp --quiet "$file" "$fixture" || {
        echo "$fixture differs from (or lacks) the package's $(basename "$file")" >&2
        exit 1
    }
done
for file in "$work/llama_cpp_python-$version/vendor/llama.cpp/models/"ggml-vocab-*.gguf; do
    name=$(basename "$file" .gguf)
    cp "$file" "$target/${name#ggml-vocab-}.gguf"
done
cp "$work/llama_cpp_python-$version/vendor/llama.cpp/LICENSE" "$target/LICENSE"
echo "llama.cpp's vocabularies (llama-cpp-python $version) are in $target:"
ls "$target"
