#!/usr/bin/env bash
# One visit to a GPU machine (Hopper, x86-64, CUDA + nvcc): build if needed, correctness check,
# microbenchmarks, kernel timings, instrumentation logs and a GPU description, all written into one
# output folder with a manifest. Every step runs under `timeout` and the run goes on after a failed
# step; the whole run stays under a budget (default 340 s, below the six-minute limit).
#
# Usage: gpu/run-checks.sh [options] [OUTDIR]        (OUTDIR defaults to $OUT, else ./gpu-results)
#   --dry-run          check arguments and toolchain, write the layout and the step plan; run nothing
#   --quick            shorter sweeps (smoke test, ~1 min)
#   --no-build         never build; use existing binaries only
#   --bin-dir DIR      prebuilt binaries (default: $SIMFA_GPU_BIN, gpu/build/bin, build/gpu/bin)
#   --budget SEC       total time budget (default 340)
#   --log-max-seqlen N instrument the paper shapes up to this sequence length (default 2048)
#   --pack DIR         afterwards, tar+gzip OUTDIR into DIR in <= 15 MiB parts, plus manifest.txt,
#                      check.csv and timings.csv beside them (fits the device tool's 8-file limit)
# Output layout (see data/measured/README.md):
#   manifest.txt steps.txt env/ logs/ check.csv check-evlog.csv timings.csv timings-no-overlap.csv
#   ubench/{load_latency,tma_latency,tma_bandwidth,wgmma}.csv evlog/<case>.evlog
# Exit status: 0 when every step passed, 1 when some step failed, 2 on bad arguments.
set -u -o pipefail

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; }
ORIG_ARGS="$*"

DRY=0 QUICK=0 NO_BUILD=0 BIN_DIR="" BUDGET=340 LOG_MAX_SEQLEN=2048 PACK="" OUTDIR=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) DRY=1 ;;
    --quick) QUICK=1 ;;
    --no-build) NO_BUILD=1 ;;
    --bin-dir) [ $# -ge 2 ] || { echo "error: --bin-dir needs a value" >&2; exit 2; }; BIN_DIR=$2; shift ;;
    --budget) [ $# -ge 2 ] || { echo "error: --budget needs a value" >&2; exit 2; }; BUDGET=$2; shift ;;
    --log-max-seqlen) [ $# -ge 2 ] || { echo "error: --log-max-seqlen needs a value" >&2; exit 2; }; LOG_MAX_SEQLEN=$2; shift ;;
    --pack) [ $# -ge 2 ] || { echo "error: --pack needs a value" >&2; exit 2; }; PACK=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "error: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) [ -z "$OUTDIR" ] || { echo "error: more than one OUTDIR" >&2; exit 2; }; OUTDIR=$1 ;;
  esac
  shift
done
case "$BUDGET" in ''|*[!0-9]*) echo "error: --budget must be a number of seconds" >&2; exit 2 ;; esac
case "$LOG_MAX_SEQLEN" in ''|*[!0-9]*) echo "error: --log-max-seqlen must be a number" >&2; exit 2 ;; esac
[ -n "$OUTDIR" ] || OUTDIR=${OUT:-./gpu-results}

REPO=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUTDIR" || { echo "error: cannot create $OUTDIR" >&2; exit 2; }
OUTDIR=$(cd "$OUTDIR" && pwd)
mkdir -p "$OUTDIR"/env "$OUTDIR"/logs "$OUTDIR"/ubench "$OUTDIR"/evlog
MANIFEST=$OUTDIR/manifest.txt
START=$(date +%s)

