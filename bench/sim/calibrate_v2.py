#!/usr/bin/env python3
"""v2 cost models for hce-sim (docs/simulator.md, "Calibration").

  usage: bench/sim/calibrate.py --v2 --traces DIR --overhead FILE --sim HCE_SIM
                                --suite CSV=RUN [--suite CSV=RUN ...]
                                [--keep OLD_PROFILE] [--latency S] [--batch S]
                                > PROFILE

  --traces    the traced single-device runs (<bench>-cpu-static and
              <bench>-cuda_0-static .stats.json/.trace.json; the H100 set
              of 2026-11-23 is ../shared/perf/h100-2026-11-23/traces.tar.xz)
  --overhead  hce_bench_region_overhead's output on the same machine
              (bench/results/region-overhead-h100-2026-11-24-i.txt)
  --suite     bench/suite.py CSVs, each named by its run (I, I-A, G2a); the
              first CSV that has a benchmark gives all of its numbers;
              CSV=RUN:blocked for a run whose configurations were not
              interleaved (bench/suite.py before 03e76ea: runs G, H)
  --sim       the hce-sim binary (used to scale the devices' costs to the
              suite's single-device medians)
  --keep      a profile whose hand-set values to write through (what the
              traces alone do not give; docs/simulator.md, "Profile format"):
              the comment block before its `overhead` line; its `cpu_team`,
              `staging_pool`, `prepare_registering`, `pipeline_first`,
              `contention` and `copy_threads_beside` lines; every
              `lanes=`/`kernel_lanes=` of its `cost` lines; and every
              `cost` or `link` line with comment lines right above it
              (hand-set from the traces they cite),
              whole with its comments, but for `scale=`, refitted as any
              other.  A kept line whose bench or region is not in LAYOUT is
              reported on stderr and dropped.
  --latency   a copy's (a batch's) latency on every link, kept lines' assumed
              5 us included (default: 5 us assumed)
  --batch     `batch=S` on every link: a step's copies in one direction pay
              one latency and S for each further copy (default: none)

What comes from where:
  * the maps (arrays, rows, which rows an iteration reads and writes, data
    regions): LAYOUT below, from examples/*.c at bench/suite.py's sizes; the
    simulator moves bytes by them (residency.hpp);
  * the link: per benchmark, bytes over seconds of the GPU trace's upload
    and download stages (copies of row maps; broadcasts are uploaded by the
    preparation, outside the stages); where a benchmark moves too little to
    tell, the median of the data-region benchmarks (pinned host memory);
    5 us per copy;
  * the GPU's compute per region: its busy time in the trace less its
    copies at that link; the per-chunk overhead 10 us (launch + sync), or
    with the lanes fitted on the co-executed runs' chunks (one-region
    benchmarks, as v1 did);
  * the GPU's preparation in the first execution of a run (pinning,
    windows): wall - busy - executions x the per-execution overhead -
    broadcast uploads, from the same trace;
  * the CPU's compute per region from its trace (busy per execution; 5 us
    per fork), its preparation per execution (wall - busy - overhead);
  * the per-execution overheads: the region-overhead benchmark's medians
    (static on cpu, on cuda:0, both on cpu,cuda:0; auto on cpu,cuda:0 with
    the CPU alone), less the chunk's own fork or launch;
  * the CPU's slowdown under copies: host-dram-under-dma.cu (README of the
    2026-11-23 set): CPU triad 79.8 GB/s alone, 61.0-61.5 GB/s beside
    pinned copies in both directions: 79.8 / 61.25 = 1.30;
  * the scale of each device: the traces are of the 2026-11-23 build; the
    factor that makes the simulated single-device run equal the suite's
    median of the named run (applied to all of that device's times; the
    per-execution overheads are not scaled).
"""
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

import calibrate as v1

LAT = 5e-6           # per copy (assumed; --latency sets it)
BATCH = None         # --batch: a batch's further copies (link ... batch=S)
GPU_O = 10e-6        # a kernel launch + synchronise
CPU_O = 5e-6         # an OpenMP fork
CPU_THREADS = 16
DMA_SLOWDOWN = 79.8 / 61.25

