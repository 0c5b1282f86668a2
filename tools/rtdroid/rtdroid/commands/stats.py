"""`rtdroid stats`: the region's counters and peer states, and the RT agent's counters, as JSON."""
from __future__ import annotations

import json

from .. import lifecycle
from .common import as_dict, board_opt, timeout_opt


def cmd_stats(a) -> int:
    state = lifecycle.current_state(a.board)
    from xcc import region as xr
    out = {"region": xr.dump(state["region"]["path"])}
    if "rt" in {c.get("role") for c in state["cells"].values()} and not a.region_only:
        try:
            out["rt_agent"] = as_dict(a.reach.mgmt().stats(state["region"]["path"], timeout=a.timeout))
        except Exception as e:  # the region counters are still worth showing
            out["rt_agent"] = {"error": str(e)}
    print(json.dumps(out, indent=2, sort_keys=True, default=str))
    return 0


def register(commands) -> None:
    sp = commands.add_parser("stats", help="region counters, peer states and the RT agent's counters (JSON)")
    board_opt(sp)
    timeout_opt(sp, 10.0)
    sp.add_argument("--region-only", action="store_true", help="only what the region itself says")
    sp.set_defaults(func=cmd_stats)
