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
    return (f"worst response {response / 1000:.1f} {unit} > analysed WCRT {int(wcrt) / 1000:.1f} {unit}"
            + (": " + "; ".join(why) if why else ""))
