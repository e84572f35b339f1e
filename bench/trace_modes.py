#!/usr/bin/env python3
"""Which devices worked in each execution of a region, from an HCE_TRACE
file, as runs: C (the CPU alone), G (the GPU alone), B (both).  Per run of
the CPU alone, the executions over 0.5 ms with their place in the run (a
team slow to come back from idle shows as the first ones).
  usage: bench/trace_modes.py TRACE.json...
(session 101: call V28's lud runs, docs/benchmarks.md)"""
import bisect
import json
import sys

for path in sys.argv[1:]:
    ev = json.load(open(path))['traceEvents']
    names = {e['tid']: e['args']['name'] for e in ev if e.get('name') == 'thread_name'}
    spans = [e for e in ev if e['ph'] == 'X']
    execs = sorted((e for e in spans if names.get(e['tid']) == 'region choice'),
                   key=lambda e: e['ts'])
    starts = {}
    for dev in ('cpu compute', 'cuda:0 compute'):
        starts[dev] = sorted(e['ts'] for e in spans if names.get(e['tid']) == dev)
    modes = []
    for x in execs:
        lo, hi = x['ts'] - 1, x['ts'] + x['dur']
        worked = [bisect.bisect_right(s, hi) > bisect.bisect_left(s, lo) for s in starts.values()]
        modes.append(('B' if all(worked) else 'C' if worked[0] else 'G', x['dur']))
    out, i = [], 0
    while i < len(modes):
        j = i
        while j < len(modes) and modes[j][0] == modes[i][0]:
            j += 1
        durs = [d for _, d in modes[i:j]]
        slow = [(k, int(d)) for k, d in enumerate(durs) if d > 500] if modes[i][0] == 'C' else []
        out.append(f"{modes[i][0]}x{j - i}({sum(durs) / 1e3:.1f}ms"
                   f"{' slow:' + str(slow[:6]) if slow else ''})")
        i = j
    total = sum(d for _, d in modes) / 1e3
    print(f"{path}: {total:.1f} ms in {len(modes)} executions: {' '.join(out)}")