# Arrays: (name, bytes per row, rows, resident (in a data region), home
# (`update from` after every execution)).  Regions: W, executions, base (row
# of iteration 0), flat (the CPU variant flattens the nest), shrink (lud),
# swap (bfs), uses.
LAYOUT = {
    "matadd": dict(
        arrays=[("A", 8192 * 8, 8192, 0, 0), ("B", 8192 * 8, 8192, 0, 0),
                ("C", 8192 * 8, 8192, 0, 0)],
        regions={"matadd.c:41": dict(W=8192, execs=1, flat=1, uses=[
            ("A", "to", 0, 1), ("B", "to", 0, 1), ("C", "from", 0, 1)])}),
    "blackscholes": dict(
        arrays=[(a, 8, 1 << 24, 0, 0) for a in ("S", "X", "T", "call", "put")],
        regions={"blackscholes": dict(W=1 << 24, execs=1, uses=[
            ("S", "to", 0, 1), ("X", "to", 0, 1), ("T", "to", 0, 1),
            ("call", "from", 0, 1), ("put", "from", 0, 1)])}),
    "gemm": dict(
        arrays=[("A", 2048 * 8, 2048, 0, 0), ("B", 2048 * 2048 * 8, 1, 0, 0),
                ("C", 2048 * 8, 2048, 0, 0)],
        regions={"gemm": dict(W=2048, execs=1, flat=1, uses=[
            ("A", "to", 0, 1), ("B", "to", "whole"), ("C", "tofrom", 0, 1)])}),
    "jacobi2d": dict(
        arrays=[("A", 4096 * 8, 4096, 1, 0), ("B", 4096 * 8, 4096, 1, 0)],
        regions={
            "jacobi2d.sweep_AB": dict(W=4094, execs=20, base=1, flat=1, uses=[
                ("A", "to", -1, 2), ("B", "from", 0, 1)]),
            "jacobi2d.sweep_BA": dict(W=4094, execs=20, base=1, flat=1, uses=[
                ("B", "to", -1, 2), ("A", "from", 0, 1)])}),
    # heat3d's written planes are uploaded before they are written (the
    # GPU alone moved both grids in run I, 268435456 bytes, where jacobi2d
    # moved one and its halo rows): `from` is not taken over, so tofrom.
    "heat3d": dict(
        arrays=[("A", 256 * 256 * 8, 256, 1, 0), ("B", 256 * 256 * 8, 256, 1, 0)],
        regions={
            "heat3d.sweep_AB": dict(W=254, execs=10, base=1, flat=1, uses=[
                ("A", "to", -1, 2), ("B", "tofrom", 0, 1)]),
            "heat3d.sweep_BA": dict(W=254, execs=10, base=1, flat=1, uses=[
                ("B", "to", -1, 2), ("A", "tofrom", 0, 1)])}),
    "fdtd2d": dict(
        arrays=[(a, 2048 * 8, 2048, 1, 0) for a in ("ex", "ey", "hz")],
        regions={
            "fdtd2d.ey": dict(W=2047, execs=10, base=1, flat=1, uses=[
                ("ey", "tofrom", 0, 1), ("hz", "to", -1, 1)]),
            "fdtd2d.ex": dict(W=2048, execs=10, flat=1, uses=[
                ("ex", "tofrom", 0, 1), ("hz", "to", 0, 1)]),
            "fdtd2d.hz": dict(W=2047, execs=10, flat=1, uses=[
                ("hz", "tofrom", 0, 1), ("ex", "to", 0, 1), ("ey", "to", 0, 2)])}),
    "nbody": dict(
        arrays=[("pos", 32, 16384, 0, 0), ("vel", 24, 16384, 0, 0)],
        regions={
            "nbody.forces": dict(W=16384, execs=2, uses=[
                ("pos", "to", "whole"), ("vel", "tofrom", 0, 1)]),
            "nbody.move": dict(W=16384, execs=2, uses=[
                ("pos", "tofrom", 0, 1), ("vel", "to", 0, 1)])}),
    "kmeans": dict(
        # C is rewritten by the host (update to) before every execution: not
        # kept on the GPU, a 2 KiB broadcast each time.
        arrays=[("X", 16 * 8, 1 << 20, 1, 0), ("label", 4, 1 << 20, 1, 1),
                ("C", 16 * 16 * 8, 1, 0, 0)],
        regions={"kmeans.assign": dict(W=1 << 20, execs=5, uses=[
            ("X", "to", 0, 1), ("C", "to", "whole"), ("label", "tofrom", 0, 1)])}),
    "mcpi": dict(arrays=[], regions={"mcpi": dict(W=781250, execs=1, uses=[])}),
    "cg": dict(
        arrays=[("rowptr", 8, (1 << 20) + 1, 1, 0), ("val", 72, 1 << 20, 1, 0),
                ("col", 36, 1 << 20, 1, 0), ("p", 8, (1 << 20) + 8, 1, 0),
                ("q", 8, 1 << 20, 1, 0), ("x", 8, 1 << 20, 1, 0),
                ("r", 8, 1 << 20, 1, 0)],
        regions={
            "cg.spmv": dict(W=1 << 20, execs=10, uses=[
                ("rowptr", "to", 0, 2), ("val", "to", 0, 1), ("col", "to", 0, 1),
                ("p", "to", 0, 9), ("q", "from", 0, 1)]),
            "cg.dot": dict(W=1 << 20, execs=10, uses=[
                ("p", "to", 4, 5), ("q", "to", 0, 1)]),
            "cg.update_xr": dict(W=1 << 20, execs=10, uses=[
                ("p", "to", 4, 5), ("q", "to", 0, 1), ("x", "tofrom", 0, 1),
                ("r", "tofrom", 0, 1)]),
            "cg.update_p": dict(W=1 << 20, execs=10, uses=[
                ("r", "to", 0, 1), ("p", "tofrom", 4, 5)])}),
    "bfs": dict(
        arrays=[("rowptr", 8, (1 << 20) + 1, 1, 0), ("adj", 33554408, 1, 1, 0),
                ("level", 4, 1 << 20, 1, 0), ("next", 4, 1 << 20, 1, 0)],
        regions={"bfs.level": dict(W=1 << 20, execs=10, swap="level,next", uses=[
            ("rowptr", "to", 0, 2), ("adj", "to", "whole"), ("level", "to", "whole"),
            ("next", "from", 0, 1)])}),
    "lud": dict(
        arrays=[("A", 512 * 8, 512, 0, 0), ("pivot", 512 * 8, 1, 0, 0)],
        regions={"lud.update": dict(W=511, execs=511, base=1, shrink=1, flat=1, uses=[
            ("A", "tofrom", 0, 1), ("pivot", "to", "whole")])}),
}


