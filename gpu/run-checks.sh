#!/usr/bin/env bash
# One visit to a GPU machine (Hopper, x86-64, CUDA + nvcc): build if needed, correctness check,
# compute-side microbenchmarks (wgmma chains, CUDA-core pipes, interference, sustained clock,
# launch cost), kernel timings, memory microbenchmarks, instrumentation logs and a GPU
# description, all written into one output folder with a manifest, while nvidia-smi samples the
# clocks and power in the background. Every step runs under `timeout` and the run goes on after a
# failed step; the whole run stays under a budget (default 330 s, inside six minutes).
#
# Usage: gpu/run-checks.sh [options] [OUTDIR]        (OUTDIR defaults to $OUT, else ./gpu-results)
#   --dry-run          check arguments and toolchain, write the layout and the step plan; run nothing
#   --quick            shorter sweeps (smoke test, ~1 min)
#   --no-build         never build; use existing binaries only
#   --bin-dir DIR      prebuilt binaries (default: $SIMFA_GPU_BIN, gpu/build/bin, build/gpu/bin)
#   --budget SEC       total time budget (default 330)
#   --log-max-seqlen N instrument the chosen Llama shapes up to this sequence length (default 2048)
#   --only LIST        run only these steps (comma-separated names from steps.txt; env and
#                      env_after always run): a follow-up visit that repeats or adds a few
#   --pack DIR         afterwards, tar+gzip OUTDIR into DIR in <= 15 MiB parts, plus manifest.txt,
#                      check.csv and timings.csv beside them (fits the device tool's 8-file limit)
# Output layout (see data/measured/README.md):
#   manifest.txt steps.txt env/ logs/ check.csv check-evlog.csv timings.csv timings-detail.csv
#   timings-no-overlap.csv timings-no-overlap-detail.csv attn_clock.csv sdpa.csv evlog/<case>.evlog
#   ncu/ncu-attn.{ncu-rep,-raw.csv,-details.csv}
#   ubench/{wgmma,wgmma_chain,wgmma_stagger,pipes,interference,clock,clock_samples,launch,
#           load_latency,tma_latency,tma_bandwidth}.csv  env/smi-trace.csv env/sass-*.txt
# Exit status: 0 when every step passed, 1 when some step failed, 2 on bad arguments.
set -u -o pipefail

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; }
ORIG_ARGS="$*"

DRY=0 QUICK=0 NO_BUILD=0 BIN_DIR="" BUDGET=330 LOG_MAX_SEQLEN=2048 PACK="" OUTDIR="" ONLY=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) DRY=1 ;;
    --quick) QUICK=1 ;;
    --no-build) NO_BUILD=1 ;;
    --bin-dir) [ $# -ge 2 ] || { echo "error: --bin-dir needs a value" >&2; exit 2; }; BIN_DIR=$2; shift ;;
    --budget) [ $# -ge 2 ] || { echo "error: --budget needs a value" >&2; exit 2; }; BUDGET=$2; shift ;;
    --log-max-seqlen) [ $# -ge 2 ] || { echo "error: --log-max-seqlen needs a value" >&2; exit 2; }; LOG_MAX_SEQLEN=$2; shift ;;
    --pack) [ $# -ge 2 ] || { echo "error: --pack needs a value" >&2; exit 2; }; PACK=$2; shift ;;
    --only) [ $# -ge 2 ] || { echo "error: --only needs a value" >&2; exit 2; }; ONLY=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "error: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) [ -z "$OUTDIR" ] || { echo "error: more than one OUTDIR" >&2; exit 2; }; OUTDIR=$1 ;;
  esac
  shift
done
case "$BUDGET" in ''|*[!0-9]*) echo "error: --budget must be a number of seconds" >&2; exit 2 ;; esac
case "$LOG_MAX_SEQLEN" in ''|*[!0-9]*) echo "error: --log-max-seqlen must be a number" >&2; exit 2 ;; esac
[ -n "$OUTDIR" ] || OUTDIR=${OUT:-./gpu-results}
# --only: every name must be a step of the plan below (checked before anything is written).
STEP_NAMES="env build check wgmma pipes interference sharing launch timings clock attn_clock
  tma_bandwidth latency evlog check_evlog timings_no_overlap ncu sdpa sass env_after"
for o in $(echo "$ONLY" | tr ',' ' '); do
  case " $(echo $STEP_NAMES) " in *" $o "*) ;; *) echo "error: --only: no step named '$o' (steps: $(echo $STEP_NAMES))" >&2; exit 2 ;; esac
done

