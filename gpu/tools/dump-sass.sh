#!/usr/bin/env bash
# Disassembles the kit's kernels (cuobjdump -sass) into OUTDIR/sass-<binary>.txt, with an
# instruction histogram per kernel: the attention kernel's softmax instruction mix and the
# benchmarks' inner loops can then be read without a GPU.
# Usage: gpu/tools/dump-sass.sh BIN_DIR OUTDIR
set -u
bin=${1:?usage: dump-sass.sh BIN_DIR OUTDIR}
out=${2:?usage: dump-sass.sh BIN_DIR OUTDIR}
mkdir -p "$out"
CUOBJDUMP=$(command -v cuobjdump || true)
[ -n "$CUOBJDUMP" ] || { [ -x /usr/local/cuda/bin/cuobjdump ] && CUOBJDUMP=/usr/local/cuda/bin/cuobjdump; }
[ -n "$CUOBJDUMP" ] || { echo "cuobjdump not found" >&2; exit 1; }
rc=0
for b in simfa-attn simfa-ubench-interference simfa-ubench-sharing simfa-ubench-pipes simfa-ubench-clock simfa-ubench-wgmma; do
  [ -x "$bin/$b" ] || { echo "missing $bin/$b" >&2; rc=1; continue; }
  "$CUOBJDUMP" -sass "$bin/$b" > "$out/sass-$b.txt" 2>&1 || rc=1
  # Histogram: opcode counts per kernel (Function headers start a kernel).
  awk '/Function :/ { k = $3 } /\/\*[0-9a-f]+\*\// { for (i = 1; i <= NF; ++i) if ($i ~ /^[A-Z][A-Z0-9_.]+$/ && $i !~ /^(R|P|UR|UP|PT|RZ|URZ)[0-9Z]*$/) { split($i, o, "."); n[k "\t" o[1]]++; break } }
       END { for (x in n) print x "\t" n[x] }' "$out/sass-$b.txt" | sort > "$out/sass-$b-histogram.tsv"
done
exit $rc
