#!/usr/bin/env python3
"""Side-by-side table of blockscope's counters (counters_probe JSON) and ncu's (CSV).

    compare_with_ncu.py blockscope.json ncu.csv

Gated rows (issue 12's tolerances): DRAM bytes read and written within 2% (with a floor of
64 KiB for writes, which can be a few sectors when the output still sits in L2 at the end),
achieved occupancy within 2 points, global load and store sectors per request equal or within 2%.
The other rows (L2 hit rate, duration, throughputs, top stall reasons) are printed for reading,
not gated: they depend on how the range is delimited and on clocks. Exit 1 if a gated row fails.
"""
import csv
import json
import sys

DRAM_READ = "dram__bytes_read.sum"
DRAM_WRITE = "dram__bytes_write.sum"
OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active"
LD_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
LD_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
ST_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
ST_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
INFO = [
    ("L2 hit rate %", "lts__t_sector_hit_rate.pct"),
    ("duration ns", "gpu__time_duration.sum"),
    ("DRAM throughput %", "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("SM throughput %", "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("memory throughput %", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"),
    ("warp cycles per issue", "smsp__average_warp_latency_per_inst_issued.ratio"),
]
STALL_PREFIX = "smsp__average_warps_issue_stalled_"
STALL_SUFFIX = "_per_issue_active.ratio"


def number(text):
    text = (text or "").strip().replace(",", "")
    try:
        return float(text)
    except ValueError:
        return float("nan")


def read_ncu(path):
    """Kernel name -> {metric: value}, from ncu's --page raw (or details) CSV output."""
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]  # drop ==PROF== and the program's lines
    rows = list(csv.reader(lines))
    if not rows:
        sys.exit("compare_with_ncu: no CSV rows in " + path)
    header = rows[0]
    kernels = {}
    if "Metric Name" in header:  # details page: one row per metric
        k, n, v = header.index("Kernel Name"), header.index("Metric Name"), header.index("Metric Value")
        for r in rows[1:]:
            kernels.setdefault(r[k], {})[r[n]] = number(r[v])
    else:  # raw page: one row per kernel, a units row after the header
        k = header.index("Kernel Name")
        for r in rows[1:]:
            if r[k] == "" or r[0] == "":  # the units row
                continue
            kernels[r[k]] = {name: number(val) for name, val in zip(header, r)}
    return kernels


def find_ncu(kernels, probe_kernel):
    for name, values in kernels.items():
        if name.split("(")[0].strip() == "probe_" + probe_kernel:
            return values
    return None


def ratio(num, den):
    return num / den if den else float("nan")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    ours = json.load(open(sys.argv[1]))
    theirs = read_ncu(sys.argv[2])
    failures = 0
    width = 34
    print(f"GPU chip {ours.get('chip')}, CUPTI {ours.get('cupti')}")
    print(f"{'kernel / counter':<{width}} {'blockscope':>16} {'ncu':>16} {'diff':>12}  tolerance       result")
    for k in ours["kernels"]:
        name = k["kernel"]
        print("-" * 110)
        print(f"{name}  [{k['config']}]  blockscope: {k.get('passes')} passes, "
              f"{k.get('wall_ms_median', float('nan')):.1f} ms per profile")
        if "error" in k:
            print("  blockscope failed: " + k["error"]["message"])
            failures += 1
            continue
        m = k["metrics"]
        n = find_ncu(theirs, name)
        if n is None:
            print("  ncu has no row for probe_" + name)
            failures += 1
            continue

        def row(label, a, b, tolerance, ok, points=False):
            nonlocal failures
            diff = b - a
            rel = f"{diff:+.2f} pt" if points else (f"{100 * diff / a:+.2f}%" if a else f"{diff:+.3g}")
            verdict = "" if ok is None else ("pass" if ok else "FAIL")
            if ok is False:
                failures += 1
            print(f"  {label:<{width - 2}} {a:>16,.3f} {b:>16,.3f} {rel:>12}  {tolerance:<15} {verdict}")

        for label, metric, floor in (("DRAM bytes read", DRAM_READ, 0.0),
                                     ("DRAM bytes written", DRAM_WRITE, 65536.0)):
            a, b = m.get(metric, float("nan")), n.get(metric, float("nan"))
            row(label, a, b, "2%" + (" or 64 KiB" if floor else ""),
                abs(b - a) <= max(0.02 * max(a, b), floor))
        a, b = m.get(OCCUPANCY, float("nan")), n.get(OCCUPANCY, float("nan"))
        row("achieved occupancy %", a, b, "2 points", abs(b - a) <= 2.0, points=True)
        for label, s, r in (("ld sectors per request", LD_SECTORS, LD_REQUESTS),
                            ("st sectors per request", ST_SECTORS, ST_REQUESTS)):
            a, b = ratio(m.get(s, 0), m.get(r, 0)), ratio(n.get(s, 0), n.get(r, 0))
            row(label, a, b, "equal or 2%", a == b or abs(b - a) <= 0.02 * max(a, b))
        for label, s in (("  ld sectors", LD_SECTORS), ("  ld requests", LD_REQUESTS),
                         ("  st sectors", ST_SECTORS), ("  st requests", ST_REQUESTS)):
            row(label, m.get(s, float("nan")), n.get(s, float("nan")), "", None)
        for label, metric in INFO:
            if metric in m:
                row(label, m[metric], n.get(metric, float("nan")), "(not gated)", None,
                    points=label.endswith("%"))
        stalls = sorted(((v, key[len(STALL_PREFIX):-len(STALL_SUFFIX)], key) for key, v in m.items()
                         if key.startswith(STALL_PREFIX) and key.endswith(STALL_SUFFIX)), reverse=True)
        for v, reason, key in stalls[:3]:
            row("stall " + reason, v, n.get(key, float("nan")), "(not gated)", None)
    print("-" * 110)
    print("all gated rows pass" if failures == 0 else f"{failures} gated row(s) FAIL")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