def region_sum(reg):
    """Sum over executions of W_e * row scale (the work of the region in
    units of a first-execution iteration)."""
    if not reg.get("shrink"):
        return reg["W"] * reg["execs"]
    W = reg["W"]
    return sum(max(1, W - e) ** 2 / W for e in range(reg["execs"]))


def whole_bytes(layout, rname):
    """Bytes the GPU's preparation uploads for a region's broadcasts over a
    run (once for a data region's array, every execution otherwise)."""
    arrays = {a[0]: a for a in layout["arrays"]}
    reg = layout["regions"][rname]
    total, copies = 0.0, 0
    for u in reg["uses"]:
        if len(u) == 3 and u[1] in ("to", "tofrom"):
            name, rowbytes, rows, resident, _ = arrays[u[0]]
            n = 1 if resident else reg["execs"]
            total += rowbytes * rows * n
            copies += n
    return total, copies


def read_overheads(path):
    med = {}
    for line in open(path):
        m = re.match(r"BM_ResidentRegion/([^/]+)/(\w+)/.*_median\s+([0-9.]+) us", line)
        if m:
            med[(m.group(1), m.group(2))] = float(m.group(3)) * 1e-6
    return dict(cpu=med[("cpu", "static")] - CPU_O,
                gpu=med[("cuda:0", "static")] - GPU_O,
                pair=med[("cpu,cuda:0", "auto")] - CPU_O,
                both=med[("cpu,cuda:0", "static")] - GPU_O)


def read_suites(specs):
    """bench -> (run, {config: median}, {config: bytes}, reps,
    {config: (min, max)})"""
    out = {}
    for spec in specs:
        path, run = spec.rsplit("=", 1)
        run, _, order = run.partition(":")
        rows = list(csv.DictReader(open(path)))
        for b in sorted({r["benchmark"] for r in rows}):
            if b in out:
                continue
            med, byt, reps, spread = {}, {}, 0, {}
            for r in rows:
                if r["benchmark"] != b or r["verified"] != "True":
                    continue
                label = r["config"].replace(" ", "-")
                med[label] = float(r["median_s"])
                byt[label] = float(r["bytes_moved"])
                spread[label] = (float(r["min_s"]), float(r["max_s"]))
                reps = int(r["reps"])
            out[b] = (run, med, byt, reps, spread, order)
    return out


