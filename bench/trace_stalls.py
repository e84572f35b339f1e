#!/usr/bin/env python3
"""Stalled chunks in HCE_TRACE files (Chrome trace JSON).

  bench/trace_stalls.py [--over MS] TRACE.json ...
  bench/trace_stalls.py --self-test

A chunk of a device's `compute` track is stalled when it took more than
--over ms (default 1) beyond what its rows cost at the device's own rate in
that region: the median seconds per row of its chunks of 64 rows or more
(all of its chunks if none is that large).  Also per execution (the
`region choice` track's spans) of one device: the part of its wall that
none of its stages covers, when over --over ms -- a controller not running.

The H200 traces of sessions 27-29 have CPU chunks of 1-500 rows taking
2.4-9.9 ms beside a working GPU (docs/benchmarks.md, "SD"); this counts
them, so that an A/B of a remedy can compare stall counts as well as walls.
"""
import json
import re
import statistics
import sys
from collections import defaultdict

CHUNK = re.compile(r"region (\S+) \[(\d+), (\d+)\)")


def events(trace):
    ev = trace["traceEvents"] if isinstance(trace, dict) else trace
    names = {e["tid"]: e["args"]["name"] for e in ev
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    spans = sorted((e for e in ev if e.get("ph") == "X"), key=lambda e: e["ts"])
    return [(names.get(e["tid"], str(e["tid"])), e["name"], e["ts"] / 1e3, e["dur"] / 1e3)
            for e in spans]  # (track, name, start ms, duration ms)


def stalled_chunks(spans, over_ms):
    """{device: (chunks, [(region, rows, ms, excess ms)])}"""
    by = defaultdict(list)
    for track, name, _, dur in spans:
        if track.endswith(" compute"):
            m = CHUNK.search(name)
            if m:
                by[(track[: -len(" compute")], m.group(1))].append(
                    (int(m.group(3)) - int(m.group(2)), dur))
    out = defaultdict(lambda: [0, []])
    for (dev, region), chunks in by.items():
        large = [d / n for n, d in chunks if n >= 64] or [d / n for n, d in chunks if n > 0]
        if not large:
            continue
        per_row = statistics.median(large)
        out[dev][0] += len(chunks)
        for n, d in chunks:
            if d - n * per_row > over_ms:
                out[dev][1].append((region, n, d, d - n * per_row))
    return out


def uncovered(spans, over_ms):
    """{device: [(execution start ms, wall ms, uncovered ms)]}: the time from an
    execution's start to the device's last stage end that none of its
    stages covers (its controller not running), over over_ms."""
    execs = [(s, s + d) for track, _, s, d in spans if track == "region choice"]
    out = defaultdict(list)
    for s, e in execs:
        stages = defaultdict(list)
        for track, _, ts, d in spans:
            if ts >= s and ts < e and track != "region choice" and " " in track:
                stages[track.split(" ")[0]].append((ts, ts + d))
        for dev, iv in stages.items():
            iv.sort()
            covered, end = 0.0, s
            for a, b in iv:
                a = max(a, end)
                if b > a:
                    covered += b - a
                    end = b
            gap = (end - s) - covered
            if gap > over_ms:
                out[dev].append((s, e - s, gap))
    return out


def report(path, over_ms):
    spans = events(json.load(open(path)))
    lines = []
    for dev, (n, st) in sorted(stalled_chunks(spans, over_ms).items()):
        lines.append("%s  %s: %d chunks, %d stalled (%.1f ms over their rows' cost)%s" % (
            path, dev, n, len(st), sum(x[3] for x in st),
            "; e.g. " + ", ".join("%d rows %.2f ms" % (x[1], x[2]) for x in st[:4]) if st else ""))
    for dev, gaps in sorted(uncovered(spans, over_ms).items()):
        lines.append("%s  %s: %d executions with %.1f ms in all that no stage covers" % (
            path, dev, len(gaps), sum(g[2] for g in gaps)))
    return lines


def self_test():
    def x(track, name, ts_ms, dur_ms):
        return {"ph": "X", "tid": track, "name": name, "ts": ts_ms * 1e3, "dur": dur_ms * 1e3}
    meta = [{"ph": "M", "name": "thread_name", "tid": t, "args": {"name": t}}
            for t in ("region choice", "cpu compute", "cuda:0 compute", "cuda:0 upload")]
    ev = meta + [
        x("region choice", "region r: eft", 0, 10),
        x("cpu compute", "region r [0, 100)", 0, 1.0),       # 10 us a row
        x("cpu compute", "region r [100, 200)", 1.0, 1.0),
        x("cpu compute", "region r [200, 201)", 2.0, 3.0),   # 1 row, 3 ms: stalled
        x("cuda:0 upload", "region r [201, 1000)", 0, 0.5),
        x("cuda:0 compute", "region r [201, 1000)", 0.5, 0.5),
        x("cuda:0 compute", "region r [1000, 2000)", 4.0, 0.6),  # 3 ms uncovered before it
    ]
    spans = events({"traceEvents": ev})
    st = stalled_chunks(spans, 1.0)
    ok = st["cpu"][0] == 3 and len(st["cpu"][1]) == 1 and st["cpu"][1][0][1] == 1
    ok = ok and not st["cuda:0"][1]
    gaps = uncovered(spans, 1.0)
    ok = ok and len(gaps["cuda:0"]) == 1 and abs(gaps["cuda:0"][0][2] - 3.0) < 1e-9
    ok = ok and "cpu" not in gaps
    print("trace_stalls self-test:", "ok" if ok else "FAILED")
    return 0 if ok else 1


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    over, paths = 1.0, argv[1:]
    if paths[:1] == ["--over"]:
        over, paths = float(paths[1]), paths[2:]
    if not paths:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    for p in paths:
        print("\n".join(report(p, over)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
