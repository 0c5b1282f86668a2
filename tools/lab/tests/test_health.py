"""A device whose board cannot come up fails its health check and goes out of service, end to end
in the local lab (`make test-lab`, after `make lab`), and is put back once its board comes up.

The device is qemu-x86_64-noboot-01, of a device type of its own rendered from
tests/boards/qemu-x86_64-noboot.yaml (an RT kernel that finds no root and panics): its health check
(the board suite) ends Incomplete, LAVA marks the device Bad with the check's reason, and a job for
it is cancelled with that reason instead of waiting for ever. The board is then repaired (its
device type's health check boots qemu-x86_64, whose RT cell comes up), LAVA checks the device
again and it is Good. The device is retired at the end: a lab keeps no test device in service."""
from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
import yaml

from rtdroid import paths
from rtdroid.boardconfig import load_board
from rtdroid.lava import build, lab, render

IDENTITY = "rtdroid-lab"
VARIANT = "tools/lab/tests/boards/qemu-x86_64-noboot.yaml"
DEVICE = "qemu-x86_64-noboot-01"
DEVICE_TYPE = "rtdroid-qemu-x86_64-noboot"
HEALTH_CHECKS = Path("/etc/lava-server/dispatcher-config/health-checks")
SYSPATH = "/usr/sbin:/usr/bin:/sbin:/bin"   # Debian's python3 for lava-server (tools/lab/README.md)
TIMEOUT_S = 1800   # the check queues behind the other devices' checks and jobs (one board at a time)


def _manage(*args: str) -> str:
    p = subprocess.run(["lava-server", "manage", *args], capture_output=True, text=True, env={"PATH": SYSPATH})
    assert p.returncode == 0, f"lava-server manage {' '.join(args)}: {p.stderr.strip()[-400:]}"
    return p.stdout


def _newest_job_id() -> int:
    rows = yaml.safe_load(lab.lavacli(IDENTITY, "jobs", "list", "--yaml", "--limit", "1")) or []
    return int(rows[0]["id"]) if rows else 0


def _health() -> str:
    return next(d["health"] for d in lab.devices(IDENTITY) if d["hostname"] == DEVICE)


def _check_device(after: int) -> tuple[dict, str]:
    """Sets the device's health to Unknown (LAVA then runs its health check before anything else on
    it) and waits for that check: (the check's job row, the device's health after it)."""
    _manage("devices", "update", "--health", "UNKNOWN", DEVICE)
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        hc = lab.last_health_checks(IDENTITY).get(DEVICE)
        if hc and int(hc["id"]) > after and hc.get("state") == "Finished":
            return hc, _health()
        assert time.monotonic() < deadline, f"no health check of {DEVICE} finished in {TIMEOUT_S} s: {hc}"
        time.sleep(5)


@pytest.fixture(scope="module")
def cycle(tmp_path_factory):
    status = subprocess.run(["bash", str(paths.repo_root() / "tools/lab/lab.sh"), "status"],
                            capture_output=True, text=True).stdout
    assert "worker: running" in status, f"the lab is not up (make lab): {status}"
    root = paths.repo_root()
    add = subprocess.run(["bash", str(root / "tools/lab/lab.sh"), "add", str(root / VARIANT)],
                         capture_output=True, text=True)
    assert add.returncode == 0, add.stderr
    out = {}
    try:
        # 1. the board cannot come up: its health check fails and the device goes Bad
        out["bad_check"], out["bad_health"] = _check_device(_newest_job_id())
        # 2. a job for it is cancelled with the reason, not queued for ever
        board = load_board(VARIANT)
        job = render.job_definition(board, suites=["deploy"], build=build.current(board),
                                    name="lab test: a job for a device that is out of service")
        f = tmp_path_factory.mktemp("jobs") / "out-of-service.yaml"
        f.write_text(yaml.safe_dump(job, sort_keys=False, width=1000))
        job_id = lab.submit(IDENTITY, f)
        with pytest.raises(lab.LabError) as refused:
            lab.wait(IDENTITY, job_id, 600)
        out["refused"] = str(refused.value)
        for _ in range(60):
            out["refused_job"] = lab.details(IDENTITY, job_id)
            if out["refused_job"].get("state") == "Finished":
                break
            time.sleep(2)
        # 3. the board repaired (its device type's health check boots qemu-x86_64): checked again, Good
        good = render.health_check(load_board("qemu-x86_64"))
        good["device_type"] = DEVICE_TYPE
        good["job_name"] = f"rtdroid {DEVICE_TYPE}: health check after repair (qemu-x86_64's board suite)"
        (HEALTH_CHECKS / f"{DEVICE_TYPE}.yaml").write_text(yaml.safe_dump(good, sort_keys=False, width=1000))
        out["good_check"], out["good_health"] = _check_device(_newest_job_id())
        out["good_results"] = lab.results(IDENTITY, int(out["good_check"]["id"]))
    finally:
        _manage("devices", "update", "--health", "RETIRED", DEVICE)
    print(f"\n===== health checks of {DEVICE}: {out.get('bad_check')}; refused: {out.get('refused')}; "
          f"after repair: {out.get('good_check')}")
    return out


def test_a_board_that_cannot_come_up_fails_its_health_check_and_its_device_goes_bad_with_the_reason(cycle):
    hc = cycle["bad_check"]
    assert hc["health"] == "Incomplete", hc
    assert cycle["bad_health"] == "Bad"
    # the reason LAVA keeps: the board suite's board-up failure, with the RT kernel's panic
    assert "the board did not come up" in (hc.get("error_msg") or ""), hc
    assert "Kernel panic - not syncing" in hc["error_msg"], hc


def test_a_job_for_a_device_out_of_service_is_cancelled_with_the_reason(cycle):
    why = cycle["refused"]
    assert f"no device of type {DEVICE_TYPE} is in service: {DEVICE} is Bad" in why, why
    assert f"health check job {cycle['bad_check']['id']} Incomplete" in why and "Kernel panic" in why, why
    assert cycle["refused_job"].get("health") == "Canceled", cycle["refused_job"]


def test_once_its_board_comes_up_the_device_is_checked_again_and_good(cycle):
    hc = cycle["good_check"]
    assert hc["health"] == "Complete", hc
    assert cycle["good_health"] == "Good"
    cases = {r["name"]: r["result"] for r in cycle["good_results"] if r["suite"].endswith("_robot-board")}
    assert cases["both-cells-report-ready"] == "pass", cases