def trace_link(traces, b, layout):
    """(up bytes/s, down bytes/s) of a benchmark's GPU trace, None where it
    moved too little (< 1 ms) to tell."""
    stats = os.path.join(traces, f"{b}-cuda_0-static.stats.json")
    if not os.path.exists(stats):
        return None, None
    st = v1.stage_totals(stats.replace(".stats.", ".trace."))
    regions = json.load(open(stats))["regions"]
    up = sum(d["bytes_to_device"] for r in regions for d in r["devices"]
             if d["device"] == "cuda:0")
    down = sum(d["bytes_from_device"] for r in regions for d in r["devices"]
               if d["device"] == "cuda:0")
    up -= sum(whole_bytes(layout, r["name"])[0] for r in regions
              if r["name"] in layout["regions"])
    bw_up = up / st["upload"] if st.get("upload", 0) > 1e-3 and up > 0 else None
    bw_down = down / st["download"] if st.get("download", 0) > 1e-3 and down > 0 else None
    return bw_up, bw_down


def device_region(traces, b, tag, rname):
    stats = os.path.join(traces, f"{b}-{tag}-static.stats.json")
    if not os.path.exists(stats):
        return None
    for r in json.load(open(stats))["regions"]:
        if r["name"] == rname:
            d = next(x for x in r["devices"] if x["device"] == v1.DEVNAME[
                "cpu" if tag == "cpu" else "gpu"])
            return dict(wall=r["wall_seconds"], busy=d["busy_seconds"],
                        up=d["bytes_to_device"], down=d["bytes_from_device"],
                        execs=r["executions"])
    return None


def gpu_first_launch(traces, b, rname):
    """Seconds the first chunk of a region's kernel costs over the others
    (module loading; the first reduction kernel of a process ~8 ms on the
    H100): in the GPU-alone trace, where each execution is one chunk and
    the regions take turns, the first execution's compute over the median
    of the later ones; for a region executed once (the benchmark's only
    region, so the first GPU chunk is its), the first GPU chunk of
    the co-executed traces over what the largest later chunk predicts for
    its size (median over the schedulers)."""
    import collections
    stats = os.path.join(traces, f"{b}-cuda_0-static.stats.json")
    if os.path.exists(stats):
        regs = [r["name"] for r in json.load(open(stats))["regions"]]
        ev = gpu_compute_events(stats.replace(".stats.", ".trace."))
        if rname in regs:
            d = [t for _, t in ev[regs.index(rname)::len(regs)]]
            if len(d) >= 2:
                return max(0.0, d[0] - statistics.median(d[1:]))
    vals = []
    for f in sorted(os.listdir(traces)):
        if f.startswith(b + "-cpu+cuda_0-") and f.endswith(".trace.json"):
            pts = gpu_compute_events(os.path.join(traces, f))
            if len(pts) < 3:
                continue
            (n0, d0), (nl, dl) = pts[0], max(pts[1:])
            vals.append(d0 - (GPU_O + (dl - GPU_O) * n0 / nl))
    return max(0.0, statistics.median(vals)) if vals else 0.0


def untraced_kernel_o(traces, b):
    """The per-chunk kernel time of a benchmark without a GPU-alone trace:
    the median of its co-executed traces' GPU compute events (the first of
    each, which carries the first launch, left out)."""
    times = []
    for f in sorted(os.listdir(traces)):
        if f.startswith(b + "-cpu+cuda_0-") and f.endswith(".trace.json"):
            times += [t for _, t in gpu_compute_events(os.path.join(traces, f))[1:]]
    return statistics.median(times) if times else GPU_O


def gpu_compute_events(trace):
    """(iterations, seconds) of the GPU's compute events in time order."""
    t = json.load(open(trace))["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in t
             if e["ph"] == "M" and e["name"] == "thread_name"}
    ev = sorted((e for e in t if e["ph"] == "X" and names[e["tid"]] == "cuda:0 compute"),
                key=lambda e: e["ts"])
    out = []
    for e in ev:
        m = re.search(r"\[(\d+), (\d+)\)", e["name"])
        out.append((int(m.group(2)) - int(m.group(1)), e["dur"] / 1e6))
    return out


