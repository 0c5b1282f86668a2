"""`rtdroid characterise`: the datasheet of both cells of the board that is up (seeds 002, 003);
the probing and judging are rtdroid.characterise, the page rtdroid.charreport."""
from __future__ import annotations

import json

from .. import characterise, charreport, paths


def cmd_characterise(a) -> int:
    doc = characterise.run(a.board, a.quick)
    out = paths.build_dir() / "characterise" / f"{doc['board']}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")
    page = None if a.no_report else charreport.write(doc, paths.build_dir() / "report")
    if a.json:
        print(json.dumps(doc, indent=1))
    else:
        print(characterise.summary(doc))
        print(f"rows: {out}" + (f"\npage: {page}" if page else ""))
    return 0


def register(commands) -> None:
    sp = commands.add_parser("characterise", help="the board's datasheet, both cells (seeds 002, 003): JSON, "
                             "plots, build/report/characterise-<board>.html")
    sp.add_argument("--board", metavar="NAME", help="the board that is up (default: the one that is up)")
    sp.add_argument("--quick", action="store_true", help="the short series (about a minute; `make test`'s suite)")
    sp.add_argument("--json", action="store_true", help="print the result document instead of the summary")
    sp.add_argument("--no-report", action="store_true", help="write the JSON only (no plots, no page)")
    sp.set_defaults(func=cmd_characterise)
