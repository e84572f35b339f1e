#!/usr/bin/env python3
"""Did every device a run names do work?  Reads the run's HCE_STATS JSON.

A run with HCE_DEVICES=cpu,omp:0 that prints "verified" proves only that the
answer is right: when libomptarget finds no device, omp:0 is dropped with a
notice and the CPU does everything.  bench/gpu_matrix.py, bench/suite.py and
bench/gpu_offload_check.sh therefore pass a configuration only when, summed
over the program's regions, every named device ran iterations > 0 and every
accelerator (anything but cpu) also moved bytes or spent compute time.

  usage: bench/stats_check.py HCE_DEVICES STATS.json   (exit 0 = every device worked)
         bench/stats_check.py --self-test              (the checks on bench/testdata/)
"""
import json
import os
import sys


def named_devices(hce_devices):
    """The device names in an HCE_DEVICES value, in order, without repeats
    ("cpu, omp:0" -> ["cpu", "omp:0"]).  A bare kind ("omp", "cuda") names
    every device of that kind: at least one of them must work."""
    names = []
    for item in hce_devices.split(","):
        item = item.strip()
        if item and item not in names:
            names.append(item)
    return names


def device_work(stats):
    """{device name: {iterations, chunks, busy_seconds, bytes}} summed over
    every region of one HCE_STATS JSON document."""
    work = {}
    for region in stats.get("regions", []):
        for d in region.get("devices", []):
            w = work.setdefault(d["device"], dict(iterations=0, chunks=0,
                                                  busy_seconds=0.0, bytes=0, left_out=0))
            w["left_out"] += d.get("left_out", 0)
            w["iterations"] += d.get("iterations", 0)
            w["chunks"] += d.get("chunks", 0)
            w["busy_seconds"] += d.get("busy_seconds", 0.0)
            w["bytes"] += (d.get("bytes_to_device", 0) + d.get("bytes_from_device", 0)
                           + d.get("bytes_peer", 0))
    return work


def problems(stats, hce_devices):
    """What is wrong, one line per named device that did no work ([] = pass)."""
    work = device_work(stats)
    out = []
    for name in named_devices(hce_devices):
        if ":" in name or name == "cpu":
            matches = [name] if name in work else []
        else:  # a bare kind: "omp" -> omp:0, omp:1, ...
            matches = [k for k in work if k.startswith(name + ":")]
        if not matches:
            out.append(f"{name} did no work (not in HCE_STATS: the runtime did not "
                       "use it; see its notices)")
            continue
        if not any(work[m]["iterations"] > 0 for m in matches):
            # The scheduler (eft) chose to leave it out: too slow to help.
            # That is a scheduling result, not a device that did not work;
            # callers report it (left_out()).
            if not any(work[m]["left_out"] > 0 for m in matches):
                out.append(f"{name} ran 0 iterations")
            continue
        if name != "cpu" and not any(work[m]["bytes"] > 0 or work[m]["busy_seconds"] > 0
                                     for m in matches):
            out.append(f"{name} ran iterations but moved no bytes and has no compute time")
    return out


def left_out(stats):
    """Devices the scheduler left out of every execution (0 iterations by
    choice)."""
    return [k for k, w in device_work(stats).items()
            if w["iterations"] == 0 and w["left_out"] > 0]


def check_file(path, hce_devices):
    """problems() of a stats file; a missing or unreadable file is a problem."""
    try:
        with open(path) as f:
            stats = json.load(f)
    except (OSError, ValueError) as e:
        return [f"no HCE_STATS ({e})"]
    return problems(stats, hce_devices)


def self_test():
    """The checks on recorded stats (bench/testdata, from examples/matadd)."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")
    cases = [  # file, HCE_DEVICES, expected problem count, text in the first
        ("stats-cpu-sim0.json", "cpu,sim:0", 0, ""),
        ("stats-cpu-sim0.json", "cpu, sim:0, cpu", 0, ""),
        ("stats-cpu-sim0-sim1.json", "cpu,sim:0,sim:1", 0, ""),
        ("stats-cpu-sim0-sim1.json", "sim", 0, ""),
        # omp:0 asked for, libomptarget absent: the CPU did everything.
        ("stats-omp0-fallback.json", "omp:0", 1, "omp:0 did no work"),
        ("stats-omp0-fallback.json", "cpu,omp:0", 1, "omp:0 did no work"),
        ("stats-omp0-fallback.json", "cpu,cuda:0,omp:0", 2, "cuda:0 did no work"),
        ("stats-omp0-fallback.json", "omp", 1, "omp did no work"),
        ("stats-cpu-sim0.json", "cpu,sim:0,sim:1", 1, "sim:1 did no work"),
        # selected, but the scheduler gave it nothing
        ("stats-sim1-idle.json", "cpu,sim:0,sim:1", 1, "sim:1 ran 0 iterations"),
        # left out by eft (too slow to help): a scheduling result, not a failure
        ("stats-sim1-left-out.json", "cpu,sim:0,sim:1", 0, ""),
        # iterations counted, yet no byte moved and no compute time
        ("stats-sim1-no-traffic.json", "cpu,sim:0,sim:1", 1, "moved no bytes"),
        ("no-such-file.json", "cpu", 1, "no HCE_STATS"),
    ]
    failed = 0
    for name, devices, count, text in cases:
        got = check_file(os.path.join(here, name), devices)
        ok = len(got) == count and (not text or text in got[0])
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name} HCE_DEVICES={devices}: {got}")
    print(f"stats_check self-test: {len(cases) - failed}/{len(cases)} passed")
    return 1 if failed else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    found = check_file(argv[2], argv[1])
    for p in found:
        print(p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
