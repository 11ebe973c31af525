#!/usr/bin/env python3
"""A SYNTHETIC pipeline trace of T4 (tc4_warp_specialized) at 4096^3 on a 132-SM GPU, in the text
format of kernels/labs/matmul/pipeline_trace.hpp, for looking at the Pipeline tab where no Hopper
GPU is at hand (the CPU cannot launch T4):

    tools/pipeline_synth/make_synthetic_trace.py synthetic_t4.trace
    blockscope --lab matmul --panel pipeline --matmul-pipeline-trace synthetic_t4.trace ...

It is a model, not a measurement: a producer issuing 4 stages ahead, each stage's bytes landing
~0.7-1.3 us after issue, two consumers spending ~0.8 us of wgmma a slice, and an epilogue. The
view labels a loaded file as such; only a recording from the GPU (tests/matmul/test_pipeline_gpu
with BS_PIPELINE_TRACE_DIR, or the tab on a Hopper GPU) shows what ran."""
import random
import sys

SMS, GX, GY, SLICES, STAGES = 132, 16, 32, 64, 4
rng = random.Random(20)
out = [
    "blockscope-pipeline-trace 1",
    "kernel tc4_warp_specialized",
    "config SYNTHETIC (tools/pipeline_synth): 128 x 256 tile, producer + 2 consumer warpgroups, BK=64, 4 stages",
    "size 4096 4096 4096",
    f"grid {GX} {GY} 1",
    "cluster 1 1 1",
    f"stages {STAGES}",
    "persistent 0",
]
T0 = 1_700_000_000_000
sm_free = [(rng.randint(0, 900), s) for s in range(SMS)]
blocks, lanes = [], []
for b in range(GX * GY):
    sm_free.sort()
    start, sm = sm_free.pop(0)
    start += rng.randint(300, 700)
    ev = [[], [], []]
    t_prod = start + 150
    full, release = [0] * SLICES, [0] * SLICES
    t_cons = [start + 250, start + 260]
    slow = 1.0 + (0.25 if rng.random() < 0.15 else 0.0)  # a few blocks see a busier L2
    for kt in range(SLICES):
        st = kt % STAGES
        ewb = t_prod
        ewe = ewb if kt < STAGES else max(ewb, release[kt - STAGES] + 20)
        issued = ewe + rng.randint(40, 80)
        ev[0] += [(1, st, kt, ewb), (2, st, kt, ewe), (3, st, kt, issued)]
        full[kt] = ewe + int(rng.randint(650, 1000) * slow)
        t_prod = issued
        for c in range(2):
            fwb = t_cons[c]
            fwe = max(fwb, full[kt]) + 8
            commit = fwe + rng.randint(30, 50)
            done = commit + rng.randint(740, 800)
            arrive = done + 12
            ev[1 + c] += [(4, st, kt, fwb), (5, st, kt, fwe), (6, st, kt, commit), (7, st, kt, done), (8, st, kt, arrive)]
            t_cons[c] = arrive
        release[kt] = max(t_cons)
    end = 0
    for c in range(2):
        eb = t_cons[c]
        ee = eb + rng.randint(2200, 2800)
        ev[1 + c] += [(9, 0, SLICES, eb), (10, 0, SLICES, ee)]
        end = max(end, ee)
    end += 120
    blocks.append((sm, start, end))
    lanes.append(ev)
    sm_free.append((end, sm))
first = min(s for _, s, _ in blocks)
last = max(e for _, _, e in blocks)
out.append(f"event_ms {(last - first + 4000) / 1e6:.9g}")
out.append("capacity 322")
for i, (sm, s, e) in enumerate(blocks):
    out.append(f"block {i} {sm} {T0 + s} {T0 + e} -1")
for i, ev in enumerate(lanes):
    for wg in range(3):
        out.append(f"lane {i} {wg} {len(ev[wg])} {len(ev[wg])}")
        for kind, st, kt, t in ev[wg]:
            out.append(f"e {kind} {st} {kt} {i} {T0 + t} {int(t * 1.755) & 0xffffffff}")
open(sys.argv[1] if len(sys.argv) > 1 else "synthetic_t4.trace", "w").write("\n".join(out) + "\n")
