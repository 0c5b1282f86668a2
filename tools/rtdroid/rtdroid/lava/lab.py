"""Submit boards' jobs to a LAVA lab through lavacli, wait for them, print what LAVA recorded.

Jobs queue in LAVA and run as its scheduler gives them devices: on a lab with one device per board
type and one worker (the local lab) one at a time; on a lab with several devices of a type, or
several workers, side by side. lavacli is Debian's (/usr/bin/lavacli), run with Debian's python3
whatever python3 comes first in PATH.
"""
from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

LAVACLI = "/usr/bin/lavacli"
SYSTEM_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"


class LabError(RuntimeError):
    pass


def lavacli(identity: str, *args: str, timeout: float = 120) -> str:
    if not Path(LAVACLI).exists():
        raise LabError("lavacli is not installed: run 'make lab' first")
    p = subprocess.run([LAVACLI, "-i", identity, *args], capture_output=True, text=True, timeout=timeout,
                       env={"PATH": SYSTEM_PATH, "HOME": str(Path.home())})
    if p.returncode != 0:
        raise LabError(f"lavacli {' '.join(args[:2])}: {(p.stderr or p.stdout).strip().splitlines()[-1:] or ['failed']}")
    return p.stdout


def submit(identity: str, job_file: Path) -> int:
    out = lavacli(identity, "jobs", "submit", str(job_file)).strip()
    try:
        return int(out.split()[-1])
    except (ValueError, IndexError):
        raise LabError(f"lavacli jobs submit {job_file}: no job id in {out!r}") from None


@dataclass
class JobOutcome:
    job_id: int
    state: str
    health: str
    failure: str
    results: list[dict]

    @property
    def failed_cases(self) -> list[dict]:
        return [r for r in self.results if r.get("result") == "fail"]

    @property
    def ok(self) -> bool:
        return self.health == "Complete" and not self.failed_cases


def details(identity: str, job_id: int) -> dict:
    return yaml.safe_load(lavacli(identity, "jobs", "show", "--yaml", str(job_id)))


def results(identity: str, job_id: int) -> list[dict]:
    return yaml.safe_load(lavacli(identity, "results", "--yaml", str(job_id))) or []


# The device healths in which LAVA gives a device jobs (Unknown: after its health check).
IN_SERVICE = ("Good", "Unknown")
HEALTH_CHECK_SUBMITTER = "lava-health"


def devices(identity: str) -> list[dict]:
    """The lab's devices: hostname, type, health, state, ..."""
    return yaml.safe_load(lavacli(identity, "devices", "list", "--yaml")) or []


def last_health_checks(identity: str, limit: int = 200) -> dict[str, dict]:
    """Device -> the newest health-check job LAVA ran or queued on it (id, state, health,
    error_msg), from the newest `limit` jobs."""
    rows = yaml.safe_load(lavacli(identity, "jobs", "list", "--verbose", "--yaml", "--limit", str(limit))) or []
    out: dict[str, dict] = {}
    for r in rows:  # newest first
        if r.get("submitter") == HEALTH_CHECK_SUBMITTER and r.get("actual_device"):
            out.setdefault(r["actual_device"], r)
    return out


def out_of_service(identity: str, device_type: str) -> str | None:
    """Why no device of a type will take a job (every one Bad, in Maintenance or Retired), or None."""
    of_type = [d for d in devices(identity) if d.get("type") == device_type]
    if not of_type or any(d.get("health") in IN_SERVICE for d in of_type):
        return None
    checks = last_health_checks(identity)
    why = []
    for d in of_type:
        hc = checks.get(d["hostname"])
        why.append(f"{d['hostname']} is {d.get('health')}" + (
            f" (health check job {hc['id']} {hc.get('health')}"
            + (f": {hc['error_msg']}" if hc.get("error_msg") else "") + ")" if hc else ""))
    return f"no device of type {device_type} is in service: " + "; ".join(why)


def wait(identity: str, job_id: int, timeout_s: float, progress=print) -> JobOutcome:
    deadline = time.monotonic() + timeout_s
    last = None
    polls = 0
    while True:
        d = details(identity, job_id)
        state = d.get("state")
        if state != last:
            progress(f"job {job_id}: {state}" + (f" on {d.get('device')}" if d.get("device") else ""))
            last = state
        if state == "Finished":
            break
        if time.monotonic() > deadline:
            lavacli(identity, "jobs", "cancel", str(job_id))
            raise LabError(f"job {job_id} not finished after {timeout_s:.0f} s: cancelled")
        # A queued job whose device type has no device in service would wait for ever: say why.
        if state == "Submitted" and polls % 10 == 0:
            why = out_of_service(identity, d.get("device_type", ""))
            if why:
                lavacli(identity, "jobs", "cancel", str(job_id))
                raise LabError(f"job {job_id} cancelled: {why}")
        polls += 1
        time.sleep(3)
    rows = results(identity, job_id)
    return JobOutcome(job_id, d.get("state", ""), d.get("health", ""), d.get("failure_comment") or reason(rows), rows)


def reason(rows: list[dict]) -> str:
    """Why LAVA ended a job Incomplete: the error of its `lava.job` result (a `lava-test-raise`
    message, a boot or connection error); LAVA 2023.01 leaves the job's failure comment empty."""
    for r in rows:
        if r.get("suite") == "lava" and r.get("name") == "job":
            return str((r.get("metadata") or {}).get("error_msg") or "")
    return ""


def results_table(rows: list[dict]) -> str:
    """`lavacli results` with the measurements (its plain form leaves them out): one line per
    test case, grouped by test definition."""
    lines = []
    for r in rows:
        fig = ""
        if r.get("measurement") not in (None, "None", ""):
            fig = f"  {float(r['measurement']):g} {r.get('unit') or ''}".rstrip()
        lines.append(f"* {r.get('suite')}.{r.get('name')} [{r.get('result')}]{fig}")
    return "\n".join(lines) + "\n"


def show(identity: str, job_id: int) -> str:
    """What a user reads: `lavacli jobs show` and the job's results with their measurements."""
    return (lavacli(identity, "jobs", "show", str(job_id)) + "\nResults:\n"
            + results_table(results(identity, job_id)))


def run_jobs(identity: str, jobs: dict[str, Path], timeout_s: float, out=sys.stdout) -> int:
    """Submits every job at once (LAVA queues them), waits for each, prints each board's results.
    0 when every job completed with no failed test case."""
    checks = last_health_checks(identity)
    for dev in devices(identity):
        hc = checks.get(dev["hostname"])
        print(f"{dev['hostname']}: {dev.get('health')}" + (
            f", health check job {hc['id']} {hc.get('state')} {hc.get('health')}" if hc else ""), file=out)
    ids = {}
    for board, f in jobs.items():
        ids[board] = submit(identity, f)
        print(f"{board}: submitted {f} as job {ids[board]}", file=out, flush=True)
    bad = 0
    for board, job_id in ids.items():
        o = wait(identity, job_id, timeout_s, progress=lambda m: print(m, file=out, flush=True))
        print(f"\n===== {board}: job {job_id} {o.health}" + (f": {o.failure}" if o.failure else ""), file=out)
        print(show(identity, job_id), file=out, flush=True)
        if not o.ok:
            bad += 1
    return 1 if bad else 0
