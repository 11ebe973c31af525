#!/usr/bin/env python3
"""Stall samples per source line: blockscope's PC sampling (bench --lines JSON) against Nsight
Compute's source page ("Warp Stall Sampling (All Samples)", `ncu -i REPORT --page source --csv
--print-source cuda,sass`), issue 22's check.

  compare_lines.py BLOCKSCOPE_JSON NCU_SOURCE_CSV KERNEL_ID [--top 3] [--tolerance 5] [--md OUT]

Each line's share is its samples over all samples of the kernel (every file: the rung's body,
its __global__ wrapper, the shared helpers). The rows are ncu's top lines; a row passes when
blockscope's share of the same line is within the tolerance (percentage points). A second gate:
the line blockscope names for each sampled instruction is one of the lines ncu lists it under,
for 99% of the samples. Exit 1 when either misses, 2 when an input has no samples.

How ncu's page counts: an instruction of an inlined function is listed under every line of its
inline chain (gray_value's conversion under gray_common.hpp:85, where it is written, and under
gray_1d_flat.hpp:29, which calls it), each time with all its samples. So the kernel's total is
the sum over distinct instruction addresses, not over lines; a line's share is its row over that
total. blockscope puts each instruction on its innermost line (where the code is written); to compare
like with like, its per-instruction samples are gathered onto ncu's rows the way ncu gathers
them (by the instruction addresses listed under each row)."""
import argparse
import csv
import json
import os
import sys


def blockscope_profile(path, kernel):
    with open(path) as f:
        doc = json.load(f)
    for r in doc["results"]:
        if r.get("kernel") != kernel or "lines" not in r:
            continue
        lines = r["lines"]
        if not lines.get("available"):
            sys.exit(f"{kernel}: blockscope sampled nothing: {lines.get('message')}")
        return lines, r.get("config", "")
    sys.exit(f"{kernel}: no result with lines in {path}")


def number(text):
    try:
        return float(text)
    except ValueError:
        return 0.0


def ncu_page(path):
    """ncu's rows: {(file, line): (samples, {addresses listed under it})}, and {address: samples}."""
    lines = {}
    by_address = {}  # each instruction once, however many lines list it
    file = line = col = None
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    for row in rows:
        if not row:
            continue
        if row[0] == "File Path" and len(row) > 1:
            file = os.path.basename(row[1])
            continue
        if row[0] == "Line No":
            col = row.index("Warp Stall Sampling (All Samples)")
            continue
        if col is None or file is None or len(row) <= col:
            continue
        if row[0].isdigit():  # a source line: its samples, inlined code included
            line = (file, int(row[0]))
            lines[line] = (number(row[col]), set())
        elif row[0] == "" and len(row) > 2 and row[2].startswith("0x") and line in lines:
            a = int(row[2], 16)
            by_address[a] = number(row[col])
            lines[line][1].add(a)
    return lines, by_address


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("blockscope_json")
    ap.add_argument("ncu_csv")
    ap.add_argument("kernel")
    ap.add_argument("--top", type=int, default=3)
    ap.add_argument("--tolerance", type=float, default=5.0)
    ap.add_argument("--md", help="append the tables, in Markdown, to this file")
    a = ap.parse_args()
    prof, config = blockscope_profile(a.blockscope_json, a.kernel)
    ncu_lines, ncu_pcs = ncu_page(a.ncu_csv)
    ncu_total = sum(ncu_pcs.values())
    bs_total = prof["total_samples"]
    if ncu_total <= 0 or bs_total <= 0:
        sys.exit(2)
    base = min(ncu_pcs)  # the function's first instruction: pc offsets count from it
    bs_pc = {base + i["pc_offset"]: i for i in prof["instructions"]}
    failed = False
    out = [f"\n{a.kernel} ({config}): blockscope {bs_total} samples in {prof['launches']} launches "
           f"({prof['dropped_samples']} dropped), ncu {int(ncu_total)} samples\n",
           "| line (ncu's page) | blockscope | ncu | diff (pt) | top stalls (blockscope) | result |",
           "| --- | ---: | ---: | ---: | --- | --- |"]
    # 1. The stall mix per line as ncu's page lists lines (a line with inlined calls counts the
    #    callee's instructions too): blockscope's per-instruction samples gathered the same way.
    top = sorted(ncu_lines.items(), key=lambda kv: -kv[1][0])[: a.top]
    for key, (n, addresses) in top:
        theirs = 100.0 * n / ncu_total
        mine_n = sum(bs_pc[x]["samples"] for x in addresses if x in bs_pc)
        mine = 100.0 * mine_n / bs_total
        reasons = {}
        for x in addresses:
            for st in bs_pc.get(x, {}).get("stalls", []):
                if not st["reason"].endswith("_not_issued"):
                    reasons[st["reason"]] = reasons.get(st["reason"], 0) + st["samples"]
        named = ", ".join(r for r, _ in sorted(reasons.items(), key=lambda kv: -kv[1])[:2])
        ok = abs(mine - theirs) <= a.tolerance
        failed |= not ok
        out.append(f"| {key[0]}:{key[1]} | {mine:.1f}% | {theirs:.1f}% | {mine - theirs:+.1f} | {named} | "
                   f"{'pass' if ok else '**FAIL**'} |")
    # 2. The source line blockscope names for each instruction (the innermost: where the code is
    #    written) is one of the lines ncu lists it under, for the samples' 99%.
    listed = {}
    for key, (_, addresses) in ncu_lines.items():
        for x in addresses:
            listed.setdefault(x, set()).add(key)
    agree = 0
    for x, ins in bs_pc.items():
        if (os.path.basename(ins["file"]), ins["line"]) in listed.get(x, set()):
            agree += ins["samples"]
    agree_pct = 100.0 * agree / bs_total
    ok = agree_pct >= 99.0
    failed |= not ok
    out.append(f"\nSource line of each sampled instruction, blockscope's among ncu's: {agree_pct:.2f}% of the "
               f"samples ({'pass' if ok else '**FAIL**'}, gate 99%)")
    # 3. blockscope's own top lines (innermost), for the reader.
    own = sorted(prof["lines"], key=lambda l: -l["samples"])[: a.top]
    out.append("blockscope's top lines (innermost): " + "; ".join(
        f"{os.path.basename(l['file'])}:{l['line']} {l['share_pct']:.1f}% ({l['stalls'][0]['reason'] if l['stalls'] else '-'})"
        for l in own))
    text = "\n".join(out)
    print(text)
    if a.md:
        with open(a.md, "a") as f:
            f.write(text + "\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
