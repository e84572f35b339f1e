#!/usr/bin/env python3
"""Where an HCE_TRACE file's time went (Chrome trace JSON).

  bench/trace_summary.py [--executions] TRACE.json ...
  bench/trace_summary.py --self-test

Per trace: the regions' wall (the `region choice` track's spans), then per
track (`cpu compute`, `cuda:0 upload`, `host register`, ...) the spans'
count, total ms and median us.  With --executions, also one line per
execution: its start and wall (ms), the rows each device computed, the ms
of host registrations inside it, and the runtime's choice.

The questions it answers are the ones sessions 33-35 asked by hand of the
H200 traces: which device ran each execution of a cold run (cg's slow mode:
spmv and dot on the CPU, the updates on the GPU), how much of a co-executed
run registered host memory (jacobi2d under hguided: 28.5 of 41.7 ms, call
YB), and what a small chunk's stages cost (a host fetch of two arrays, two
~10 us copies).
"""
import json
import re
import statistics
import sys
from collections import Counter, defaultdict

CHUNK = re.compile(r"region \S+ \[(\d+), (\d+)\)")


def spans(trace):
    """[(track, name, start ms, duration ms)] sorted by start."""
    ev = trace["traceEvents"] if isinstance(trace, dict) else trace
    names = {(e.get("pid"), e["tid"]): e["args"]["name"] for e in ev
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    xs = sorted((e for e in ev if e.get("ph") == "X"), key=lambda e: e["ts"])
    return [(names.get((e.get("pid"), e["tid"]), str(e["tid"])), e["name"],
             e["ts"] / 1e3, e["dur"] / 1e3) for e in xs]


def executions(sp):
    """[(start, wall, choice, {device: rows}, register ms)] per execution."""
    t0 = sp[0][2] if sp else 0.0
    starts = [(s, d, n) for t, n, s, d in sp if t == "region choice"]
    out = []
    for i, (s, d, n) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else float("inf")
        rows, reg = Counter(), 0.0
        for t, name, st, dur in sp:
            if not s <= st < end:
                continue
            m = CHUNK.match(name)
            if m and t.endswith(" compute"):
                rows[t[: -len(" compute")]] += int(m.group(2)) - int(m.group(1))
            if t == "host register" and name.startswith("cudaHostRegister"):
                reg += dur
        out.append((s - t0, d, n, dict(rows), reg))
    return out


def tracks(sp):
    """{track: [durations ms]}, the `region choice` track left out."""
    by = defaultdict(list)
    for t, _, _, d in sp:
        if t != "region choice":
            by[t].append(d)
    return by


def report(path, trace, per_execution):
    sp = spans(trace)
    ex = executions(sp)
    lines = [f"{path}: {len(ex)} executions, regions' wall {sum(e[1] for e in ex):.2f} ms"]
    for t, ds in sorted(tracks(sp).items()):
        lines.append(f"  {t:20} n {len(ds):5}  total {sum(ds):8.2f} ms  "
                     f"median {statistics.median(ds) * 1e3:8.1f} us")
    if per_execution:
        for start, wall, choice, rows, reg in ex:
            who = " ".join(f"{d}:{r}" for d, r in sorted(rows.items()))
            lines.append(f"  {start:9.2f} {wall:7.2f}  reg {reg:6.2f}  {who:36}  {choice[:70]}")
    return "\n".join(lines)


def self_test():
    def meta(tid, name):
        return {"ph": "M", "name": "thread_name", "pid": 1, "tid": tid, "args": {"name": name}}

    def x(tid, name, ts, dur):
        return {"ph": "X", "pid": 1, "tid": tid, "name": name, "ts": ts, "dur": dur}

    ev = [meta(1, "region choice"), meta(2, "cpu compute"), meta(3, "cuda:0 compute"),
          meta(4, "host register"),
          x(1, "region r: eft: learning", 0, 5000),
          x(2, "region r [0, 100)", 100, 2000),
          x(4, "cudaHostRegister 32.00 MiB", 200, 3000),
          x(1, "region r: eft: device 1 alone", 5000, 1000),
          x(3, "region r [0, 100)", 5100, 500)]
    ex = executions(spans(ev))
    assert len(ex) == 2, ex
    assert ex[0][3] == {"cpu": 100} and abs(ex[0][4] - 3.0) < 1e-9, ex[0]
    assert ex[1][3] == {"cuda:0": 100} and ex[1][4] == 0.0, ex[1]
    tr = tracks(spans(ev))
    assert sorted(tr) == ["cpu compute", "cuda:0 compute", "host register"], tr
    text = report("t", ev, True)
    assert "2 executions, regions' wall 6.00 ms" in text, text
    print("trace_summary self-test passed")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    per_execution = "--executions" in argv
    paths = [a for a in argv[1:] if a != "--executions"]
    if not paths:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    for p in paths:
        with open(p) as f:
            print(report(p, json.load(f), per_execution))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