def read_keep(path):
    """The hand-set values of an earlier profile (--keep): {"head": comment
    lines before `overhead`, "cpu_team": [comments + line] or None,
    (bench, "contention"): [comments + line], (bench, "link"): [comments +
    line], (bench, region, dev): {"lines": [comments + line] or None,
    "fields": {"lanes": .., "kernel_lanes": ..}}}."""
    kept = {"head": [], "cpu_team": None, "copy_threads_beside": None, "staging_pool": None}
    bench = region = None
    comments = []
    for raw in open(path):
        line = raw.rstrip("\n")
        words = line.split()
        if not words:
            comments = []
            continue
        if words[0].startswith("#"):
            comments.append(line)
            continue
        kw = words[0]
        if kw == "overhead" and bench is None:
            # The file's own header line is the generator's; the rest is kept.
            kept["head"] = [c for c in comments if "calibrate.py --v2" not in c]
        elif kw == "cpu_team":
            kept["cpu_team"] = comments + [line]
        elif kw in ("staging_pool", "prepare_registering", "pipeline_first"):
            kept[kw] = comments + [line]
        elif kw == "bench":
            bench, region = words[1], None
        elif kw == "region":
            region = words[1]
        elif kw == "contention" and bench is not None:
            kept[(bench, "contention")] = comments + [line]
        elif kw == "copy_threads_beside":
            if bench is None:
                kept["copy_threads_beside"] = comments + [line]
            else:
                kept[(bench, "copy_threads_beside")] = comments + [line]
        elif kw == "link" and bench is not None and comments:
            kept[(bench, "link")] = comments + [line]
        elif kw == "cost" and region is not None:
            kv = dict(w.split("=", 1) for w in words[2:] if "=" in w)
            kept[(bench, region, words[1])] = {
                "lines": comments + [line] if comments else None,
                "fields": {k: kv[k] for k in ("lanes", "kernel_lanes") if k in kv}}
        comments = []
    return kept


def check_keep(kept):
    """Report the kept lines LAYOUT has no place for."""
    for key in kept:
        if key in ("head", "cpu_team", "copy_threads_beside", "staging_pool",
                   "prepare_registering", "pipeline_first"):
            continue
        b = key[0]
        if b not in LAYOUT or (len(key) == 3 and key[1] not in LAYOUT[b]["regions"]):
            print(f"calibrate_v2: --keep: {' '.join(key)} is not in LAYOUT, dropped",
                  file=sys.stderr)


def cpu_team_of(kept):
    if kept and kept["cpu_team"]:
        return float(kept["cpu_team"][-1].split()[1])
    return 0.0


def with_scale(line, scale):
    return re.sub(r"scale=[^ ]+", f"scale={scale:.6g}", line)


def link_line(line):
    """A link line with --latency in place of the assumed 5 us (kept lines'
    too) and --batch appended; comment lines unchanged."""
    if not line.startswith("link "):
        return line
    line = re.sub(r"\b(up|down)=5e-06,", lambda m: f"{m[1]}={LAT:g},", line)
    if BATCH is not None and " batch=" not in line:
        line += f" batch={BATCH:g}"
    return line


