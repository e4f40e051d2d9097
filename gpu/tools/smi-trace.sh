#!/usr/bin/env bash
# Samples the GPU's clocks, power, temperature and clock-event reasons every PERIOD_MS into FILE
# until killed (gpu/run-checks.sh runs it in the background for the whole visit). Falls back to
# fewer fields when this driver's nvidia-smi does not know one of them.
# Usage: gpu/tools/smi-trace.sh FILE [PERIOD_MS]
set -u
file=${1:?usage: smi-trace.sh FILE [PERIOD_MS]}
period=${2:-200}
full=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu,clocks_event_reasons.active
basic=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu
fields=$full
nvidia-smi --query-gpu=$fields --format=csv,nounits > /dev/null 2>&1 || fields=$basic
exec nvidia-smi --query-gpu=$fields --format=csv,nounits -lms "$period" > "$file" 2>&1