REPO=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUTDIR" || { echo "error: cannot create $OUTDIR" >&2; exit 2; }
OUTDIR=$(cd "$OUTDIR" && pwd)
mkdir -p "$OUTDIR"/env "$OUTDIR"/logs "$OUTDIR"/ubench "$OUTDIR"/evlog "$OUTDIR"/ncu
MANIFEST=$OUTDIR/manifest.txt
START=$(date +%s)

# ---- toolchain and binaries ---------------------------------------------------------------------
NVCC=$(command -v nvcc || true)
[ -n "$NVCC" ] || { [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc; }
SMI=$(command -v nvidia-smi || true)
BINS="simfa-ubench-latency simfa-ubench-tma-bw simfa-ubench-wgmma simfa-ubench-pipes
      simfa-ubench-interference simfa-ubench-sharing simfa-ubench-clock simfa-ubench-launch
      simfa-attn simfa-attn-evlog"

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
# Instrumented shapes: small enough to pack (about 30 MB of logs), large enough for steady state.
LOG_CASES=llama3-8b-s512,llama3-8b-s1024,llama3-8b-s2048,llama3-70b-s1024,llama3-405b-s512,llama3-405b-s1024
if [ "$QUICK" = 1 ]; then
  LAT_ARGS="--max-mib 256 --step 60 --dense-step 40 --hops 16384 --runs 2"
  BW_ARGS="--runs 1 --array-mib 1024"
  TIME_ARGS="--runs 10 --warmup 2 --max-seqlen 2048"
  CLOCK_S=2 ATTN_CLOCK_S=2 PIPE_ARGS="--iters 512" INTF_ARGS="--mma-rounds 50 --mix-rounds 100"
  SDPA_ARGS=--quick SHARE_ARGS="--rounds 100"
  LOGSEQ=$(( LOG_MAX_SEQLEN < 1024 ? LOG_MAX_SEQLEN : 1024 ))
else
  LAT_ARGS="" BW_ARGS="" TIME_ARGS="" CLOCK_S=6 ATTN_CLOCK_S=8 PIPE_ARGS="" INTF_ARGS="" SDPA_ARGS="" SHARE_ARGS=""
  LOGSEQ=$LOG_MAX_SEQLEN
fi
# Only the log cases within --log-max-seqlen.
LOG_SEL=$(echo "$LOG_CASES" | tr ',' '\n' | awk -F-s -v m="$LOGSEQ" '$NF + 0 <= m' | paste -sd, -)
[ -n "$LOG_SEL" ] || LOG_SEL=llama3-8b-s512
JOBS=$(nproc 2>/dev/null || echo 4)
U=$OUTDIR/ubench
# Ordered by value: the compute-side measurements and the kernel's timings first.
STEPS=(
  "env|30|$REPO/gpu/tools/collect-env.sh $OUTDIR/env"
  "build|200|make -C $REPO/gpu BUILD=$BUILD_DIR NVCC=${NVCC:-nvcc} -j$JOBS"
  "check|60|$B/simfa-attn check --out $OUTDIR/check.csv"
  "wgmma|60|$B/simfa-ubench-wgmma --out-dir $U"
  "pipes|30|$B/simfa-ubench-pipes --out-dir $U $PIPE_ARGS"
  "interference|60|$B/simfa-ubench-interference --out-dir $U $INTF_ARGS"
  "sharing|60|$B/simfa-ubench-sharing --out-dir $U $SHARE_ARGS"
  "launch|30|$B/simfa-ubench-launch --out-dir $U"
  "timings|120|$B/simfa-attn time --out $OUTDIR/timings.csv --detail $OUTDIR/timings-detail.csv $TIME_ARGS"
  "clock|$(( 2 * CLOCK_S + 25 ))|$B/simfa-ubench-clock --out-dir $U --seconds $CLOCK_S"
  "attn_clock|$(( ATTN_CLOCK_S + 25 ))|$B/simfa-attn clock --out $OUTDIR/attn_clock.csv --seconds $ATTN_CLOCK_S"
  "tma_bandwidth|60|$B/simfa-ubench-tma-bw --out-dir $U $BW_ARGS"
  "latency|80|$B/simfa-ubench-latency --out-dir $U $LAT_ARGS"
  "evlog|60|$B/simfa-attn-evlog log --out-dir $OUTDIR/evlog --max-seqlen $LOGSEQ --cases $LOG_SEL"
  "check_evlog|45|$B/simfa-attn-evlog check --out $OUTDIR/check-evlog.csv"
  "timings_no_overlap|60|$B/simfa-attn time --variant no-overlap --no-mha --out $OUTDIR/timings-no-overlap.csv --detail $OUTDIR/timings-no-overlap-detail.csv $TIME_ARGS"
  "ncu|100|$REPO/gpu/tools/ncu-attn.sh $B $OUTDIR/ncu"
  "sdpa|60|python3 $REPO/gpu/tools/sdpa_bench.py $OUTDIR/sdpa.csv $SDPA_ARGS"
  "sass|40|$REPO/gpu/tools/dump-sass.sh $B $OUTDIR/env"
  "env_after|20|$REPO/gpu/tools/collect-env.sh $OUTDIR/env after"
)

selected() {  # env, env_after and build always run; with --only, only the listed steps besides
  [ -z "$ONLY" ] && return 0
  case "$1" in env|env_after|build) return 0 ;; esac
  case ",$ONLY," in *",$1,"*) return 0 ;; esac
  return 1
}

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
    echo "dry_run=$DRY quick=$QUICK budget_s=$BUDGET only=${ONLY:-all}"
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
    selected "$name" || st=skipped
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
SMI_PID=""
if [ -n "$SMI" ]; then
  "$REPO/gpu/tools/smi-trace.sh" "$OUTDIR/env/smi-trace.csv" 200 &
  SMI_PID=$!