def profile_text(traces, ovh, suites, links, scales, prepares=None, kept=None):
    prepares = prepares or {}
    kept = kept or {"head": [], "cpu_team": None}
    out = ["# hce-sim profile v2: bench/sim/calibrate.py --v2 (bench/sim/calibrate_v2.py)"]
    out += kept["head"]
    out += ["overhead " + " ".join(f"{k}={v:.4g}" for k, v in ovh.items()),
            f"dma_slowdown {DMA_SLOWDOWN:.3f}"]
    out += kept["cpu_team"] or []
    if kept.get("pipeline_first"):
        out += kept["pipeline_first"]
    if kept.get("staging_pool"):
        out += [""] + kept["staging_pool"]
    if kept.get("prepare_registering"):
        out += [""] + kept["prepare_registering"]
    if kept.get("copy_threads_beside"):
        out += [""] + kept["copy_threads_beside"]
    for b, layout in LAYOUT.items():
        if b not in suites:
            continue
        run, med, byt, reps, spread, order = suites[b]
        up_bw, down_bw = links[b]
        out += ["", f"bench {b}",
                "measured " + " ".join(f"{k}={v:.6g}" for k, v in sorted(med.items())),
                "bytes " + " ".join(f"{k}={v:.6g}" for k, v in sorted(byt.items())),
                "spread " + " ".join(f"{k}={v[0]:.6g},{v[1]:.6g}"
                                     for k, v in sorted(spread.items())),
                "run " + " ".join(f"{k}={run}" for k in sorted(med)),
                f"rounds {reps}"] + (["suite blocked"] if order == "blocked" else [])
        out += [link_line(l) for l in kept.get((b, "link")) or []] or [link_line(
            f"link up={LAT},{up_bw:.4g} down={LAT},{down_bw:.4g}")]
        out += kept.get((b, "contention"), [])
        out += kept.get((b, "copy_threads_beside"), [])
        for name, rowbytes, rows, resident, home in layout["arrays"]:
            out.append(f"array {name} rowbytes={rowbytes} rows={rows} resident={resident}"
                       + (" home=1" if home else ""))
        for rname, reg in layout["regions"].items():
            extra = "".join(f" {k}={reg[k]}" for k in ("base", "shrink", "swap") if k in reg)
            out.append(f"region {rname} W={reg['W']} execs={reg['execs']}{extra}")
            for u in reg["uses"]:
                out.append(f"use {u[0]} {u[1]} whole" if len(u) == 3 else
                           f"use {u[0]} {u[1]} lo={u[2]} hi={u[3]}")
            work = region_sum(reg)
            execs = reg["execs"]
            kc = kept.get((b, rname, "cpu"), {})
            kg = kept.get((b, rname, "gpu"), {})
            # The CPU: busy per execution of its trace.
            c = device_region(traces, b, "cpu", rname)
            if kc.get("lines"):
                out += kc["lines"][:-1] + [with_scale(kc["lines"][-1],
                                                      scales.get((b, "cpu"), 1))]
            elif c:
                comp = max(1e-12, (c["busy"] - execs * CPU_O) / work)
                prep = max(0.0, (c["wall"] - c["busy"]) / execs - ovh["cpu"])
                out.append(f"cost cpu comp={CPU_O},{comp:.6g} prepare={prep:.6g} "
                           f"threads={CPU_THREADS}" + (" flat=1" if reg.get("flat") else "")
                           + f" scale={scales.get((b, 'cpu'), 1):.6g}")
            if kg.get("lines"):
                out += kg["lines"][:-1] + [with_scale(kg["lines"][-1],
                                                      scales.get((b, "gpu"), 1))]
                continue
            g = device_region(traces, b, "cuda_0", rname)
            o, lanes = GPU_O, 0
            if len(layout["regions"]) == 1:
                L, oh = v1.fit_lanes(v1.chunk_points(traces, b, "cuda:0"), reg["W"])
                if oh is not None and L > 1:
                    lanes, o = L, oh
            # Kept lanes (a kernel whose chunks cost the same up to N rows,
            # read off traces by hand) replace the fitted ones, o unchanged.
            if "lanes" in kg.get("fields", {}):
                lanes = int(kg["fields"]["lanes"])
            first_launch = gpu_first_launch(traces, b, rname)
            each = ""
            if g:
                wb, wc = whole_bytes(layout, rname)
                xfer = (max(0, g["up"] - wb) / up_bw + g["down"] / down_bw)
                comp_s = max(execs * o, g["busy"] - xfer - first_launch)
                n = max(work, execs * lanes)
                c_it = max(1e-15, (comp_s - execs * o) / n)
                first = max(0.0, g["wall"] - g["busy"] - execs * ovh["gpu"]
                            - wb / up_bw - wc * LAT)
            else:
                # No trace (lud's took 13 s, before the strided copies): the
                # kernel's time is not known.  The runtime chose the GPU for
                # all of lud in run I, so its chunks (copies included) looked
                # cheap: what the copies at the one-shot benchmarks' link and
                # the overheads leave of the suite's median is per-execution
                # preparation outside the chunks (windows allocated and freed
                # for arrays outside a data region).
                # Its kernel: the co-executed traces' GPU chunks (a few rows
                # each) take about the same whatever their size: o.
                c_it, first = 1e-12, 0.0
                o = untraced_kernel_o(traces, b)
                each = f" prepare={prepares.get(b, 0):.6g}"
            kl = kg.get("fields", {}).get("kernel_lanes")
            out.append(f"cost gpu comp={o:.4g},{c_it:.6g} prepare_first={first:.6g}{each}"
                       f" first_launch={first_launch:.4g}"
                       + (f" lanes={lanes}" if lanes else "")
                       + f" scale={scales.get((b, 'gpu'), 1):.6g}"
                       + (f" kernel_lanes={kl}" if kl else ""))
    return "\n".join(out) + "\n"


