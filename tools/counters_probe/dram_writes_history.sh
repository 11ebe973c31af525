#!/usr/bin/env bash
# Why "DRAM bytes written" of a kernel whose output fits in L2 is not one number (issue 12,
# kernels/counters/NOTES.md): measures it launch after launch, with Nsight Compute and with
# blockscope, under the histories that change it, and prints each launch's value in order.
#
#   tools/counters_probe/dram_writes_history.sh [PROBE] [OUTDIR]
#     PROBE   the counters_probe binary (default build/tools/counters_probe/counters_probe)
#     OUTDIR  where the CSVs, JSONs and series.txt go (default: a new temporary folder)
#   environment: NCU (default ncu on PATH, then /usr/local/cuda/bin/ncu),
#                PROBE_ARGS (default "--gray 4096x4096 --kernels gray_1d_flat": 16.8 MB of output,
#                a third of the H100/H200's 50 MB L2)
#
# The histories: ncu with blockscope's whole metric list (15 passes, memory saved and restored
# between them) and with the DRAM metrics alone (one pass), each back to back and with 300 ms
# between launches; blockscope's session enabling the profiler for each profile (the default)
# and keeping it enabled, and with the L2 emptied by reading, by reading and discarding, or not
# at all. Every ncu run uses --clock-control none and its default cache control (flush).
set -uo pipefail

probe=${1:-build/tools/counters_probe/counters_probe}
out=${2:-$(mktemp -d -t dram_writes_history.XXXXXX)}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
read -r -a args <<<"${PROBE_ARGS:---gray 4096x4096 --kernels gray_1d_flat}"
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
[[ -x "$probe" ]] || { echo "dram_writes_history: no probe at $probe" >&2; exit 2; }
[[ -x "$ncu" ]] || { echo "dram_writes_history: no ncu at $ncu (set NCU)" >&2; exit 2; }

full=$("$probe" "${args[@]}" --list-metrics | paste -sd,)
clocks=sm__cycles_elapsed.avg.per_second
one=dram__bytes_write.sum,dram__bytes_read.sum,gpu__time_duration.sum,$clocks

with_ncu() {  # name, metrics, probe arguments...
  local name=$1 metrics=$2
  shift 2
  "$ncu" --clock-control none --metrics "$metrics" --kernel-name 'regex:^probe_' --csv \
    --page raw --print-units base --log-file "$out/$name.csv" "$probe" "${args[@]}" --launch-only \
    "$@" >"$out/$name.log" 2>&1 || echo "dram_writes_history: ncu run $name failed ($out/$name.log)" >&2
}
with_blockscope() {  # name, probe arguments...
  local name=$1
  shift
  "$probe" "${args[@]}" --repeat 10 --json "$out/$name.json" "$@" >"$out/$name.log" 2>&1 ||
    echo "dram_writes_history: blockscope run $name failed ($out/$name.log)" >&2
}

with_ncu ncu_15_passes "$full,$clocks" --launches 8
with_ncu ncu_15_passes_300ms_apart "$full,$clocks" --launches 6 --gap-ms 300
with_ncu ncu_1_pass "$one" --launches 12
with_ncu ncu_1_pass_300ms_apart "$one" --launches 8 --gap-ms 300
with_blockscope blockscope_default
with_blockscope blockscope_kept_enabled --keep-enabled
with_blockscope blockscope_read_eviction --evict read
with_blockscope blockscope_no_eviction --evict none

files=()
for f in "$out"/ncu_*.csv "$out"/blockscope_*.json; do [[ -s "$f" ]] && files+=("$f"); done
python3 "$here/compare_with_ncu.py" --series "${files[@]}" | tee "$out/series.txt"
