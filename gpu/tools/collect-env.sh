#!/usr/bin/env bash
# Describes the GPU machine into DIR: nvidia-smi -q (full dump), clocks, nvcc, CPU and OS.
# Usage: gpu/tools/collect-env.sh DIR [after]   ("after" writes only the post-run clock/power dump)
set -u
dir=${1:?usage: collect-env.sh DIR [after]}
mkdir -p "$dir"
if [ "${2:-}" = after ]; then
  nvidia-smi -q -d CLOCK,PERFORMANCE,POWER,TEMPERATURE > "$dir/nvidia-smi-q-after.txt" 2>&1
  exit $?
fi
rc=0
nvidia-smi -q > "$dir/nvidia-smi-q.txt" 2>&1 || rc=1
nvidia-smi > "$dir/nvidia-smi.txt" 2>&1 || rc=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,memory.total,power.limit --format=csv > "$dir/gpu.csv" 2>&1 || rc=1
{ command -v nvcc >/dev/null && nvcc --version || /usr/local/cuda/bin/nvcc --version; } > "$dir/nvcc-version.txt" 2>&1
{ uname -a; echo; cat /etc/os-release 2>/dev/null; echo; lscpu 2>/dev/null | head -20; echo;
  free -g 2>/dev/null; echo; env | grep -E '^(CUDA|NVIDIA|LD_LIBRARY_PATH)' ; } > "$dir/host.txt" 2>&1
exit $rc
