"""`rtdroid rt trace`: the RT cell's timelines and the Android proxy's traffic as one Perfetto trace
(built by ``rtdroid.rttrace`` from what the cells report; nothing in a cell imports it)."""
from __future__ import annotations

import sys
import time
from pathlib import Path

from .. import lifecycle, rttrace
from .common import CliError, _number, board_opt, timeout_opt


def cmd_rt_trace(a) -> int:
    from ..control import AndroidControl
    out = Path(a.output)
    if not out.parent.is_dir():
        raise CliError(f"{out.parent} is not a directory")
    region = a.reach.region_of(a)
    rt_clock = a.reach.clock_of(a)
    state = lifecycle.current_state(a.board)
    since_host = time.monotonic_ns() - int(a.seconds * 1e9) if a.seconds else 0
    print(f"asking the RT cell for its timelines{f' of the last {a.seconds:g} s' if a.seconds else ''} ...",
          file=sys.stderr)
    rt = a.reach.mgmt().timelines(region, int(a.seconds + 0.999) if a.seconds else 0, timeout=a.timeout)
    android = None
    if "android" in {c.get("role") for c in state["cells"].values()}:
        try:
            status = lifecycle.status(state["board"])[state["board"]]  # with the adb port its token comes by
            android = AndroidControl.for_board(status, timeout=a.timeout).proxy_events(since_host)
        except Exception as e:  # the RT cell's timelines stand without it
            print(f"rtdroid: rt trace: the Android cell's proxy events are left out: {e}", file=sys.stderr)
    data, s = rttrace.build(rt, android, state["board"], rt_clock)
    out.write_bytes(data)
    print(f"wrote {out}: {len(data)} bytes, {s['rt_tracks']} RT timeline(s) with {s['rt_slices']} jobs "
          f"({s['misses']} deadline misses, {s['overruns']} cost overruns, {s['clobbered']} clobbered; "
          f"the oldest began {s['rt_span_s']:.1f} s ago: each timeline keeps its newest jobs), "
          f"{s['android_slices']} proxy events; {s['clock']}. Open it in the Perfetto UI (ui.perfetto.dev).")
    return 0


def register(commands) -> None:
    sp = commands.group("rt").add_parser(
        "trace", help="the RT cell's timelines and the Android proxy's traffic as a Perfetto trace")
    sp.add_argument("--seconds", type=_number(float, 0, 86_400, what="seconds"), default=0.0, metavar="N",
                    help="only what ended in the last N seconds (default: everything the cells keep)")
    sp.add_argument("-o", "--output", required=True, metavar="FILE", help="the trace file to write (.pftrace)")
    board_opt(sp)
    timeout_opt(sp)
    sp.set_defaults(func=cmd_rt_trace)
