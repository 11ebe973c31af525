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
3. Per point: both medians with their 95% intervals, the ratio, and whether they agree: the
   intervals overlap, or the medians differ by less than the larger half-width plus 5% (the
   spread two separate processes see from clocks and caches alone).

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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--size", default="512x384")
    ap.add_argument("--kernel", default="gray_2d")
    ap.add_argument("--blocks", default="32x8,16x16,64x4,8x8,128x2,256x1,32x32,16x4")
    ap.add_argument("--mode", default="window", choices=["window", "headless"])
    ap.add_argument("--flush-l2", action="store_true",
                    help="both flush the L2 before every timed repeat (GPU; for problems that fit in it)")
    ap.add_argument("--json")
    ap.add_argument("--timeout", type=float, default=400)
    a = ap.parse_args()
    a.exe = os.path.abspath(a.exe)  # the app runs in a folder of its own
    w, h = (int(v) for v in a.size.split("x"))
    flush = ["--flush-l2"] if a.flush_l2 else []
    work = tempfile.mkdtemp(prefix="bs_sweep_agree_")
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(work, "xdg"))
    env.pop("BLOCKSCOPE_CONFIG_DIR", None)
    try:
        cli_json, ui_json, img = (os.path.join(work, n) for n in ("cli.json", "ui.json", "image.png"))
        t0 = time.monotonic()
        cli = subprocess.run([a.exe, "sweep", "gray", "--backend", a.backend, "--size", a.size, "--kernel", a.kernel,
                              "--blocks", a.blocks, "--set", "layout=planar", "--json", cli_json] + flush,
                             env=env, capture_output=True, text=True, timeout=a.timeout)
        cli_s = time.monotonic() - t0
        if cli.returncode != 0 or not os.path.exists(cli_json):
            sys.exit("blockscope sweep failed:\n" + cli.stdout[-3000:] + cli.stderr[-3000:])
        png(img, w, h)
        ui_args = [a.exe, img, "--backend", a.backend, "--kernel", a.kernel, "--sweep", "--blocks", a.blocks,
                   "--set", "layout=planar", "--json", ui_json, "--config-dir", os.path.join(work, "cfg")] + flush
        t0 = time.monotonic()
        if a.mode == "headless":
            ui = subprocess.run(ui_args + ["--headless"], env=env, capture_output=True, text=True, timeout=a.timeout)
            if ui.returncode != 0:
                sys.exit("the headless sweep failed:\n" + ui.stdout[-3000:] + ui.stderr[-3000:])
        else:
            log = open(os.path.join(work, "window.log"), "w")
            p = subprocess.Popen(ui_args, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=work)
            try:
                end = time.monotonic() + a.timeout
                while not os.path.exists(ui_json) and time.monotonic() < end and p.poll() is None:
                    time.sleep(0.2)
                time.sleep(0.5)
            finally:
                p.terminate()
                try:
                    p.wait(20)
                except subprocess.TimeoutExpired:
                    p.kill()
            if not os.path.exists(ui_json):
                sys.exit("the window wrote no sweep JSON; its log:\n" + open(os.path.join(work, "window.log")).read()[-3000:])
        ui_s = time.monotonic() - t0
        c, u = points(json.load(open(cli_json))), points(json.load(open(ui_json)))
        rows, agree, disagree, ratios = [], 0, 0, []
        print(f"{'point':<28} {'sweep (CLI) ms':>22} {'window ms':>22} {'ratio':>6}  agree")
        for key in sorted(set(c) & set(u), key=lambda k: c[k]["median_ms"]):
            x, y = c[key], u[key]
            hx = (x["ci_high_ms"] - x["ci_low_ms"]) / 2
            hy = (y["ci_high_ms"] - y["ci_low_ms"]) / 2
            overlap = not (x["ci_high_ms"] < y["ci_low_ms"] or y["ci_high_ms"] < x["ci_low_ms"])
            close = abs(x["median_ms"] - y["median_ms"]) <= max(hx, hy) + 0.05 * x["median_ms"]
            ok = overlap or close
            agree += ok
            disagree += not ok
            ratio = y["median_ms"] / x["median_ms"] if x["median_ms"] > 0 else float("nan")
            ratios.append(ratio)
            rows.append({"kernel": key[0], "config": key[1], "cli_median_ms": x["median_ms"], "cli_half_ms": hx,
                         "cli_repeats": x["repeats"], "window_median_ms": y["median_ms"], "window_half_ms": hy,
                         "window_repeats": y["repeats"], "ratio": ratio, "intervals_overlap": overlap, "agree": ok})
            print(f"{key[0] + ' ' + key[1]:<28} {x['median_ms']:10.4f} +-{100 * hx / x['median_ms']:5.1f}%   "
                  f"{y['median_ms']:10.4f} +-{100 * hy / y['median_ms']:5.1f}% {ratio:6.2f}  {'yes' if ok else 'NO'}")
        ratios.sort()
        out = {"backend": a.backend, "mode": a.mode, "size": a.size, "kernel": a.kernel, "blocks": a.blocks,
           "l2_flushed": a.flush_l2,
               "points": rows, "agree": agree, "disagree": disagree,
               "median_ratio": ratios[len(ratios) // 2] if ratios else None,
               "only_cli": [" ".join(k) for k in set(c) - set(u)], "only_window": [" ".join(k) for k in set(u) - set(c)],
               "cli_process_s": round(cli_s, 1), "window_process_s": round(ui_s, 1)}
        print(json.dumps({k: v for k, v in out.items() if k != "points"}))
        if a.json:
            with open(a.json, "w") as f:
                json.dump(out, f, indent=1)
        sys.exit(0 if disagree == 0 and rows else 1)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
