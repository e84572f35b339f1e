#!/usr/bin/env python3
"""auto against the best single device under random short stalls of one
device (hce-sim --stall, many windows): a machine whose other work takes a
core for a time slice now and then (the H100's lud, calls V16-V18, V21).
Deterministic: seeded windows, virtual time; two builds compare line by line.
  usage: bench/sim/spike_matrix.py HCE_SIM PROFILE BENCH CACHE|- [SEEDS]
  env SPIKE_DEV (cpu), SPIKE_GAPS (mean gaps, s), SPIKE_LENS (s), SPIKE_FACTORS
      SPIKE_ONE="GAP LEN SEED": print that case's --stall arguments only (for
      hce-sim --explain)
      SPIKE_FLOOR: exit 1 when the geometric mean of best/auto is below it
Prints "gap len seed cpu gpu auto best/auto" per case, then the geometric
mean and the worst of best/auto, cold (CACHE -) or warm.  Each case's
windows: exponential gaps of mean GAP, each LEN long at a factor drawn from
SPIKE_FACTORS, over the first 0.3 s of virtual time."""
import os, random, re, subprocess, sys, math

sim, profile, bench, cache = sys.argv[1:5]
seeds = int(sys.argv[5]) if len(sys.argv) > 5 else 8
dev = os.environ.get('SPIKE_DEV', 'cpu')
gaps = [float(x) for x in os.environ.get('SPIKE_GAPS', '0.002 0.005 0.02').split()]
lens = [float(x) for x in os.environ.get('SPIKE_LENS', '0.0005 0.002').split()]
factors = [int(x) for x in os.environ.get('SPIKE_FACTORS', '20 100').split()]
config = 'auto-cold' if cache == '-' else 'auto'
extra = [] if cache == '-' else ['--cache', cache]


def windows(gap, ln, seed):
    rnd = random.Random(seed * 7919 + int(gap * 1e6) + int(ln * 1e7))
    t, stalls = 0.0, []
    while t < 0.3:
        t += rnd.expovariate(1 / gap)
        stalls += ['--stall', f'{dev}:{t:.6f}:{ln}:{rnd.choice(factors)}']
        t += ln
    return stalls


if 'SPIKE_ONE' in os.environ:
    g, l, s = os.environ['SPIKE_ONE'].split()
    print(' '.join(windows(float(g), float(l), int(s))))
    sys.exit(0)
ratios = []
for gap in gaps:
    for ln in lens:
        for seed in range(seeds):
            stalls = windows(gap, ln, seed)
            out = subprocess.run([sim, profile, '--bench', bench, '--runs', '1'] + extra + stalls,
                                 capture_output=True, text=True).stdout
            line = out.strip().splitlines()[-1]
            v = {k: float(x) for k, x in re.findall(r'([\w-]+) ([0-9.]+)/', line)}
            if config not in v:
                v[config] = float(re.search(config + r' ([0-9.]+)', line)[1])
            best = min(v['cpu'], v['gpu'])
            r = best / v[config]
            ratios.append(r)
            print(f'{gap} {ln} {seed} {v["cpu"]:.4f} {v["gpu"]:.4f} {v[config]:.4f} {r:.3f}')
g = math.exp(sum(map(math.log, ratios)) / len(ratios))
print(f'{config}: best/auto geomean {g:.3f}, worst {min(ratios):.3f}, below 0.9: {sum(r < 0.9 for r in ratios)} of {len(ratios)}')
floor = os.environ.get('SPIKE_FLOOR')
if floor is not None and g < float(floor):
    print(f'FAIL: geomean {g:.3f} below the floor {floor}')
    sys.exit(1)
