#!/usr/bin/env bash
# CPU-side test of gpu/run-checks.sh: argument handling and the output layout of --dry-run.
# Usage: tests/gpu/test_dry_run.sh REPO_ROOT SCRATCH_DIR
set -u
repo=${1:?usage: test_dry_run.sh REPO_ROOT SCRATCH_DIR}
scratch=${2:?usage: test_dry_run.sh REPO_ROOT SCRATCH_DIR}
script=$repo/gpu/run-checks.sh
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

rm -rf "$scratch" && mkdir -p "$scratch" || { echo "cannot create $scratch"; exit 1; }

# 1. dry run into an explicit folder: exit 0, layout, manifest and plan.
out=$scratch/explicit
bash "$script" --dry-run "$out" > "$scratch/dry.log" 2>&1 || fail "--dry-run exited $?"
for d in env logs ubench evlog; do [ -d "$out/$d" ] || fail "missing folder $d/"; done
for f in manifest.txt steps.txt; do [ -s "$out/$f" ] || fail "missing or empty $f"; done
steps="env build check wgmma pipes interference sharing launch timings clock attn_clock tma_bandwidth latency evlog check_evlog timings_no_overlap ncu sdpa sass env_after"
for s in $steps; do
  grep -q "^$s|" "$out/steps.txt" 2>/dev/null || fail "steps.txt lacks step $s"
  grep -Eq "^$s\|(planned|skipped)\|" "$out/manifest.txt" 2>/dev/null || fail "manifest lacks planned step $s"
done
for k in command= repo_commit= nvcc= nvidia_smi= binaries= toolchain_nvcc= result=dry-run; do
  grep -q "^$k" "$out/manifest.txt" 2>/dev/null || fail "manifest lacks $k"
done
grep -q "simfa-attn check --out $out/check.csv" "$out/steps.txt" || fail "check step does not write check.csv"
grep -q "simfa-ubench-latency --out-dir $out/ubench" "$out/steps.txt" || fail "latency step does not write into ubench/"
grep -q "simfa-attn-evlog log --out-dir $out/evlog --max-seqlen 2048 --cases llama3-8b-s512," "$out/steps.txt" || fail "evlog step wrong"
grep -q "simfa-attn time --out $out/timings.csv --detail $out/timings-detail.csv" "$out/steps.txt" || fail "timings step does not write the detail CSV"
grep -q "simfa-ubench-clock --out-dir $out/ubench --seconds 6" "$out/steps.txt" || fail "clock step wrong"
for d in ncu; do [ -d "$out/$d" ] || fail "missing folder $d/"; done
[ -z "$(find "$out/ubench" "$out/evlog" "$out/logs" -type f)" ] || fail "dry run produced results"

# 2. OUT from the environment; --quick and --log-max-seqlen change the plan.
OUT=$scratch/from-env bash "$script" --dry-run --quick --log-max-seqlen 512 > /dev/null 2>&1 || fail "OUT= dry run failed"
[ -s "$scratch/from-env/manifest.txt" ] || fail "OUT environment variable ignored"
grep -q -- "--max-seqlen 512 --cases llama3-8b-s512,llama3-405b-s512$" "$scratch/from-env/steps.txt" 2>/dev/null || fail "--log-max-seqlen ignored"
grep -q -- "--seconds 2" "$scratch/from-env/steps.txt" 2>/dev/null || fail "--quick does not shorten the clock steps"
grep -q -- "--max-mib 256" "$scratch/from-env/steps.txt" 2>/dev/null || fail "--quick ignored"

# 3. argument errors exit 2 and write nothing; --help exits 0.
bash "$script" --dry-run --bogus "$scratch/bad" > /dev/null 2>&1; rc=$?
[ "$rc" = 2 ] || fail "unknown option exited $rc, want 2"
[ ! -e "$scratch/bad" ] || fail "unknown option still created the output folder"
bash "$script" --dry-run --budget abc "$scratch/bad2" > /dev/null 2>&1; rc=$?
[ "$rc" = 2 ] || fail "bad --budget exited $rc, want 2"
bash "$script" --dry-run "$scratch/a" "$scratch/b" > /dev/null 2>&1; rc=$?
[ "$rc" = 2 ] || fail "two OUTDIRs exited $rc, want 2"
bash "$script" --dry-run --only bogus "$scratch/bad3" > /dev/null 2>&1; rc=$?
[ "$rc" = 2 ] || fail "unknown --only step exited $rc, want 2"
[ ! -e "$scratch/bad3" ] || fail "unknown --only step still created the output folder"
bash "$script" --dry-run --only sharing,evlog "$scratch/only" > /dev/null 2>&1 || fail "--only dry run failed"
grep -q "^sharing|planned|" "$scratch/only/manifest.txt" || fail "--only did not plan sharing"
grep -q "^check|skipped|" "$scratch/only/manifest.txt" || fail "--only did not skip check"
grep -q "^env|planned|" "$scratch/only/manifest.txt" || fail "--only skipped env"
bash "$script" --help > "$scratch/help.txt" 2>&1 || fail "--help exited $?"
grep -q -- "--dry-run" "$scratch/help.txt" || fail "--help does not describe --dry-run"

# 4. prebuilt binaries are found through SIMFA_GPU_BIN when they exist and start.
if [ -n "${SIMFA_GPU_BIN:-}" ] && [ -x "$SIMFA_GPU_BIN/simfa-attn" ]; then
  bash "$script" --dry-run "$scratch/prebuilt" > /dev/null 2>&1 || fail "dry run with prebuilt binaries failed"
  grep -q "^build|skipped|" "$scratch/prebuilt/manifest.txt" || fail "prebuilt binaries not used"
fi

if [ "$fails" -ne 0 ]; then
  echo "--- dry-run output:"; cat "$scratch/dry.log"
  echo "$fails check(s) failed"; exit 1
fi
echo "gpu/run-checks.sh dry run: all checks passed"
