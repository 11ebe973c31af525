#!/usr/bin/env python3
"""Each budget of budgets.json beside the figure a run measured, and one line per budget missed.

  tools/budgets/check_budgets.py RESULTS [--budgets budgets.json] [--json OUT]
  tools/budgets/check_budgets.py --record NAME VALUE [--note TEXT] --into RESULTS/budget_figures.json

RESULTS is the folder the GPU checks write (tests/gpu/run_on_device.sh RESULTS PART) or any folder
holding the files the budgets name (window_cost.json from tools/window_cost/window_cost.py, ...).
A budget whose file is absent is "not measured" (the GPU machine does not run the window under
Xvfb; a part that did not run has no files): it is listed, not counted as missed.

Prints a table (budget, figure, limit, verdict), then "MISSED name: ..." for each figure past its
limit. Exit status: 1 when a budget was missed, 2 when budgets.json or a results file cannot be
read, 0 otherwise. --record adds (or replaces) one figure in a budget_figures.json, for figures the
check scripts time themselves. Python 3 standard library only.
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BUDGETS = os.path.normpath(os.path.join(HERE, "..", "..", "budgets.json"))


class Unreadable(Exception):
    pass


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise Unreadable(f"{path}: {e}")


def walk(value, path):
    """'a.b.c' through objects; a segment '*first' takes an object's first value. Keys may hold
    spaces and parentheses ('of_ceiling.copy (same run)'): only '.' separates."""
    for seg in path.split(".") if path else []:
        if value is None:
            return None
        if seg == "*first":
            value = next(iter(value.values()), None) if isinstance(value, dict) and value else None
        elif isinstance(value, dict):
            value = value.get(seg)
        elif isinstance(value, list) and seg.isdigit():
            i = int(seg)
            value = value[i] if i < len(value) else None
        else:
            return None
    return value


def picked(record, pick):
    for key, want in pick.items():
        if key == "kernel_prefix":
            if not str(record.get("kernel", "")).startswith(want):
                return False
        elif record.get(key) != want:
            return False
    return True


def figure(budget, results_dir):
    """(value or None, why not) for one budget."""
    src = budget["source"]
    path = os.path.join(results_dir, src["file"])
    if not os.path.exists(path):
        return None, f"not measured ({src['file']} absent)"
    if "regex" in src:
        try:
            with open(path, errors="replace") as f:
                text = f.read()
        except OSError as e:
            raise Unreadable(f"{path}: {e}")
        found = re.findall(src["regex"], text)
        if not found:
            return None, f"not measured (no line matching its pattern in {src['file']})"
        value = float(found[-1])
    else:
        doc = load_json(path)
        for key, want in src.get("when", {}).items():
            got = walk(doc, key)
            # Names as the tools print them ("CUDA", "cuda"): compared without case.
            same = got.lower() == want.lower() if isinstance(got, str) and isinstance(want, str) else got == want
            if not same:
                return None, f"not measured ({src['file']} has {key}={walk(doc, key)!r}, not {want!r})"
        if "records" in src:
            records = walk(doc, src["records"]) or []
            values = [walk(r, src["path"]) for r in records if isinstance(r, dict) and picked(r, src.get("pick", {}))]
            values = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
            if not values:
                return None, f"not measured (no record of {src['file']} matches {src.get('pick', {})} with {src['path']})"
            value = {"max": max, "min": min}[src.get("reduce", "max")](values)
        else:
            value = walk(doc, src["path"])
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                return None, f"not measured ({src['path']} absent from {src['file']})"
    return float(value) * src.get("scale", 1), ""


def check(budgets, results_dir):
    rows, missed = [], []
    for b in budgets["budgets"]:
        value, why = figure(b, results_dir)
        limit, at_most = b["limit"], b.get("at_most", True)
        if value is None:
            verdict = why
        elif (value <= limit) if at_most else (value >= limit):
            verdict = "ok"
        else:
            verdict = "MISSED"
            missed.append(b)
        rows.append({"name": b["name"], "figure": value, "limit": limit, "at_most": at_most, "unit": b["unit"],
                     "verdict": verdict, "measured_by": b.get("measured_by", "")})
    return rows, missed


def number(v):
    return "-" if v is None else f"{v:.4g}"


def report(rows):
    out = [f"{'budget':<38} {'figure':>10} {'limit':>12}  {'unit':<22} verdict"]
    for r in rows:
        limit = ("<= " if r["at_most"] else ">= ") + number(r["limit"])
        out.append(f"{r['name']:<38} {number(r['figure']):>10} {limit:>12}  {r['unit']:<22} {r['verdict']}")
    for r in rows:
        if r["verdict"] == "MISSED":
            out.append(f"MISSED {r['name']}: {number(r['figure'])} {r['unit']}, budget {'<=' if r['at_most'] else '>='} "
                       f"{number(r['limit'])} (measured by {r['measured_by']})")
    met = sum(r["verdict"] == "ok" for r in rows)
    miss = sum(r["verdict"] == "MISSED" for r in rows)
    out.append(f"budgets: {met} met, {miss} missed, {len(rows) - met - miss} not measured in this run")
    return "\n".join(out)


def record(name, value, note, into):
    figures = {}
    if os.path.exists(into):
        figures = load_json(into)
    figures[name] = {"value": value, "note": note}
    tmp = into + ".tmp"
    with open(tmp, "w") as f:
        json.dump(figures, f, indent=1)
        f.write("\n")
    os.replace(tmp, into)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="?", help="the folder holding the run's result files")
    ap.add_argument("--budgets", default=DEFAULT_BUDGETS)
    ap.add_argument("--json", help="also write the table as JSON here")
    ap.add_argument("--record", nargs=2, metavar=("NAME", "VALUE"), help="add a figure to --into")
    ap.add_argument("--note", default="")
    ap.add_argument("--into", help="the budget_figures.json --record writes")
    a = ap.parse_args(argv)
    try:
        if a.record:
            if not a.into:
                ap.error("--record needs --into")
            record(a.record[0], float(a.record[1]), a.note, a.into)
            return 0
        if not a.results:
            ap.error("RESULTS is needed")
        rows, missed = check(load_json(a.budgets), a.results)
    except Unreadable as e:
        print(f"check_budgets: cannot read {e}", file=sys.stderr)
        return 2
    print(report(rows))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"budgets": rows, "missed": [m["name"] for m in missed]}, f, indent=1)
            f.write("\n")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
