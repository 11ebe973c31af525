#!/usr/bin/env python3
"""The window's sweep against `blockscope sweep` on the same problem: do they agree?

  tools/window_cost/sweep_agreement.py BLOCKSCOPE [--backend cpu|cuda] [--size 512x384]
        [--kernel gray_2d] [--blocks 32x8,16x16,...] [--mode window|headless] [--flush-l2] [--json OUT]

1. `blockscope sweep gray --size WxH --kernel K --blocks LIST --json cli.json` (no GL at all).
2. The same sweep started in the UI on an image of the same size (the gray kernels' time does not
   depend on the pixels' values): --mode window opens a real window ($DISPLAY; under Xvfb here)
   and starts it with --sweep, the window writing --json when the sweep ends; --mode headless is
   the same App on EGL (the GPU machine, which has no X display), pacing its frames as the
   window does.
3. Steps 1 and 2 alternate --runs times (3 on the CPU: the simulation's times move by up to a
   third between two processes on a 2-core machine, far beyond one process's 95% interval).
   Per point: the medians of the runs' medians, and whether they agree: they differ by no more
   than the larger of the widest 95% half-width and the CLI runs' own spread, plus 5%.
On a GPU a problem that fits in the L2 (3840x2160 planar: 33 MB; 50 MB of L2 on the H100 and
H200) is timed with warm caches, each process timing what it left there: --flush-l2 for such
sizes.

Prints a table and one JSON object (--json writes it too): {"points": [...], "agree": n,
"disagree": n, "median_ratio": r, ...}. Exit 0 when every point that both measured agrees.
"""
import argparse, json, os, shutil, struct, subprocess, sys, tempfile, time, zlib


def png(path, w, h):
    row = bytes((x * 7 + c * 85) & 255 for x in range(w) for c in range(3))
    z = zlib.compressobj(1)
    data = []
    for y in range(h):
        s = (y * 3) % (3 * w)
        data.append(z.compress(b"\x00" + row[s:] + row[:s]))
    data.append(z.flush())

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", b"".join(data)) + chunk(b"IEND", b""))


