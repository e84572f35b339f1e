#!/usr/bin/env python3
"""PNG figures for docs/benchmarks.md from the CSVs that bench/suite.py and
bench/sensitivity.py wrote on the GPU machine (matplotlib from Debian:
python3-matplotlib; run with /usr/bin/python3).

  usage: bench/plots.py RESULTS_DIR OUT_DIR
  reads  RESULTS_DIR/suite.csv, suite-devices.csv, sensitivity.csv (each optional)

Figures, named after the papers' figures they redo:
  fig10-11-co.png        time and bytes moved with / without CO (HCE Figs. 10-11)
  fig12-coexec.png       co-execution vs the best single device (HCE Fig. 12)
  fig13-two-gpus.png     one GPU vs two GPUs (HCE Fig. 13)
  fig14-finish.png       per-device finish times, FDETS on CPU+GPU(s) (HCE Fig. 14)
  sens-chunk.png, sens-alpha.png   FDETS/ADETS paper Figs. 7-10
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def by_bench(rows):
    out = {}
    for r in rows:
        out.setdefault(r["benchmark"], {})[r["config"]] = r
    return out


def bars(ax, names, series, ylabel, log=False):
    width = 0.8 / len(series)
    for i, (label, values) in enumerate(series):
        ax.bar([x + i * width for x in range(len(names))], values, width, label=label)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(names))])
    ax.set_xticklabels(names, rotation=30, ha="right")
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    ax.legend(fontsize=8)


def fig_co(suite, out):
    names = [b for b, r in suite.items() if "fdets" in r and "fdets no-CO" in r]
    if not names:
        return
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4))
    bars(a1, names, [("FDETS with CO", [float(suite[b]["fdets"]["median_s"]) for b in names]),
                     ("FDETS without CO", [float(suite[b]["fdets no-CO"]["median_s"]) for b in names])],
         "region time [s]", log=True)
    bars(a2, names, [("with CO", [float(suite[b]["fdets"]["bytes_moved"]) / 1e9 for b in names]),
                     ("without CO", [float(suite[b]["fdets no-CO"]["bytes_moved"]) / 1e9 for b in names])],
         "bytes moved [GB]", log=True)
    fig.suptitle("CPU + 1 GPU: communication optimisation (HCE paper Figs. 10-11)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig10-11-co.png"), dpi=110)
    plt.close(fig)


def fig_coexec(suite, out):
    names = [b for b, r in suite.items() if "cpu" in r and "gpu" in r]
    if not names:
        return
    co = ["fdets", "adets", "hguided", "static"]
    fig, ax = plt.subplots(figsize=(12, 4))
    series = []
    for c in co:
        vals = []
        for b in names:
            best = min(float(suite[b]["cpu"]["median_s"]), float(suite[b]["gpu"]["median_s"]))
            vals.append(best / float(suite[b][c]["median_s"]) if c in suite[b] else 0)
        series.append((c, vals))
    bars(ax, names, series, "speed-up over the best single device")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_title("CPU + 1 GPU co-execution against the best single device (HCE paper Fig. 12)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig12-coexec.png"), dpi=110)
    plt.close(fig)


def fig_two(suite, out):
    names = [b for b, r in suite.items() if "gpu" in r and ("2gpu static" in r or "2gpu fdets" in r)]
    if not names:
        return
    fig, ax = plt.subplots(figsize=(12, 4))
    series = []
    for c in ("2gpu static", "2gpu fdets", "cpu+2gpu fdets"):
        series.append((c, [float(suite[b]["gpu"]["median_s"]) / float(suite[b][c]["median_s"])
                           if c in suite[b] else 0 for b in names]))
    bars(ax, names, series, "speed-up over one GPU")
    ax.axhline(1.8, color="r", lw=0.8, ls="--")
    ax.set_title("Two GPUs against one (HCE paper Fig. 13); dashed: the 1.8x goal")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig13-two-gpus.png"), dpi=110)
    plt.close(fig)


def fig_finish(devrows, out):
    cfg = "cpu+2gpu fdets" if any(r["config"] == "cpu+2gpu fdets" for r in devrows) else "fdets"
    rows = [r for r in devrows if r["config"] == cfg]
    if not rows:
        return
    names = sorted({r["benchmark"] for r in rows}, key=[r["benchmark"] for r in rows].index)
    devices = sorted({r["device"] for r in rows})
    fig, ax = plt.subplots(figsize=(12, 4))
    series = []
    for d in devices:
        vals = []
        for b in names:
            m = [r for r in rows if r["benchmark"] == b and r["device"] == d]
            vals.append(float(m[0]["finish_s"]) * 1e3 if m else 0)
        series.append((d, vals))
    bars(ax, names, series, "finish time [ms]", log=True)
    ax.set_title(f"Per-device finish times, {cfg}, longest region of each benchmark (HCE paper Fig. 14)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig14-finish.png"), dpi=110)
    plt.close(fig)


def fig_sens(rows, out):
    for knob, fname, xlabel in (("chunk", "sens-chunk.png", "initial chunk / W"),
                                ("alpha", "sens-alpha.png", "alpha")):
        sel = [r for r in rows if r["knob"] == knob]
        if not sel:
            continue
        names = sorted({r["benchmark"] for r in sel}, key=[r["benchmark"] for r in sel].index)
        fig, axes = plt.subplots(1, len(names), figsize=(4 * len(names), 3.5))
        if len(names) == 1:
            axes = [axes]
        for ax, b in zip(axes, names):
            for s in ("fdets", "adets"):
                pts = [r for r in sel if r["benchmark"] == b and r["schedule"] == s]
                xs = [float(r["fraction_of_w"] if knob == "chunk" else r["value"]) for r in pts]
                ax.plot(xs, [float(r["median_s"]) for r in pts], marker="o", label=s)
            if knob == "chunk":
                ax.set_xscale("log", base=2)
            ax.set_title(b)
            ax.set_xlabel(xlabel)
            ax.set_ylabel("region time [s]")
            ax.legend(fontsize=8)
        fig.suptitle(f"{knob} sensitivity, CPU + 1 GPU (FDETS/ADETS paper Figs. 7-10)")
        fig.tight_layout()
        fig.savefig(os.path.join(out, fname), dpi=110)
        plt.close(fig)


def main():
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    suite = by_bench(load(os.path.join(src, "suite.csv")))
    fig_co(suite, out)
    fig_coexec(suite, out)
    fig_two(suite, out)
    fig_finish(load(os.path.join(src, "suite-devices.csv")), out)
    fig_sens(load(os.path.join(src, "sensitivity.csv")), out)
    print("figures in", out, ":", sorted(f for f in os.listdir(out) if f.endswith(".png")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