def simulate_singles(sim, text):
    """{(bench, 'cpu'|'gpu'): simulated seconds} of a profile."""
    with tempfile.TemporaryDirectory() as d:
        prof, out = os.path.join(d, "p.txt"), os.path.join(d, "s.csv")
        open(prof, "w").write(text)
        subprocess.run([sim, prof, "--runs", "1", "--csv", out], check=True,
                       stdout=subprocess.DEVNULL)
        return {(r["bench"], r["config"]): float(r["simulated_s"])
                for r in csv.DictReader(open(out)) if r["config"] in ("cpu", "gpu")}


def main(argv):
    args = dict(suite=[])
    i = 0
    while i < len(argv):
        k = argv[i].lstrip("-")
        if k == "suite":
            args["suite"].append(argv[i + 1])
        else:
            args[k] = argv[i + 1]
        i += 2
    traces = args["traces"]
    global LAT, BATCH
    if "latency" in args:
        LAT = float(args["latency"])
    if "batch" in args:
        BATCH = float(args["batch"])
    kept = read_keep(args["keep"]) if "keep" in args else None
    if kept:
        check_keep(kept)
    team = cpu_team_of(kept)
    ovh = read_overheads(args["overhead"])
    suites = read_suites(args["suite"])
    links = {}
    for b, layout in LAYOUT.items():
        links[b] = trace_link(traces, b, layout)
    # Fallback: the median of the data-region benchmarks' uploads (pinned).
    pinned = statistics.median(
        links[b][0] for b, lay in LAYOUT.items()
        if links[b][0] and any(a[3] for a in lay["arrays"]))
    for b in links:
        up, down = links[b]
        links[b] = (up or pinned, down or up or pinned)
    untraced = [b for b in LAYOUT
                if not os.path.exists(os.path.join(traces, f"{b}-cuda_0-static.stats.json"))]
    for b in untraced:
        links[b] = links["matadd"]  # a one-shot benchmark's pageable copies
    text = profile_text(traces, ovh, suites, links, {}, kept=kept)
    sim1 = simulate_singles(args["sim"], text)
    prepares = {}
    for b in untraced:
        if b in suites and suites[b][1].get("gpu") and (b, "gpu") in sim1:
            execs = sum(r["execs"] for r in LAYOUT[b]["regions"].values())
            prepares[b] = max(0.0, (suites[b][1]["gpu"] - sim1[(b, "gpu")]) / execs)
    text = profile_text(traces, ovh, suites, links, {}, prepares, kept)
    sim1 = simulate_singles(args["sim"], text)
    # sim(k) = fixed + k (sim(1) - fixed): the per-execution overheads (and
    # the CPU team's creation, cpu_team) are not the device's to scale.
    scales = {}
    for b, layout in LAYOUT.items():
        if b not in suites:
            continue
        execs = sum(r["execs"] for r in layout["regions"].values())
        for dev in ("cpu", "gpu"):
            meas = suites[b][1].get(dev)
            fixed = execs * ovh[dev] + (team if dev == "cpu" else 0.0)
            if meas and (b, dev) in sim1 and sim1[(b, dev)] > fixed:
                scales[(b, dev)] = max(0.05, (meas - fixed) / (sim1[(b, dev)] - fixed))
    # Costs the fixed part above does not hold (an unscaled staging pool in
    # the GPU alone's preparation): refit on the scaled profile until the
    # single devices' runs are the suite's.
    for _ in range(3):
        sim1 = simulate_singles(args["sim"],
                                profile_text(traces, ovh, suites, links, scales, prepares, kept))
        for (b, dev), k in list(scales.items()):
            execs = sum(r["execs"] for r in LAYOUT[b]["regions"].values())
            meas = suites[b][1][dev]
            fixed = execs * ovh[dev] + (team if dev == "cpu" else 0.0)
            if (b, dev) in sim1 and sim1[(b, dev)] > fixed:
                scales[(b, dev)] = max(0.05, k * (meas - fixed) / (sim1[(b, dev)] - fixed))
    print(profile_text(traces, ovh, suites, links, scales, prepares, kept), end="")
