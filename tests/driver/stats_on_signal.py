#!/usr/bin/env python3
"""A program stopped by SIGINT or SIGTERM still writes its HCE_STATS and
HCE_TRACE files, and dies of the signal (as the shell and make expect).
  usage: stats_on_signal.py HCE_CC SIGNAL_PROG_SOURCE WORK_DIR"""
import json
import os
import signal
import subprocess
import sys

hce_cc, source, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
prog = os.path.join(work, "signal_prog")
subprocess.run([hce_cc, "--hce-no-cuda", "-O1", source, "-o", prog], check=True)
failed = False
for sig in (signal.SIGINT, signal.SIGTERM):
    stats = os.path.join(work, "stats-%d.json" % sig)
    trace = os.path.join(work, "trace-%d.json" % sig)
    for f in (stats, trace):
        if os.path.exists(f):
            os.remove(f)
    env = dict(os.environ, HCE_DEVICES="cpu,sim:0", HCE_STATS=stats,
               HCE_TRACE=trace)
    p = subprocess.Popen([prog], env=env, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if line.strip() != "ready":
        sys.exit("stats_on_signal: the program did not start: %r" % line)
    p.send_signal(sig)
    rc = p.wait(timeout=60)
    name = signal.Signals(sig).name
    if rc != -sig:
        print("FAIL %s: exit status %d, expected death by the signal" % (name, rc))
        failed = True
    try:
        with open(stats) as f:
            regions = json.load(f)["regions"]
        with open(trace) as f:
            events = [e for e in json.load(f)["traceEvents"] if e["ph"] == "X"]
    except (OSError, ValueError, KeyError) as e:
        print("FAIL %s: stats or trace file missing or invalid: %s" % (name, e))
        failed = True
        continue
    executions = sum(r["executions"] for r in regions)
    if executions < 1 or not events:
        print("FAIL %s: %d executions in the stats, %d trace events" %
              (name, executions, len(events)))
        failed = True
    else:
        print("%s: stats with %d executions, trace with %d events" %
              (name, executions, len(events)))
sys.exit(1 if failed else 0)
