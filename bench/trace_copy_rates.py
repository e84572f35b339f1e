#!/usr/bin/env python3
"""Every staged copy of at least MIN MiB in HCE_TRACE files: when it started,
its size, its rate and how much of it ran beside a CPU chunk.

  python3 bench/trace_copy_rates.py [--min MIB] TRACE.json ...
  python3 bench/trace_copy_rates.py --self-test

Why: staged copies beside the CPU's team ran at 14-22 GB/s on the H200
where the GPU alone's staged at 32
(docs/benchmarks.md, session 50).
"""
import argparse
import json
import re
import sys

COPY = re.compile(r"(\d+) host cop(?:y|ies), ([\d.]+) (MiB|KiB)")


def rows(path, min_mib, d=None):
    if d is None:
        with open(path) as f:
            d = json.load(f)
    events = d.get("traceEvents", []) if isinstance(d, dict) else d
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    spans = [e for e in events if e.get("ph") == "X"]
    if not spans:
        return
    base = min(e["ts"] for e in spans)
    cpu = [(e["ts"], e["ts"] + e.get("dur", 0)) for e in spans
           if names.get((e["pid"], e["tid"])) == "cpu compute"]
    for e in spans:
        m = COPY.match(e["name"])
        if not m or not e.get("dur"):
            continue
        mib = float(m.group(2)) / (1024 if m.group(3) == "KiB" else 1)
        if mib < min_mib:
            continue
        t0, t1 = e["ts"], e["ts"] + e["dur"]
        beside = sum(max(0, min(t1, b) - max(t0, a)) for a, b in cpu)
        yield (t0 - base) / 1000, mib, mib * 1.048576 / e["dur"] * 1000, 100 * beside / e["dur"]


def self_test():
    """A 64 MiB copy of 2 ms, its second half beside a CPU chunk; a 4 MiB one
    under the minimum."""
    meta = [{"ph": "M", "name": "thread_name", "pid": 1, "tid": t, "args": {"name": n}}
            for t, n in ((1, "cuda:0 copies"), (2, "cpu compute"))]
    spans = [
        {"ph": "X", "pid": 1, "tid": 1, "ts": 1000, "dur": 2000, "name": "2 host copies, 64.00 MiB, one wait of 9 us"},
        {"ph": "X", "pid": 1, "tid": 2, "ts": 2000, "dur": 3000, "name": "region r [0, 8)"},
        {"ph": "X", "pid": 1, "tid": 1, "ts": 6000, "dur": 100, "name": "1 host copy, 4.00 MiB, one wait of 2 us"},
    ]
    got = list(rows("synthetic", 30, {"traceEvents": meta + spans}))
    assert len(got) == 1, got
    start, mib, rate, beside = got[0]
    assert start == 0 and mib == 64, got
    assert abs(rate - 64 * 1.048576 / 2) < 1e-9, rate
    assert abs(beside - 50) < 1e-9, beside
    assert len(list(rows("synthetic", 1, {"traceEvents": meta + spans}))) == 2
    print("trace_copy_rates self-test passed")
    return 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--min", type=float, default=30, help="smallest copy, MiB (30)")
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args(argv[1:])
    print("trace                          start_ms      MiB   GB/s  beside_cpu_%")
    for path in a.traces:
        for start, mib, rate, beside in rows(path, a.min):
            print("%-30s %8.2f %8.1f %6.1f %8.0f" % (path.split("/")[-1][:30], start, mib, rate, beside))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
