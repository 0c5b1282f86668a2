"""Checks rendered LAVA files the way LAVA does, without a running lab: each job against LAVA's
job schema (what `lavacli jobs submit` / the server's submission refuses), and with --device a
device dictionary rendered through LAVA's own device-type templates, checked against LAVA's
device schema, then the job validated by the dispatcher against that device (`lava-run
--validate`: LAVA's pipeline for the job on that device, its URLs fetched). Runs with Debian's
python3 (lava_common, lava_dispatcher, jinja2 from the LAVA packages), started by `rtdroid lava
validate` (commands/lava.py), which takes the same arguments:

  JOB.yaml...                                           schema only
  --device DICT.jinja2 [--templates DIR ...] JOB.yaml   + the dispatcher's validation on that device

One line per file: "ok FILE" or "invalid FILE: reason"; main returns 1 when any is invalid."""
import argparse
import json
import subprocess
import tempfile
from pathlib import Path

import jinja2
import yaml
from lava_common.schemas import validate as validate_job
from lava_common.schemas.device import validate as validate_device

LAVA_TEMPLATES = "/usr/share/lava-server/device-types"


def render_device(dictionary: Path, templates: list[str]) -> dict:
    # as lava-server renders a device: its dictionary extends a device-type template
    env = jinja2.Environment(loader=jinja2.FileSystemLoader([str(dictionary.parent), *templates, LAVA_TEMPLATES]),
                             autoescape=False, trim_blocks=True)
    return yaml.safe_load(env.get_template(dictionary.name).render())


def dispatcher_validates(job: Path, device: dict) -> str | None:
    with tempfile.TemporaryDirectory() as tmp:
        dev = Path(tmp) / "device.yaml"
        dev.write_text(yaml.safe_dump(device))
        p = subprocess.run(["lava-run", "--validate", "--job-id", "0", "--output-dir", f"{tmp}/out",
                            "--device", str(dev), str(job)], capture_output=True, text=True, timeout=300)
    for line in (p.stdout + p.stderr).splitlines():  # its log: one JSON object a line
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        res = msg.get("msg") if isinstance(msg, dict) else None
        if isinstance(res, dict) and res.get("case") == "job":
            return None if res.get("result") == "pass" else " ".join(res.get("error_msg", "failed").split())
    return f"lava-run --validate exited {p.returncode}: {(p.stderr.strip().splitlines() or ['no output'])[-1]}"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="rtdroid lava validate")
    ap.add_argument("--device", type=Path)
    ap.add_argument("--templates", action="append", default=[])
    ap.add_argument("jobs", nargs="+", type=Path)
    a = ap.parse_args(argv)
    device = None
    bad = 0
    if a.device:
        try:
            device = render_device(a.device, a.templates)
            validate_device(device)
            print(f"ok {a.device}")
        except Exception as e:  # jinja2, yaml or voluptuous: one line naming it
            print(f"invalid {a.device}: {type(e).__name__}: {' '.join(str(e).split())}")
            return 1
    for job in a.jobs:
        try:
            validate_job(yaml.safe_load(job.read_text()), strict=True)
            why = dispatcher_validates(job, device) if device else None
        except Exception as e:
            why = f"{type(e).__name__}: {' '.join(str(e).split())}"
        print(f"ok {job}" if why is None else f"invalid {job}: {why}")
        bad += why is not None
    return 1 if bad else 0