def points(doc):
    out = {}
    for r in doc["results"]:
        if r.get("outcome") != "ok":
            continue
        out[(r["kernel"], r["config"])] = r
    return out


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--size", default="512x384")
    ap.add_argument("--kernel", default="gray_2d")
    ap.add_argument("--blocks", default="32x8,16x16,64x4,8x8,128x2,256x1,32x32,16x4")
    ap.add_argument("--mode", default="window", choices=["window", "headless"])
    ap.add_argument("--runs", type=int, default=0,
                    help="sweeps of each kind, alternating (default: 3 on the CPU, 1 on the GPU)")
    ap.add_argument("--flush-l2", action="store_true",
                    help="both flush the L2 before every timed repeat (GPU; for problems that fit in it)")
    ap.add_argument("--json")
    ap.add_argument("--timeout", type=float, default=400)
    a = ap.parse_args()
    a.exe = os.path.abspath(a.exe)  # the app runs in a folder of its own
    runs = a.runs or (3 if a.backend == "cpu" else 1)
    w, h = (int(v) for v in a.size.split("x"))
    flush = ["--flush-l2"] if a.flush_l2 else []
    work = tempfile.mkdtemp(prefix="bs_sweep_agree_")
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(work, "xdg"))
    env.pop("BLOCKSCOPE_CONFIG_DIR", None)
    img = os.path.join(work, "image.png")
    png(img, w, h)

    def cli_sweep(i):
        out = os.path.join(work, f"cli{i}.json")
        r = subprocess.run([a.exe, "sweep", "gray", "--backend", a.backend, "--size", a.size, "--kernel", a.kernel,
                            "--blocks", a.blocks, "--set", "layout=planar", "--json", out] + flush,
                           env=env, capture_output=True, text=True, timeout=a.timeout)
        if r.returncode != 0 or not os.path.exists(out):
            sys.exit("blockscope sweep failed:\n" + r.stdout[-3000:] + r.stderr[-3000:])
        return points(json.load(open(out)))

    def ui_sweep(i):
        out = os.path.join(work, f"ui{i}.json")
        args = [a.exe, img, "--backend", a.backend, "--kernel", a.kernel, "--sweep", "--blocks", a.blocks,
                "--set", "layout=planar", "--json", out, "--config-dir", os.path.join(work, f"cfg{i}")] + flush
        if a.mode == "headless":
            r = subprocess.run(args + ["--headless"], env=env, capture_output=True, text=True, timeout=a.timeout)
            if r.returncode != 0:
                sys.exit("the headless sweep failed:\n" + r.stdout[-3000:] + r.stderr[-3000:])
        else:
            log_path = os.path.join(work, f"window{i}.log")
            with open(log_path, "w") as log:
                p = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=work)
                try:
                    end = time.monotonic() + a.timeout
                    while not os.path.exists(out) and time.monotonic() < end and p.poll() is None:
                        time.sleep(0.2)
                    time.sleep(0.5)
                finally:
                    p.terminate()
                    try:
                        p.wait(20)
                    except subprocess.TimeoutExpired:
                        p.kill()
            if not os.path.exists(out):
                sys.exit("the window wrote no sweep JSON; its log:\n" + open(log_path).read()[-3000:])
        return points(json.load(open(out)))

    try:
        cli_runs, ui_runs = [], []
        t0 = time.monotonic()
        for i in range(runs):  # alternating, so a drift of the machine falls on both
            cli_runs.append(cli_sweep(i))
            ui_runs.append(ui_sweep(i))
        wall_s = time.monotonic() - t0
        keys = set.intersection(*(set(r) for r in cli_runs + ui_runs))
        rows, agree, disagree, ratios = [], 0, 0, []
        print(f"{'point':<24} {'sweep (CLI) ms':>14} {'CLI runs':>21} {'window ms':>10} {'window runs':>21} {'ratio':>6}  agree")
        for key in sorted(keys, key=lambda k: median([r[k]["median_ms"] for r in cli_runs])):
            c = [r[key] for r in cli_runs]
            u = [r[key] for r in ui_runs]
            cm, um = median([x["median_ms"] for x in c]), median([x["median_ms"] for x in u])
            # How far apart two sweeps of the same point land: within one process its 95% interval
            # (the widest half-width of any run), across processes the CLI's own runs' spread.
            half = max((x["ci_high_ms"] - x["ci_low_ms"]) / 2 for x in c + u)
            spread = max(x["median_ms"] for x in c) - min(x["median_ms"] for x in c)
            tolerance = max(half, spread) + 0.05 * cm
            ok = abs(um - cm) <= tolerance
            agree += ok
            disagree += not ok
            ratio = um / cm if cm > 0 else float("nan")
            ratios.append(ratio)
            rows.append({"kernel": key[0], "config": key[1], "cli_median_ms": cm, "cli_runs_ms": [x["median_ms"] for x in c],
                         "window_median_ms": um, "window_runs_ms": [x["median_ms"] for x in u],
                         "widest_half_width_ms": half, "cli_run_spread_ms": spread, "tolerance_ms": tolerance,
                         "ratio": ratio, "agree": ok})
            fmt = lambda v: "/".join(f"{x:.3g}" for x in v)
            print(f"{key[0] + ' ' + key[1]:<24} {cm:14.4f} {fmt([x['median_ms'] for x in c]):>21} {um:10.4f} "
                  f"{fmt([x['median_ms'] for x in u]):>21} {ratio:6.2f}  {'yes' if ok else 'NO'}")
        ratios.sort()
        out = {"backend": a.backend, "mode": a.mode, "size": a.size, "kernel": a.kernel, "blocks": a.blocks,
               "l2_flushed": a.flush_l2, "runs": runs, "points": rows, "agree": agree, "disagree": disagree,
               "median_ratio": ratios[len(ratios) // 2] if ratios else None, "wall_s": round(wall_s, 1),
               "rule": "agree: |window - CLI| (medians of the runs' medians) <= max(widest 95% half-width, the CLI "
                       "runs' spread) + 5% of the CLI's"}
        print(json.dumps({k: v for k, v in out.items() if k != "points"}))
        if a.json:
            with open(a.json, "w") as f:
                json.dump(out, f, indent=1)
        sys.exit(0 if disagree == 0 and rows else 1)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
