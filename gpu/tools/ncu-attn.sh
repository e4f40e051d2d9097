#!/usr/bin/env bash
# Nsight Compute profile (full set, clocks left as they are) of the attention kernel on a few
# shapes: OUTDIR/ncu-attn.ncu-rep and its raw metrics as CSV (L2 and DRAM bytes, tensor-pipe and
# MUFU activity, stall reasons), so the simulator's traffic and utilisation can be checked against
# the hardware's counters without ncu installed here.
# Usage: gpu/tools/ncu-attn.sh BIN_DIR OUTDIR [CASES]
set -u
bin=${1:?usage: ncu-attn.sh BIN_DIR OUTDIR [CASES]}
out=${2:?usage: ncu-attn.sh BIN_DIR OUTDIR [CASES]}
cases=${3:-llama3-8b-s2048,llama3-405b-s1024,llama3-405b-s8192}
mkdir -p "$out"
NCU=$(command -v ncu || true)
[ -n "$NCU" ] || NCU=$(ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -n "$NCU" ] || { echo "ncu not found" >&2; exit 1; }
"$NCU" --version
"$NCU" --clock-control none --set full -k regex:attn_fwd --export "$out/ncu-attn" --force-overwrite \
  "$bin/simfa-attn" time --cases "$cases" --runs 1 --warmup 0 --no-mha --out /dev/null || exit 1
"$NCU" --import "$out/ncu-attn.ncu-rep" --csv --page raw > "$out/ncu-attn-raw.csv" || exit 1
"$NCU" --import "$out/ncu-attn.ncu-rep" --csv --page details > "$out/ncu-attn-details.csv" || exit 1