# ---- toolchain and binaries ---------------------------------------------------------------------
NVCC=$(command -v nvcc || true)
[ -n "$NVCC" ] || { [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc; }
SMI=$(command -v nvidia-smi || true)
BINS="simfa-ubench-latency simfa-ubench-tma-bw simfa-ubench-wgmma simfa-attn simfa-attn-evlog"

bins_ok() {  # every binary present and able to start (--help needs no GPU)
  local d=$1 b
  [ -n "$d" ] || return 1
  for b in $BINS; do "$d/$b" --help >/dev/null 2>&1 || return 1; done
}
FOUND_BIN=""
for d in "$BIN_DIR" "${SIMFA_GPU_BIN:-}" "$REPO/gpu/build/bin" "$REPO/build/gpu/bin"; do
  if [ -n "$d" ] && bins_ok "$d"; then FOUND_BIN=$(cd "$d" && pwd); break; fi
done
if [ -n "$BIN_DIR" ] && [ -z "$FOUND_BIN" ] && [ "$NO_BUILD" = 1 ]; then
  echo "error: --bin-dir $BIN_DIR has no runnable binaries and --no-build was given" >&2; exit 2
fi
BUILD_DIR=$REPO/gpu/build
if [ -n "$FOUND_BIN" ]; then B=$FOUND_BIN; BUILD_NEEDED=0; else B=$BUILD_DIR/bin; BUILD_NEEDED=1; fi
[ "$NO_BUILD" = 1 ] && BUILD_NEEDED=0

# ---- the plan: name|timeout|command ---------------------------------------------------------------
if [ "$QUICK" = 1 ]; then
  LAT_ARGS="--max-mib 256 --step 60 --dense-step 40 --hops 16384 --runs 2"
  BW_ARGS="--runs 1 --array-mib 1024"
  TIME_ARGS="--runs 10 --warmup 2 --max-seqlen 2048"
  LOGSEQ=$(( LOG_MAX_SEQLEN < 1024 ? LOG_MAX_SEQLEN : 1024 ))
else
  LAT_ARGS="" BW_ARGS="" TIME_ARGS="" LOGSEQ=$LOG_MAX_SEQLEN
fi
JOBS=$(nproc 2>/dev/null || echo 4)
STEPS=(
  "env|30|$REPO/gpu/tools/collect-env.sh $OUTDIR/env"
  "build|200|make -C $REPO/gpu BUILD=$BUILD_DIR NVCC=${NVCC:-nvcc} -j$JOBS"
  "check|60|$B/simfa-attn check --out $OUTDIR/check.csv"
  "wgmma|30|$B/simfa-ubench-wgmma --out-dir $OUTDIR/ubench"
  "tma_bandwidth|60|$B/simfa-ubench-tma-bw --out-dir $OUTDIR/ubench $BW_ARGS"
  "latency|80|$B/simfa-ubench-latency --out-dir $OUTDIR/ubench $LAT_ARGS"
  "timings|60|$B/simfa-attn time --out $OUTDIR/timings.csv $TIME_ARGS"
  "evlog|60|$B/simfa-attn-evlog log --out-dir $OUTDIR/evlog --max-seqlen $LOGSEQ"
  "check_evlog|45|$B/simfa-attn-evlog check --out $OUTDIR/check-evlog.csv"
  "timings_no_overlap|45|$B/simfa-attn time --variant no-overlap --out $OUTDIR/timings-no-overlap.csv $TIME_ARGS"
  "env_after|20|$REPO/gpu/tools/collect-env.sh $OUTDIR/env after"
)

{
  echo "# simfa gpu/run-checks.sh plan ($(date -u +%Y-%m-%dT%H:%M:%SZ)); name|timeout_s|command"
  for s in "${STEPS[@]}"; do echo "$s"; done
} > "$OUTDIR/steps.txt"

write_header() {
  {
    echo "# simfa GPU measurement run"
    echo "command=$0 $ORIG_ARGS"
    echo "repo_commit=$(git -C "$REPO" rev-parse --verify -q HEAD 2>/dev/null || echo none)"
    echo "repo_dirty=$(git -C "$REPO" status --porcelain 2>/dev/null | grep -c . || true)"
    echo "host=$(uname -n) $(uname -m)"
    echo "date_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "dry_run=$DRY quick=$QUICK budget_s=$BUDGET"
    echo "nvcc=${NVCC:-missing}"
    [ -n "$NVCC" ] && echo "nvcc_version=$("$NVCC" --version 2>/dev/null | tail -1)"
    echo "nvidia_smi=${SMI:-missing}"
    echo "binaries=$B (prebuilt=$([ "$BUILD_NEEDED" = 0 ] && echo yes || echo no))"
    echo "# step|status|rc|seconds|command"
  } > "$MANIFEST"
}
write_header

if [ "$DRY" = 1 ]; then
  for s in "${STEPS[@]}"; do
    IFS='|' read -r name _ cmd <<< "$s"
    st=planned
    [ "$name" = build ] && [ "$BUILD_NEEDED" = 0 ] && st=skipped
    echo "$name|$st|-|-|$cmd" >> "$MANIFEST"
  done
  {
    echo "toolchain_nvcc=$([ -n "$NVCC" ] && echo ok || echo missing)"
    echo "toolchain_nvidia_smi=$([ -n "$SMI" ] && echo ok || echo missing)"
    echo "toolchain_binaries=$([ "$BUILD_NEEDED" = 0 ] && echo prebuilt || echo to-build)"
    echo "result=dry-run"
  } >> "$MANIFEST"
  echo "run-checks: dry run; layout and plan in $OUTDIR"
  cat "$MANIFEST"
  exit 0
fi

# ---- run ------------------------------------------------------------------------------------------
FAILED=0
for s in "${STEPS[@]}"; do
  IFS='|' read -r name tmo cmd <<< "$s"
  now=$(date +%s); left=$(( BUDGET - (now - START) ))
  if [ "$name" = build ] && [ "$BUILD_NEEDED" = 0 ]; then
    echo "$name|skipped|-|0|prebuilt binaries in $B" >> "$MANIFEST"; continue
  fi
  if [ "$left" -lt 8 ]; then
    echo "$name|skipped|-|0|out of budget: $cmd" >> "$MANIFEST"; FAILED=1; continue
  fi
  [ "$tmo" -gt $(( left - 5 )) ] && tmo=$(( left - 5 ))
  echo "run-checks: [$name] (timeout ${tmo}s) $cmd"
  t0=$(date +%s)
  timeout --kill-after=5 "$tmo" bash -c "$cmd" > "$OUTDIR/logs/$name.log" 2>&1
  rc=$?
  dt=$(( $(date +%s) - t0 ))
  case $rc in
    0) st=ok ;;
    124|137) st=timeout; FAILED=1 ;;
    *) st=fail; FAILED=1 ;;
  esac
  echo "$name|$st|$rc|$dt|$cmd" >> "$MANIFEST"
  tail -n 3 "$OUTDIR/logs/$name.log" | sed "s/^/  [$name] /"
  if [ "$name" = build ] && [ "$st" = ok ]; then
    for f in "$BUILD_DIR"/ptxas/*.txt; do
      [ -f "$f" ] && { echo "== $(basename "$f")"; "$REPO/gpu/tools/ptxas-summary.sh" < "$f"; }
    done > "$OUTDIR/env/ptxas-summary.txt" 2>&1
  fi
done
echo "total_seconds=$(( $(date +%s) - START ))" >> "$MANIFEST"
echo "result=$([ "$FAILED" = 0 ] && echo pass || echo fail)" >> "$MANIFEST"
cat "$MANIFEST"

if [ -n "$PACK" ]; then
  mkdir -p "$PACK"
  tar -C "$(dirname "$OUTDIR")" -czf "$PACK/results.tar.gz" "$(basename "$OUTDIR")"
  size=$(stat -c %s "$PACK/results.tar.gz")
  if [ "$size" -gt $(( 15 * 1024 * 1024 )) ]; then
    split -b 15M -d -a 1 "$PACK/results.tar.gz" "$PACK/results.tar.gz.part"
    rm -f "$PACK/results.tar.gz"
  fi
  for f in manifest.txt check.csv timings.csv; do [ -f "$OUTDIR/$f" ] && cp "$OUTDIR/$f" "$PACK/"; done
  echo "run-checks: packed into $PACK: $(ls "$PACK" | tr '\n' ' ')"
  [ "$(ls "$PACK" | wc -l)" -le 8 ] || echo "run-checks: WARNING more than 8 files in $PACK (lower --log-max-seqlen)"
fi
exit $FAILED
