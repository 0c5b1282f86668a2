"""`rtdroid characterise`: the datasheet of both cells of the board that is up (seeds 002, 003);
the probing and judging are rtdroid.characterise, the page rtdroid.charreport."""
from __future__ import annotations

import argparse
import json

from .. import characterise, charreport, paths


def cmd_characterise(a) -> int:
    if a.sustained is not None:
        return _sustained(a)
    if a.periods_us:
        raise SystemExit("rtdroid characterise: --periods-us is --sustained's (the datasheet's periods are fixed)")
    doc = characterise.run(a.board, a.quick)
    out = paths.build_dir() / "characterise" / f"{doc['board']}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")
    page = None if a.no_report else charreport.write(_with_long_run(doc), paths.build_dir() / "report")
    if a.json:
        print(json.dumps(doc, indent=1))
    else:
        print(characterise.summary(doc))
        print(f"rows: {out}" + (f"\npage: {page}" if page else ""))
    return 0


def _sustained(a) -> int:
    periods = a.periods_us or list(characterise.SEED_LONG_PERIODS_US)
    doc = characterise.run_sustained(a.board, a.sustained, periods)
    out = paths.build_dir() / "characterise" / f"{doc['board']}-sustained.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps(doc, indent=1) if a.json else characterise.sustained_summary(doc) + f"\nrows: {out}")
    datasheet = out.with_name(f"{doc['board']}.json")
    if datasheet.is_file() and not a.no_report:  # the board's page shows the long run beside its own series
        print(f"page: {charreport.write(_with_long_run(json.loads(datasheet.read_text())), paths.build_dir() / 'report')}")
    return 0


def _with_long_run(doc: dict) -> dict:
    """The datasheet with the rows of the board's long sustained run, where it has one."""
    long_run = paths.build_dir() / "characterise" / f"{doc['board']}-sustained.json"
    if long_run.is_file():
        doc = dict(doc, sustained_rows=json.loads(long_run.read_text())["rows"])
    return doc


def _count(text: str) -> int:
    n = int(text) if text.isdigit() else 0
    if not 1 <= n <= 1_000_000_000:
        raise argparse.ArgumentTypeError(f"{text!r}: must be 1..1000000000 interrupts")
    return n


def _periods(text: str) -> list[int]:
    out = [int(p) for p in text.split(",") if p.isdigit() and 5 <= int(p) <= 1_000_000]
    if not out or len(out) != len(text.split(",")) or len(out) > 32:
        raise argparse.ArgumentTypeError(f"{text!r}: must be 1 to 32 periods of 5..1000000 us, comma-separated")
    return out


def register(commands) -> None:
    sp = commands.add_parser("characterise", help="the board's datasheet, both cells (seeds 002, 003): JSON, "
                             "plots, build/report/characterise-<board>.html")
    sp.add_argument("--board", metavar="NAME", help="the board that is up (default: the one that is up)")
    sp.add_argument("--quick", action="store_true", help="the short series (about a minute; `make test`'s suite)")
    sp.add_argument("--json", action="store_true", help="print the result document instead of the summary")
    sp.add_argument("--no-report", action="store_true", help="write the JSON only (no plots, no page)")
    sp.add_argument("--sustained", metavar="N", type=_count,
                    help="instead: the seed's long sustained interrupt frequency run, N timer interrupts at each "
                         "period in both cells (the seed: 10000000; hours) -> build/characterise/<board>-sustained.json")
    sp.add_argument("--periods-us", metavar="P,P,...", type=_periods,
                    help="--sustained's periods in us (default the seed's: "
                         + ",".join(map(str, characterise.SEED_LONG_PERIODS_US)) + ")")
    sp.set_defaults(func=cmd_characterise)
