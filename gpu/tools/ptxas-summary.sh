#!/usr/bin/env bash
# Summarises `nvcc -Xptxas -v` output (stdin): one line per kernel with registers, spills, smem,
# plus any ptxas warning. Usage: nvcc ... -Xptxas -v 2>&1 | gpu/tools/ptxas-summary.sh
awk '
  /Compiling entry function/ { match($0, /'"'"'[^'"'"']*'"'"'/); fn = substr($0, RSTART + 1, RLENGTH - 2) }
  /bytes stack frame/ { stack = $0; sub(/^[ \t]+/, "", stack) }
  /Used [0-9]+ registers/ { match($0, /Used [0-9]+ registers/); regs = substr($0, RSTART, RLENGTH);
                            smem = ""; if (match($0, /[0-9]+ bytes smem/)) smem = substr($0, RSTART, RLENGTH);
                            printf "%-70s %s, %s, %s\n", substr(fn, 1, 70), regs, smem, stack }
  /[Ww]arning/ { print }
'
