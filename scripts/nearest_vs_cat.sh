#!/usr/bin/env bash
# `embedlens nearest` against `cat FILE > /dev/null`, whole processes on a warm page cache, in
# interleaved rounds (issue 21, item 4: the target is 1.5 x cat). Prints each round's wall times
# and ratio, then the medians and their ratio, with the load average before and after.
#
# The table is a 256,000 x 2,048 bf16 token table in a safetensors file (1 GiB, Gemma's shape;
# the rows from byte 128), written once by python3 from a seeded generator into
# target/bench-models/ (ignored by git) unless it is there. Build first: cargo build --release.
#
# Usage: scripts/nearest_vs_cat.sh [ROUNDS (default 10)] [FILE]
# Measure with the machine otherwise quiet (`uptime`): the two threads of the scan need both
# cores, and `cat` needs one.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${1:-10}
file=${2:-target/bench-models/nearest-256000x2048-bf16.safetensors}
binary=target/release/embedlens
[ -x "$binary" ] || { echo "no $binary: run cargo build --release first" >&2; exit 1; }

if [ ! -f "$file" ]; then
    mkdir -p "$(dirname "$file")"
    python3 - "$file" <<'PYTHON'
import random, struct, sys
rows, dims = 256000, 2048
path = sys.argv[1]
size = rows * dims * 2
header = ('{"model.embed_tokens.weight":{"dtype":"BF16","shape":[%d,%d],"data_offsets":[0,%d]}}'
          % (rows, dims, size)).encode()
header += b' ' * (120 - len(header))  # the rows start at byte 8 + 120 = 128
# Each number's high byte keeps its sign and sets an exponent between 2^-8 and 2^-5, so every
# number is finite and no row has length zero.
high = bytes((b & 0x80) | (0x3B + (b & 0x03)) for b in range(256))
generator = random.Random(21)
with open(path + '.part', 'wb') as out:
    out.write(struct.pack('<Q', len(header)) + header)
    piece = 8 << 20
    for start in range(0, size, piece):
        numbers = bytearray(generator.randbytes(min(piece, size - start)))
        numbers[1::2] = bytes(numbers[1::2]).translate(high)
        out.write(numbers)
import os
os.rename(path + '.part', path)
PYTHON
fi

nearest=("$binary" nearest --model "$file" --id 4321 --top 5)
# Warm: the whole file in the page cache, and the binary too.
cat "$file" > /dev/null
cat "$file" > /dev/null
"${nearest[@]}" > /dev/null

milliseconds() {
    local start end
    start=$(date +%s%N)
    "$@" > /dev/null
    end=$(date +%s%N)
    echo $(( (end - start) / 1000 ))
}

echo "load before: $(uptime)"
echo "one run's stages: $("${nearest[@]}" --timings 2>&1 > /dev/null)"
cats=() scans=()
for ((round = 1; round <= rounds; round++)); do
    c=$(milliseconds cat "$file")
    n=$(milliseconds "${nearest[@]}")
    cats+=("$c") scans+=("$n")
    awk -v r="$round" -v c="$c" -v n="$n" \
        'BEGIN { printf "round %2d: cat %6.1f ms, nearest %6.1f ms, %.2f x\n", r, c / 1000, n / 1000, n / c }'
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mc=$(median "${cats[@]}")
mn=$(median "${scans[@]}")
awk -v c="$mc" -v n="$mn" -v r="$rounds" \
    'BEGIN { printf "median of %d rounds: cat %.1f ms, nearest %.1f ms: nearest / cat = %.2f (target 1.5)\n", r, c / 1000, n / 1000, n / c }'
echo "load after: $(uptime)"
