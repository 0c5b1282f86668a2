"""Robot listener: after each suite, saves the round-trip samples the keyword library collected
as JSON, a histogram and a CDF (PNG) and a small HTML page beside Robot's log.html."""
from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tools" / "demo"))


class LatencyListener:
    ROBOT_LISTENER_API_VERSION = 3

    def __init__(self):
        self.outdir: Path | None = None

    def start_suite(self, data, result):
        if self.outdir is None:
            from robot.libraries.BuiltIn import BuiltIn
            try:
                self.outdir = Path(BuiltIn().get_variable_value("${OUTPUT DIR}"))
            except Exception:
                self.outdir = Path(os.getcwd())
            os.environ["ROBOT_OUTPUT_DIR"] = str(self.outdir)

    def end_suite(self, data, result):
        if self.outdir is None:
            return
        try:
            from robot.libraries.BuiltIn import BuiltIn
            lib = BuiltIn().get_library_instance("AndroidCellLibrary")
        except Exception:
            return
        if not lib.latency:
            return
        import report
        hist_dir = self.outdir / "latency"
        summary = {}
        for name, samples in lib.latency.items():
            summary[name] = report.percentiles(samples).as_dict()
            report.plot_latency(samples, hist_dir, re.sub(r"[^A-Za-z0-9_.-]+", "_", name), name)
        (hist_dir / "latency.json").write_text(json.dumps(
            {"percentiles": summary, "samples_ns": lib.latency}, indent=1))
        report.write_report({"board": getattr(lib, "board", ""), "latency": lib.latency,
                             "notes": ["Saved by the Robot latency listener."]}, hist_dir)
