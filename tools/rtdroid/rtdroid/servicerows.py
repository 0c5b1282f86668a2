"""What a row of `rt services` says beside its figures: a release or callback that used more CPU
time than the cost the admission analysis assumed, and a measured worst response over the analysed
WCRT, each with its reason. Used by `rtdroid rt services` and the `make run` report."""
from __future__ import annotations


def cost_overrun_text(s: dict, unit: str = "us") -> str | None:
    """What a row's cost overruns mean, or None when it has none: its releases (a task) or callbacks
    used more CPU time than the cost the admission analysis assumed, so its analysed WCRT did not
    bound them; which one did so last tells cold code after a deploy from an app too slow for it."""
    over = int(s.get("cost_overruns") or 0)
    if not over or not s.get("analysed_cost_nanos"):
        return None
    what = "releases" if s.get("name", "").count("/") == 2 else "callbacks"
    last = f", the last at {what[:-1]} {int(s['last_cost_overrun'])}" if s.get("last_cost_overrun") else ""
    return (f"{over} of {int(s.get('releases', 0))} {what} used more CPU time than the "
            f"{int(s['analysed_cost_nanos']) / 1000:.1f} {unit} the analysis assumed (worst "
            f"{int(s.get('worst_execution_nanos') or 0) / 1000:.1f} {unit}){last}: the analysed WCRT did not bound them")


def wcrt_exceeded_text(s: dict, unit: str = "us") -> str | None:
    """Why a row's measured worst response exceeds its analysed WCRT, or None when it does not: the
    analysis counts a task's release lateness, or a component's delay from an intent's send to its
    callback, beyond what it models (the kernel's wake-up of the thread) only as the jitter its
    manifest declares, and, when some release overran it, more CPU time than the declared cost."""
    wcrt, response = s.get("analysed_wcrt_nanos"), int(s.get("worst_response_nanos") or 0)
    if not wcrt or response <= int(wcrt):
        return None
    delay = "release lateness" if s.get("name", "").count("/") == 2 else "delivery delay"
    why = [f"its {delay} (worst {int(s.get('worst_lateness_nanos') or 0) / 1000:.1f} {unit}, the kernel's "
           "wake-up included) counts in the analysis only as the jitter its manifest declares"]
    if s.get("cost_overruns"):
        why.append("some releases used more CPU time than the declared cost")
    held = _held_beyond_analysis(s, response, int(wcrt))
    if held > 0:
        why.append(f"after it started, at least {held / 1000:.1f} {unit} went neither to its own CPU time nor to the "
                   "preemption and blocking the analysis counts: something the analysis does not model held it (the "
                   "JVM's safepoints and its locks without priority inheritance, docs/rtdroid-runtime.md)")
    return (f"worst response {response / 1000:.1f} {unit} > analysed WCRT {int(wcrt) / 1000:.1f} {unit}"
            + (": " + "; ".join(why) if why else ""))


def _held_beyond_analysis(s: dict, response: int, wcrt: int) -> int:
    """A lower bound (ns) on the time the slowest release spent, after it started, neither on its own
    CPU time nor on the preemption and blocking the analysis allows (its WCRT less its cost): the
    worst response less the worst lateness and the worst CPU time (each the worst of any release, so
    the slowest release's own were at most these). 0 when the row says too little to tell."""
    cost = s.get("analysed_cost_nanos")
    if not cost or s.get("worst_execution_nanos") is None:
        return 0
    off_cpu = response - int(s.get("worst_lateness_nanos") or 0) - int(s["worst_execution_nanos"])
    return max(0, off_cpu - (wcrt - int(cost)))
