#!/usr/bin/env python3
"""A chunk's fixed compute cost per region and device, from HCE_TRACE files.

  bench/sim/chunk_costs.py PROFILE TRACE.json ...

For the `chunk=S` key of a profile's `cost` lines (docs/simulator.md,
"Measured costs per chunk"): the seconds a chunk's compute stage takes
beyond its iterations, on the machine the traces ran on -- the GPU's kernel
launch and synchronisation (and a reduction's extra work), the CPU's
OpenMP fork and join.  Only co-executed traces count (both devices have
tracks: their chunks come in every size), and of each trace the first
chunk of a region on a device is left out (a kernel's first launch, the
CPU's team creation).  A chunk's fixed part is its compute span less what
PROFILE's `comp` line charges for its iterations (c * scale * max(n,
lanes), the CPU's c * 16/15 beside the GPU); the median is over the
chunks whose iterations cost 20 us or less by that line (at least the
quarter with the fewest iterations).  Printed beside it: the profile's own
o * scale, what the simulator charges without `chunk=`, and `chunk=` where
the estimate is one: 40 chunks or more, both quartiles within a factor 2 of
the median, and no `lanes` (a chunk of fewer iterations than its lanes
costs the lanes' time, which the fixed part cannot be told from).
"""
import json
import re
import statistics
import sys
from collections import defaultdict

CHUNK = re.compile(r"region (\S+) \[(\d+), (\d+)\)")


def profile_costs(path):
    """{(device, region): (o, c, scale, lanes)}, device 'cpu' or 'gpu'"""
    costs, region = {}, None
    for line in open(path):
        w = line.split()
        if not w or w[0].startswith("#"):
            continue
        if w[0] == "region":
            region = w[1]
        elif w[0] == "cost":
            kv = dict(x.split("=", 1) for x in w[2:] if "=" in x)
            o, c = (float(v) for v in kv["comp"].split(","))
            host = w[1] == "cpu"
            if host:
                lanes = 0 if kv.get("flat") == "1" else int(kv.get("threads", 1)) - 1
            else:
                lanes = int(kv.get("lanes", 0))
            costs[(w[1], region)] = (o, c, float(kv.get("scale", 1)), lanes)
    return costs


def chunks(path):
    """[(device, region, iterations, seconds)] of a co-executed trace"""
    t = json.load(open(path))
    ev = t["traceEvents"] if isinstance(t, dict) else t
    names = {e["tid"]: e["args"]["name"] for e in ev
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    tracks = {n.split()[0] for n in names.values()}
    if "cpu" not in tracks or not any(x.startswith("cuda:") for x in tracks):
        return []
    out, seen = [], set()
    for e in sorted((e for e in ev if e.get("ph") == "X"), key=lambda e: e["ts"]):
        track = names.get(e["tid"], "")
        m = CHUNK.search(e["name"])
        if not track.endswith(" compute") or not m:
            continue
        dev = "cpu" if track.startswith("cpu") else "gpu"
        if (dev, m.group(1)) not in seen:  # first launch / the team's creation
            seen.add((dev, m.group(1)))
            continue
        out.append((dev, m.group(1), int(m.group(3)) - int(m.group(2)), e["dur"] / 1e6))
    return out


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    costs = profile_costs(argv[1])
    by = defaultdict(list)
    for path in argv[2:]:
        for dev, region, n, s in chunks(path):
            by[(dev, region)].append((n, s))
    for (dev, region), L in sorted(by.items()):
        if (dev, region) not in costs:
            continue
        o, c, scale, lanes = costs[(dev, region)]
        per = c * scale * (16 / 15 if dev == "cpu" else 1)
        rows = sorted(L)
        fixed = [s - per * max(n, lanes) for n, s in rows if per * max(n, lanes) <= 20e-6]
        if len(fixed) < max(5, len(rows) // 4):
            fixed = [s - per * max(n, lanes) for n, s in rows[: max(5, len(rows) // 4)]]
        if len(fixed) < 5:
            continue
        q = sorted(fixed)
        med, lo, hi = statistics.median(q), q[len(q) // 4], q[3 * len(q) // 4]
        firm = len(q) >= 40 and not lanes and med > 0 and lo >= med / 2 and hi <= 2 * med
        print(f"{dev} {region:20s} chunks {len(L):5d} used {len(q):5d}  "
              f"fixed {statistics.median(q) * 1e6:7.1f} us (quartiles "
              f"{q[len(q) // 4] * 1e6:.1f}-{q[3 * len(q) // 4] * 1e6:.1f})  "
              f"profile o*scale {o * scale * 1e6:.1f} us{'  lanes ' + str(lanes) if lanes else ''}"
              f"{f'  chunk={med:.3g}' if firm else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
