#!/usr/bin/env python3
"""Plot one benchmark result: build/bench/<name>.json -> <name>.png.

Usage: plot.py RESULT.json OUT.png

One group of bars per case (the row's case fields), one bar per impl: the bar is p99, the dot
p50, the whisker max; log scale, microseconds. Goals are printed under the title.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STAT_KEYS = {"impl", "count", "p50_us", "p99_us", "p999_us", "max_us"}


def case_label(row, case_keys):
    return ", ".join(f"{k}={row[k]}" for k in case_keys)


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: plot.py RESULT.json OUT.png")
    with open(argv[1]) as f:
        result = json.load(f)
    if result.get("bench") == "reflection":  # per frame, not per case: seed 004's figures
        from plot_reflection import plot
        return plot(result, argv[2])
    rows = result.get("rows", [])
    if not rows:
        sys.exit(f"{argv[1]}: no rows to plot")
    case_keys = result.get("case_fields")
    if not case_keys:
        # Case fields are the keys that appear before "count" in a row, after "impl".
        first = rows[0]
        keys = list(first.keys())
        case_keys = keys[keys.index("impl") + 1:keys.index("count")]
    impls = list(dict.fromkeys(r["impl"] for r in rows))
    cases = list(dict.fromkeys(case_label(r, case_keys) for r in rows))
    width = 0.8 / len(impls)
    fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(cases) * len(impls)), 4.8))
    for i, impl in enumerate(impls):
        xs, p99, p50, mx = [], [], [], []
        for j, c in enumerate(cases):
            for r in rows:
                if r["impl"] == impl and case_label(r, case_keys) == c and r.get("p99_us") is not None:
                    xs.append(j + (i - (len(impls) - 1) / 2) * width)
                    p99.append(max(r["p99_us"], 0.01))
                    p50.append(max(r["p50_us"], 0.01))
                    mx.append(max(r["max_us"], 0.01))
        if not xs:
            continue
        ax.bar(xs, p99, width=width * 0.9, label=f"{impl} p99")
        ax.scatter(xs, p50, color="black", marker="o", s=12, zorder=3, label="p50" if i == 0 else None)
        ax.scatter(xs, mx, color="red", marker="_", s=120, zorder=3, label="max" if i == 0 else None)
    ax.set_yscale("log")
    ax.set_ylabel("latency (µs, log)")
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels(cases, rotation=20, ha="right", fontsize=8)
    host = result.get("host", {})
    title = f"{result['bench']}  ({host.get('kernel', '?')}, {host.get('cpus', '?')} CPUs, " \
            f"SCHED_FIFO {'yes' if host.get('sched_fifo_permitted') else 'no'}, {result.get('started', '')})"
    goals = "\n".join(("NOT JUDGED: " if g["met"] is None else "MET: " if g["met"] else "NOT MET: ") + g["text"] + " — " + g["measured"]
                      for g in result.get("goals", []))
    ax.set_title(title + ("\n" + goals if goals else ""), fontsize=8)
    ax.legend(fontsize=8)
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(argv[2], dpi=110)


if __name__ == "__main__":
    main(sys.argv)
