#!/usr/bin/env python3
"""What the window costs while nothing changes, and how fast it answers while the CPU simulates.

  tools/window_cost/window_cost.py BLOCKSCOPE [--json OUT] [--seconds 10] [--label before]

Runs blockscope in a real window (the X display in $DISPLAY: xvfb-run -a -s "-screen 0 1600x1000x24"
in CI) with the CPU backend, its settings in a fresh folder, and measures from outside, as a user
would feel it:

  idle        the grayscale lab with "Run continuously" off (Ctrl+Shift+R), after it settled: the
              process's CPU time over SECONDS (utime + stime from /proc/PID/stat) as a share of
              one core, and the frames it drew meanwhile (the status file's frame counter).
  idle_default the same with the defaults a new user gets (continuous runs on).
  interactive the matmul lab with k3_smem_tiled at 256^3 (a simulated launch of seconds on the
              worker thread): F1 pressed N times; for each, the time from the key event to the
              status file saying the help overlay changed (the frame that answered it; xdotool's
              own start included), and what that frame took to draw (the status file's frame_ms).
  sweep_frames the frames drawn per second while a sweep runs (Ctrl+W), and the CPU share.

Prints one JSON object (and writes it to --json). Needs xdotool. No GPU: the numbers are the
window's under Xvfb with Mesa's software renderer, which is the worst case for drawing.
"""
import argparse, json, os, shutil, signal, subprocess, sys, tempfile, time

CLK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK  # utime, stime (fields 14, 15)


class App:
    def __init__(self, exe, args, work):
        self.work = work
        self.status_path = os.path.join(work, "status.json")
        if os.path.exists(self.status_path):
            os.remove(self.status_path)
        env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(work, "xdg"))
        env.pop("BLOCKSCOPE_CONFIG_DIR", None)
        self.log = open(os.path.join(work, "app.log"), "w")
        self.p = subprocess.Popen([exe, "--backend", "cpu", "--config-dir", os.path.join(work, "cfg"),
                                   "--status-file", self.status_path] + args,
                                  cwd=work, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        self.window = None

    def status(self):
        try:
            with open(self.status_path) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def wait(self, ok, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.p.poll() is not None:
                raise RuntimeError("blockscope exited: see " + self.log.name)
            s = self.status()
            if s and ok(s):
                return s
            time.sleep(0.005)
        return None

    def find_window(self, timeout=60):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            r = subprocess.run(["xdotool", "search", "--pid", str(self.p.pid), "--name", "^blockscope$"],
                               capture_output=True, text=True)
            ids = r.stdout.split()
            if ids:
                self.window = ids[0]
                return
            time.sleep(0.1)
        raise RuntimeError("no blockscope window")

    def key(self, keys):
        subprocess.run(["xdotool", "key", "--window", self.window, keys], check=True)

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.log.close()


def share_over(app, seconds):
    s0 = app.status() or {}
    c0, t0 = cpu_s(app.p.pid), time.monotonic()
    time.sleep(seconds)
    c1, t1 = cpu_s(app.p.pid), time.monotonic()
    s1 = app.status() or {}
    frames = s1.get("frame", 0) - s0.get("frame", 0)
    return {"cpu_share_of_a_core": round((c1 - c0) / (t1 - t0), 4), "seconds": round(t1 - t0, 2),
            "frames_written": frames}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("--json")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--presses", type=int, default=10)
    ap.add_argument("--label", default="")
    ap.add_argument("--skip", default="", help="comma-separated parts to skip")
    a = ap.parse_args()
    a.exe = os.path.abspath(a.exe)  # the app runs in a folder of its own
    if not shutil.which("xdotool"):
        sys.exit("xdotool is needed")
    skip = set(filter(None, a.skip.split(",")))
    out = {"label": a.label, "exe": a.exe, "display": os.environ.get("DISPLAY", ""), "cores": os.cpu_count()}
    work = tempfile.mkdtemp(prefix="bs_window_cost_")
    try:
        # 1. Idle, continuous off: the grayscale lab on its sample, nothing happening.
        if "idle" not in skip:
            app = App(a.exe, ["--lab", "gray"], work)
            try:
                app.find_window()
                app.wait(lambda s: s.get("launch", {}).get("ok"), 60)
                app.key("ctrl+shift+r")  # Run continuously: off
                time.sleep(3)
                out["idle_default"] = None
                out["idle"] = share_over(app, a.seconds)
            finally:
                app.stop()
            # The defaults a new user sees (continuous runs on).
            app = App(a.exe, ["--lab", "gray"], work)
            try:
                app.find_window()
                app.wait(lambda s: s.get("launch", {}).get("ok"), 60)
                time.sleep(3)
                out["idle_default"] = share_over(app, a.seconds)
            finally:
                app.stop()
        # 2. Interactive while the CPU simulates a slow launch: F1 answered how fast.
        if "interactive" not in skip:
            app = App(a.exe, ["--lab", "matmul", "--kernel", "k3_smem_tiled", "--matmul-size", "256x256x256"], work)
            try:
                app.find_window()
                app.wait(lambda s: s.get("ui", {}).get("launch_in_flight"), 60)
                lat, during, frame_ms = [], [], []
                for i in range(a.presses):
                    want = not bool((app.status() or {}).get("ui", {}).get("help"))
                    t0 = time.monotonic()
                    app.key("F1")
                    s = app.wait(lambda s: s.get("ui", {}).get("help") == want, 20)
                    dt = time.monotonic() - t0
                    lat.append(round(dt * 1000, 1) if s else None)
                    during.append(bool(s and s["ui"].get("launch_in_flight")))
                    if s and s["ui"].get("launch_in_flight") and "frame_ms" in s["ui"]:
                        frame_ms.append(s["ui"]["frame_ms"])  # the frame that answered, drawn while simulating
                    time.sleep(0.3)
                ok = sorted(x for x in lat if x is not None)
                out["interactive"] = {
                    "what": "F1 pressed while matmul k3_smem_tiled 256^3 simulates: ms from the key to the status file showing it",
                    "latency_ms": lat, "median_ms": ok[len(ok) // 2] if ok else None, "max_ms": ok[-1] if ok else None,
                    "answered_while_simulating": sum(during)}
                if frame_ms:
                    frame_ms.sort()
                    out["interactive"].update({"frame_ms": frame_ms, "frame_median_ms": frame_ms[len(frame_ms) // 2],
                                               "frame_max_ms": frame_ms[-1]})
            finally:
                app.stop()
        # 3. A sweep in the window: frames drawn and CPU share while it measures.
        if "sweep" not in skip:
            app = App(a.exe, ["--lab", "gray", "--kernel", "gray_2d"], work)
            try:
                app.find_window()
                app.wait(lambda s: s.get("launch", {}).get("ok"), 60)
                app.key("ctrl+shift+r")
                time.sleep(1)
                app.key("ctrl+w")
                time.sleep(1)
                out["sweep_frames"] = share_over(app, min(a.seconds, 5))
            finally:
                app.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = json.dumps(out, indent=1)
    print(text)
    if a.json:
        with open(a.json, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