fi
stop_smi() { [ -n "$SMI_PID" ] && kill "$SMI_PID" 2>/dev/null; SMI_PID=""; }
trap stop_smi EXIT
for s in "${STEPS[@]}"; do
  IFS='|' read -r name tmo cmd <<< "$s"
  now=$(date +%s); left=$(( BUDGET - (now - START) ))
  if [ "$name" = build ] && [ "$BUILD_NEEDED" = 0 ]; then
    echo "$name|skipped|-|0|prebuilt binaries in $B" >> "$MANIFEST"; continue
  fi
  if ! selected "$name"; then
    echo "$name|skipped|-|0|not in --only: $cmd" >> "$MANIFEST"; continue
  fi
  if [ "$left" -lt 8 ]; then
    echo "$name|skipped|-|0|out of budget: $cmd" >> "$MANIFEST"; FAILED=1; continue
  fi
  [ "$tmo" -gt $(( left - 5 )) ] && tmo=$(( left - 5 ))
  echo "run-checks: [$name] (timeout ${tmo}s) $cmd"
  t0=$(date +%s)
  t0_utc=$(date -u +%H:%M:%S.%N | cut -c1-12)
  timeout --kill-after=5 "$tmo" bash -c "$cmd" > "$OUTDIR/logs/$name.log" 2>&1
  rc=$?
  dt=$(( $(date +%s) - t0 ))
  echo "$name $t0_utc $(date -u +%H:%M:%S.%N | cut -c1-12)" >> "$OUTDIR/logs/step-times.txt"
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
stop_smi
echo "total_seconds=$(( $(date +%s) - START ))" >> "$MANIFEST"
echo "result=$([ "$FAILED" = 0 ] && echo pass || echo fail)" >> "$MANIFEST"
cat "$MANIFEST"
# A short summary on stdout (the device tool returns the end of the output).
for f in check.csv ubench/clock.csv ubench/launch.csv; do
  [ -f "$OUTDIR/$f" ] && { echo "== $f"; grep -v '^#' "$OUTDIR/$f" | head -20; }
done
[ -f "$OUTDIR/timings-detail.csv" ] && { echo "== timings-detail.csv"; grep -v '^#' "$OUTDIR/timings-detail.csv" | cut -d, -f1,9,11,13,15,16 | head -30; }
[ -f "$OUTDIR/ubench/wgmma_chain.csv" ] && { echo "== wgmma_chain.csv (n=128)"; grep -v '^#' "$OUTDIR/ubench/wgmma_chain.csv" | grep '^128,SS,dep' | head -16; }

if [ -n "$PACK" ]; then
  mkdir -p "$PACK"
  tar -C "$(dirname "$OUTDIR")" -czf "$PACK/results.tar.gz" "$(basename "$OUTDIR")"
  size=$(stat -c %s "$PACK/results.tar.gz")
  if [ "$size" -gt $(( 15 * 1024 * 1024 )) ]; then
    split -b 15M -d -a 1 "$PACK/results.tar.gz" "$PACK/results.tar.gz.part"
    rm -f "$PACK/results.tar.gz"
  fi
  for f in manifest.txt check.csv timings-detail.csv; do [ -f "$OUTDIR/$f" ] && cp "$OUTDIR/$f" "$PACK/"; done
  echo "run-checks: packed into $PACK: $(ls "$PACK" | tr '\n' ' ')"
  [ "$(ls "$PACK" | wc -l)" -le 8 ] || echo "run-checks: WARNING more than 8 files in $PACK (lower --log-max-seqlen)"
fi
exit $FAILED
