"""The local LAVA lab runs the boards' jobs and records what Robot found (`make test-lab`, after
`make lab`): one emulated board's deploy and latency suites as a LAVA job that deploys the board's
images (checksums checked by LAVA) and boots the board from them, whose test cases and
measurements LAVA keeps; a job with a failing Robot test; a job whose board does not boot, and one
whose image is not the one it names, which LAVA ends Incomplete with the reason. The three are submitted together and LAVA queues them
behind the devices' health checks; every one takes the board lock around what it boots."""
from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
import yaml

from rtdroid import paths
from rtdroid.boardconfig import load_board
from rtdroid.lava import build, images, lab, render, robot

IDENTITY = "rtdroid-lab"
NOBOOT = "tools/lab/tests/boards/qemu-x86_64-noboot.yaml"
TIMEOUT_S = 3600


def _submit(tmp_path: Path, name: str, job: dict) -> int:
    f = tmp_path / f"{name}.yaml"
    f.write_text(yaml.safe_dump(job, sort_keys=False, width=1000))
    return lab.submit(IDENTITY, f)


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    status = subprocess.run(["bash", str(paths.repo_root() / "tools/lab/lab.sh"), "status"],
                            capture_output=True, text=True).stdout
    assert "worker: running" in status, f"the lab is not up (make lab): {status}"
    tmp = tmp_path_factory.mktemp("jobs")
    qemu = load_board("qemu-x86_64")
    published = images.publish(qemu)  # the build's RT images where the lab fetches them (build/lab/images)
    good = render.job_definition(qemu, suites=["deploy", "latency"], name="lab test: qemu-x86_64 deploy and latency",
                                 build=build.current(qemu), images=published)
    # Images that are not what the job names: LAVA's checksum check ends it before anything boots.
    wrong = dict(published, **{"initrd.cpio": images.Image(published["initrd.cpio"].url, "0" * 64)})
    badsum = render.job_definition(qemu, suites=["board"], images=wrong,
                                   name="lab test: an image whose checksum is not the job's")
    # A failing Robot test: the host board's boot budget set below any boot.
    failing = render.job_definition(load_board("host"), suites=["board"], robot_variables={"BOOT_BUDGET_S": "0.001"},
                                    name="lab test: a failing Robot test (host board, boot budget 1 ms)")
    # A board that does not boot: qemu-x86_64 whose RT kernel finds no init, on the qemu-x86_64 device.
    noboot = render.job_definition(load_board(NOBOOT), suites=["deploy"], board_arg=NOBOOT, variables="qemu-x86_64",
                                   name="lab test: a board that does not boot")
    noboot["device_type"] = render.device_type(qemu)
    ids = {n: _submit(tmp, n, j) for n, j in (("good", good), ("failing", failing), ("noboot", noboot),
                                               ("badsum", badsum))}
    out = {n: lab.wait(IDENTITY, i, TIMEOUT_S) for n, i in ids.items()}
    out["published"] = published
    for n, o in out.items():
        if n == "published":
            continue
        print(f"\n===== {n}: job {o.job_id} {o.health} {o.failure}\n" + lab.show(IDENTITY, o.job_id))
    return out


def _cases(o: lab.JobOutcome, definition: str) -> dict[str, dict]:
    return {r["name"]: r for r in o.results if r["suite"].endswith(definition)}


def _robot_cases(board: str, suite: str) -> list[robot.Case]:
    """What Robot itself found: the output.xml `rtdroid lava robot` left on the root side."""
    cases, setup_failure = robot.cases_from_output(paths.build_dir() / "lab" / "robot" / board / suite / "output.xml")
    assert setup_failure is None, setup_failure
    return cases


def test_deploy_and_latency_suites_complete_with_every_robot_test_recorded(jobs):
    o = jobs["good"]
    assert o.health == "Complete", o.failure
    for suite in ("deploy", "latency"):
        lava = _cases(o, f"_robot-{suite}")
        found = _robot_cases("qemu-x86_64", suite)
        assert len(found) >= 4
        # every Robot test with Robot's verdict (a Robot failure is a failed LAVA case in a Complete job)
        assert {c.name: c.result for c in found} == {n: r["result"] for n, r in lava.items()}
    deploy, latency = _cases(o, "_robot-deploy"), _cases(o, "_robot-latency")
    assert "a-signed-rt-bundle-deploys-and-starts" in deploy and "an-unsigned-bundle-is-refused" in deploy
    assert "end-to-end-round-trips-stay-within-the-board-s-budget" in latency


def test_the_job_records_the_commit_and_each_cells_kernel_it_ran(jobs):
    """In its metadata (what was submitted), as the build test definition's results (the commit
    the root side ran) and as each suite's kernel cases (the kernel each booted cell ran, read from
    the cell), each value as its test case's reference."""
    o = jobs["good"]
    want = build.current(load_board("qemu-x86_64"))
    meta = yaml.safe_load(lab.lavacli(IDENTITY, "jobs", "definition", str(o.job_id)))["metadata"]
    assert build.from_metadata(meta) == want
    cases = _cases(o, "_build")
    assert {n: c["result"] for n, c in cases.items()} == {n: "pass" for n in want.cases()}
    assert {n: c["metadata"]["reference"] for n, c in cases.items()} == want.cases()
    for suite in ("deploy", "latency"):
        kernels = {n: c for n, c in _cases(o, f"_robot-{suite}").items() if n.startswith("kernel-")}
        assert {n: c["result"] for n, c in kernels.items()} == {"kernel-rt": "pass", "kernel-android": "pass"}
        assert {n[len("kernel-"):]: c["metadata"]["reference"] for n, c in kernels.items()} == want.kernels
    assert want.kernels["rt"].endswith("-rt-amd64")


