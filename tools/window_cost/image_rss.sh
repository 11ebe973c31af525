#!/usr/bin/env bash
# What a large image costs the window on the CPU simulation (issue 34's "huge images stay small"):
#
#   xvfb-run -a -s "-screen 0 1600x1000x24" tools/window_cost/image_rss.sh BLOCKSCOPE [SIZE] [FIGURES]
#
# Writes a SIZE x SIZE RGB PNG (default 16384; a smooth pattern, fast to compress), opens it in the
# real window with the CPU backend and a fresh settings folder, waits for its first launch to run
# (on the worker thread: the fork of the lab included), and prints the process's resident memory
# (VmRSS, and its peak VmHWM) against the image's own bytes (SIZE^2 x 3) and the frames' draw
# times (the status file's frame_ms): with xdotool, of 20 frames hovering the view and 10 zooming
# it (the figure is the slowest of them), else of the last frame. With FIGURES (a budget_figures.json), records
# huge_image_rss_ratio and huge_image_frame_ms there (tools/budgets/check_budgets.py --record),
# the figures budgets.json's huge_image_* budgets read. Needs python3; the launch of a 16384^2
# image takes minutes on 2 cores.
set -u
exe="$(cd "$(dirname "${1:?usage: image_rss.sh BLOCKSCOPE [SIZE] [FIGURES]}")" && pwd)/$(basename "$1")"
size="${2:-16384}"
figures="${3:-}"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 - "$work/img.png" "$size" <<'EOF'
import struct, sys, zlib
w = h = int(sys.argv[2])
row = bytes((x * 7 + c * 85) & 255 for x in range(w) for c in range(3))
z = zlib.compressobj(1)
data = []
for y in range(h):
    s = (y * 3) % (3 * w)
    data.append(z.compress(b"\x00" + row[s:] + row[:s]))
data.append(z.flush())
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
with open(sys.argv[1], "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)))
    f.write(chunk(b"IDAT", b"".join(data)) + chunk(b"IEND", b""))
EOF
"$exe" --backend cpu --config-dir "$work/cfg" --status-file "$work/s.json" "$work/img.png" > "$work/log" 2>&1 &
pid=$!
ran=0
for _ in $(seq 1 1800); do
  sleep 1
  kill -0 "$pid" 2>/dev/null || { echo "blockscope exited:"; tail -5 "$work/log"; exit 1; }
  # the result delivered (its digest is in the status file), not only the launch accepted
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d['launch'].get('ok') and 'output' in d and not d['ui']['launch_in_flight'] and d['data']['width']==int(sys.argv[2]) else 1)" \
    "$work/s.json" "$size" 2>/dev/null && { ran=1; break; }
done
[ "$ran" = 1 ] || { echo "no launch ran on the ${size}^2 image within 30 minutes"; kill "$pid"; exit 1; }
sleep 3  # the frames after the result settle
last_frame() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['ui']['frame_ms'])" "$work/s.json"; }
frames=()
if command -v xdotool >/dev/null; then
  for i in $(seq 1 20); do xdotool mousemove $((500 + i * 7)) $((400 + (i % 7) * 5)); sleep 0.3; frames+=("$(last_frame)"); done
  for i in $(seq 1 10); do xdotool click $((4 + i % 2)); sleep 0.4; frames+=("$(last_frame)"); done
else
  frames+=("$(last_frame)")
fi
frame_ms=$(printf '%s\n' "${frames[@]}" | sort -n | tail -n 1)
frame_median=$(printf '%s\n' "${frames[@]}" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
rss_kb=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
hwm_kb=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status")
kill "$pid"; wait "$pid" 2>/dev/null
python3 - "$size" "$rss_kb" "$hwm_kb" "$frame_ms" "$frame_median" "${#frames[@]}" <<'EOF'
import sys
size, rss, hwm, frame = int(sys.argv[1]), int(sys.argv[2]) * 1024, int(sys.argv[3]) * 1024, float(sys.argv[4])
median, count = float(sys.argv[5]), int(sys.argv[6])
image = size * size * 3
print(f"{size}x{size} on the CPU simulation: RSS {rss / 2**30:.2f} GiB (peak {hwm / 2**30:.2f} GiB) = "
      f"{rss / image:.1f}x the image's {image / 2**30:.2f} GiB ({rss / (size * size):.1f} bytes a pixel); "
      f"frames over {count}: median {median:.1f} ms, slowest {frame:.1f} ms")
EOF
if [ -n "$figures" ]; then
  ratio=$(python3 -c "print($hwm_kb * 1024 / ($size * $size * 3))")
  python3 "$here/../budgets/check_budgets.py" --record huge_image_rss_ratio "$ratio" \
    --note "${size}^2 RGB on the CPU simulation, peak RSS over the image's bytes" --into "$figures"
  python3 "$here/../budgets/check_budgets.py" --record huge_image_frame_ms "$frame_ms" \
    --note "${size}^2 on the CPU simulation, the slowest of ${#frames[@]} hover and zoom frames" --into "$figures"
fi
