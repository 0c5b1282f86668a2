"""The seeds' plot forms: raw latency per event, worst case over runs, CDFs, histograms."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

US = 1e-3  # ns -> µs
DPI = 100  # figures.py lowers it for the quick form (make test): the same plots, fewer pixels to render


def figure(nrows: int = 1, ncols: int = 1, width: float = 6.0, height: float = 3.6):
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False)
    return fig, [ax for row in axes for ax in row]


def save(fig, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def colours(n: int):
    cmap = plt.get_cmap("viridis")
    return [cmap(i / max(1, n - 1)) for i in range(n)]


def scatter_events(ax, series: list[tuple[str, list[float], list[float]]], title: str, ylabel: str = "latency (µs)",
                   log: bool = False, xlabel: str = "event #") -> None:
    """One dot per event: series of (label, x, y)."""
    for (label, xs, ys), c in zip(series, colours(len(series))):
        ax.scatter(xs, ys, s=4, color=c, label=label, alpha=0.8, linewidths=0)
    finish(ax, title, xlabel, ylabel, log, legend=len(series) <= 12)


def lines(ax, series: list[tuple[str, list[float], list[float]]], title: str, xlabel: str, ylabel: str,
          log: bool = False, markers: bool = True, styles: list[str] | None = None) -> None:
    for i, (label, xs, ys) in enumerate(series):
        ax.plot(xs, ys, marker="o" if markers else None, markersize=3, label=label,
                linestyle=(styles[i] if styles else "-"))
    finish(ax, title, xlabel, ylabel, log)


def maxima(series: list, styles: list[str], impl: str, runs: int, worst_cases: list[dict]) -> None:
    """Adds an implementation's two lines of an observed-worst-case panel (``lines``), by the number
    of noise threads: the worst of its runs' maxima (solid) and their mean (dotted)."""
    xs = [w["noise_threads"] for w in worst_cases]
    series += [(f"{impl}: worst of {runs} runs", xs, [w["max_of_max_us"] for w in worst_cases]),
               (f"{impl}: mean of the runs' maxima", xs, [w["mean_of_max_us"] for w in worst_cases])]
    styles += ["-", ":"]


def cdf(ax, series: list[tuple[str, list[float]]], title: str, xlabel: str = "latency (µs)", log: bool = True) -> None:
    """Cumulative distribution: the fraction of samples at or below each value."""
    for label, values in series:
        if not values:
            continue
        v = sorted(values)
        n = len(v)
        ax.step(v, [(i + 1) / n for i in range(n)], where="post", label=f"{label} (n={n})")
    ax.set_ylim(0, 1.02)
    finish(ax, title, xlabel, "fraction of samples ≤ x", log, logaxis="x")


def histogram(ax, series: list[tuple[str, list[float]]], title: str, xlabel: str, bins: int = 60) -> None:
    for label, values in series:
        if values:
            ax.hist(values, bins=bins, histtype="step", label=f"{label} (n={len(values)})")
    finish(ax, title, xlabel, "releases", log=True)


def finish(ax, title: str, xlabel: str, ylabel: str, log: bool, legend: bool = True, logaxis: str = "y") -> None:
    if log:
        (ax.set_xscale if logaxis == "x" else ax.set_yscale)("log")
    ax.set_title(title, fontsize=9)
    ax.set_xlabel(xlabel, fontsize=8)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(alpha=0.3, which="both")
    if legend and ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=6, markerscale=2)