def test_lava_deployed_the_images_with_their_checksums_and_the_suites_booted_the_board_from_them(jobs):
    o, published = jobs["good"], jobs["published"]
    downloads = [r for r in o.results if r["suite"] == "lava" and r["name"] == "file-download"]
    kept = yaml.safe_dump([r.get("metadata") for r in downloads])
    assert len(downloads) == 3 and all(r["result"] == "pass" for r in downloads), downloads  # with the state disk
    for image in published.values():
        assert image.sha256 in kept, kept  # LAVA's own digest of what it deployed: the job's
    where = f"/var/lib/lava/dispatcher/tmp/{o.job_id}/downloads/{images.NAMESPACE}"
    for suite in ("deploy", "latency"):
        robot_log = (paths.build_dir() / "lab" / "robot" / "qemu-x86_64" / suite / "output.xml").read_text()
        # every board up of the suite booted LAVA's copies, not the build's, the cell on the deployed state disk
        assert f"--images {where}" in robot_log
        assert f"RT cell image from {where} (vmlinux, initrd.cpio, state disk rt-state.img" in robot_log


def test_an_image_that_is_not_the_one_the_job_names_ends_it_incomplete_before_any_boot(jobs):
    o = jobs["badsum"]
    assert o.health == "Incomplete"
    assert "sha256" in o.failure and "does not match" in o.failure, o.failure
    assert not [r for r in o.results if r["suite"].endswith("_robot-board")]


def test_the_measured_figures_are_lava_measurements(jobs):
    got = {r["name"]: (r["measurement"], r["unit"]) for r in jobs["good"].results
           if r.get("measurement") not in (None, "None", "")}
    names = " ".join(got)
    for figure, unit in (("board_up_s", "s"), ("misses", "misses"), ("worst_lateness_us", "us"),
                         ("rtt_p50_us", "us"), ("rtt_p99_us", "us")):
        hits = [(n, v) for n, v in got.items() if n.endswith("_" + figure)]
        assert hits, f"no {figure} measurement in {names}"
        assert all(v[1] == unit for _, v in hits)
    # the values Robot measured, as LAVA keeps them (4 decimals)
    for suite in ("deploy", "latency"):
        for c in _robot_cases("qemu-x86_64", suite):
            if c.measurement is not None:
                assert float(got[c.name][0]) == pytest.approx(c.measurement, abs=1e-3), c.name


def test_a_failing_robot_test_is_a_failed_lava_test_case_with_its_reason_in_the_log(jobs):
    o = jobs["failing"]
    cases = _cases(o, "_robot-board")
    assert cases["boot-board"]["result"] == "fail"
    assert cases["both-cells-report-ready"]["result"] == "pass"
    log = lab.lavacli(IDENTITY, "jobs", "logs", "--raw", str(o.job_id))
    assert "boot-board: FAIL: board up took" in log and "budget 0.001 s" in log


def test_a_board_that_does_not_boot_ends_the_job_incomplete_with_the_reason(jobs):
    o = jobs["noboot"]
    assert o.health == "Incomplete"
    # the reason as LAVA keeps it: the suite, board up's own error and the RT kernel's panic
    assert o.failure.startswith("suite 02 Deploy set-up failed: "), o.failure
    assert "Kernel panic - not syncing" in o.failure, o.failure


def test_each_device_passed_its_health_check_and_is_in_service(jobs):
    """LAVA ran each lab device's health check (its board's board suite) before its jobs, or
    within the last day: the newest one completed, with the board's boot measured, and the device
    is Good. The qemu-arm64-xen device has no job above: its check may still be running."""
    types = {"rtdroid-qemu-x86_64", "rtdroid-qemu-arm64-xen", "rtdroid-host"}  # make lab's boards
    lab_devices = [d for d in lab.devices(IDENTITY) if d["type"] in types]
    assert {d["type"] for d in lab_devices} == types
    deadline = time.monotonic() + 1800
    while True:
        checks = lab.last_health_checks(IDENTITY)
        pending = [d["hostname"] for d in lab_devices
                   if checks.get(d["hostname"], {}).get("state") != "Finished"]
        if not pending or time.monotonic() > deadline:
            break
        time.sleep(5)
    assert not pending, f"no finished health check on {pending}"
    health = {d["hostname"]: d["health"] for d in lab.devices(IDENTITY)}
    for d in lab_devices:
        hc = checks[d["hostname"]]
        assert hc["health"] == "Complete", (d["hostname"], hc)
        assert health[d["hostname"]] == "Good"
        cases = {r["name"]: r for r in lab.results(IDENTITY, hc["id"]) if r["suite"].endswith("_robot-board")}
        assert cases["boot-board"]["result"] in ("pass", "fail")  # a boot over budget is the jobs' to judge
        assert cases["both-cells-report-ready"]["result"] == "pass"
        assert float(cases["boot-board_board_up_s"]["measurement"]) > 0
