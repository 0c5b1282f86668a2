"""LAVA rendering equals the committed golden files and is what LAVA accepts; Robot's results
become LAVA test cases with their measurements (a real Robot run of a small suite)."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml

from rtdroid import boardconfig as bc
from rtdroid import cli
from rtdroid.lava import lab, render, robot

LAB_BOARDS = [b for b in bc.available_boards() if render.is_lab_board(bc.load_board(b))]


@pytest.mark.parametrize("name", LAB_BOARDS)
def test_lava_rendering_matches_golden(name):
    assert render.compare_with_golden(bc.load_board(name)) == [], \
        "re-render with `rtdroid lava render --all --update-golden` and review the diff"


def test_every_golden_file_is_still_rendered():
    rendered = {n for b in LAB_BOARDS for n in render.rendered_files(bc.load_board(b))}
    golden = {str(p.relative_to(render.golden_dir())) for p in render.golden_dir().rglob("*") if p.is_file()}
    assert golden == rendered


def test_the_emulated_boards_and_the_host_board_are_lab_boards_and_jailhouse_on_qemu_is_not():
    assert {"host", "qemu-x86_64", "qemu-arm64-xen", "qemu-arm64-xen-smp", "jailhouse-rpi4"} <= set(LAB_BOARDS)
    with pytest.raises(render.NotALabBoard, match="jailhouse-qemu-arm64"):
        render.device_type(bc.load_board("jailhouse-qemu-arm64"))


def test_job_runs_each_suite_of_the_board_under_the_board_lock_on_its_root_side():
    board = bc.load_board("qemu-x86_64")
    job = yaml.safe_load(render.job_yaml(board))
    assert job["device_type"] == "rtdroid-qemu-x86_64"
    deploy, boot, test = job["actions"]
    assert deploy["deploy"]["to"] == "ssh" and boot["boot"]["method"] == "ssh"
    defs = test["test"]["definitions"]
    # the suites of the board file's tests.suites, in make robot's order
    assert [d["name"] for d in defs] == [f"robot-{s}" for s in render.suites_for(board)]
    assert "robot-faults" in [d["name"] for d in defs]
    for d in defs:
        step = d["repository"]["run"]["steps"][-1]
        assert step.startswith('flock "$RTDROID_BOARD_LOCK" build/venv/bin/rtdroid lava robot --board qemu-x86_64')


def test_a_suite_tagged_for_some_boards_is_in_their_jobs_only():
    assert "fall" in render.suites_for(bc.load_board("qemu-x86_64"))
    assert "fall" not in render.suites_for(bc.load_board("qemu-arm64-xen-smp"))


def test_a_real_board_boots_its_root_side_with_u_boot_and_runs_the_same_test_definitions():
    rpi, emulated = bc.load_board("jailhouse-rpi4"), bc.load_board("qemu-x86_64")
    job = yaml.safe_load(render.job_yaml(rpi, suites=["deploy"]))
    assert job["device_type"] == "bcm2711-rpi-4-b"  # LAVA's own device type
    assert job["actions"][0]["deploy"]["to"] == "tftp" and job["actions"][1]["boot"]["method"] == "u-boot"
    steps = lambda b: yaml.safe_load(render.job_yaml(b, suites=["deploy"]))["actions"][-1]["test"]["definitions"][0]
    assert steps(rpi)["repository"]["run"]["steps"][-1].replace("jailhouse-rpi4", "B") == \
        steps(emulated)["repository"]["run"]["steps"][-1].replace("qemu-x86_64", "B")
    assert "device-types/bcm2711-rpi-4-b.jinja2" not in render.rendered_files(rpi)


def test_each_device_type_of_the_project_has_a_health_check_that_boots_the_board_and_brings_it_down():
    for name in ("qemu-x86_64", "qemu-arm64-xen", "host"):
        files = render.rendered_files(bc.load_board(name))
        hc = yaml.safe_load(files[f"health-checks/rtdroid-{name}.yaml"])  # named as LAVA looks it up
        assert hc["device_type"] == f"rtdroid-{name}" and "health check" in hc["job_name"]
        (test,) = [a["test"] for a in hc["actions"] if "test" in a]
        assert [d["name"] for d in test["definitions"]] == ["robot-board"]
    # a real board's device type is LAVA's own: the lab's health check for that hardware applies
    assert not [f for f in render.rendered_files(bc.load_board("jailhouse-rpi4")) if f.startswith("health-checks/")]


def test_device_dictionary_extends_its_type_and_reaches_the_root_side():
    text = render.device_dictionary(bc.load_board("qemu-x86_64"), render.Site(ssh_port=2299))
    assert "{% extends 'rtdroid-qemu-x86_64.jinja2' %}" in text
    assert "{% set ssh_port = 2299 %}" in text
    assert text.startswith("{# device_type: rtdroid-qemu-x86_64 #}\n")


def test_render_cli_checks_golden(capsys):
    assert cli.main(["lava", "render", "--all", "--check"]) == 0
    assert "qemu-x86_64: LAVA rendering matches golden" in capsys.readouterr().out


def test_render_cli_without_a_board_says_so(capsys):
    assert cli.main(["lava", "render"]) == 1
    assert "name a board" in capsys.readouterr().err


# ------------------------------------------------------------------ Robot -> LAVA test cases

SUITE = textwrap.dedent("""\
    *** Settings ***
    Library    ${CURDIR}/Figures.py
    Suite Setup    Boot    6.25

    *** Test Cases ***
    Round Trips Stay Within Budget
        Measure    rtt_p50_us    812.5    us
        Measure    rtt_p99_us    1900    us
        Measure    rtt_p50_us    905    us
    Deadline Missed
        Measure    misses    2    misses
        Fail    2 deadline misses, budget 0
    Not On This Board
        Skip    the host board boots no kernel of its own
    """)

LIBRARY = textwrap.dedent("""\
    from robot.api import logger

    def boot(seconds):
        logger.info(f"MEASUREMENT board_up_s={float(seconds):g} s")

    def measure(name, value, units):
        logger.info(f"MEASUREMENT {name}={float(value):g} {units}")

    def booted(cell, release):
        logger.info(f"KERNEL {cell}={release}")

    def boot_fails():
        raise AssertionError("RT cell did not report ready within 120 s")
    """)


def _robot(tmp_path: Path, suite: str) -> Path:
    import robot as rf
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "Figures.py").write_text(LIBRARY)
    f = tmp_path / "latency.robot"
    f.write_text(suite)
    rf.run(str(f), outputdir=str(tmp_path / "out"), output="output.xml", log="NONE", report="NONE",
           stdout=open("/dev/null", "w"))
    return tmp_path / "out" / "output.xml"


def test_each_robot_test_is_a_case_and_each_figure_a_measurement(tmp_path):
    cases, setup_failure = robot.cases_from_output(_robot(tmp_path, SUITE))
    assert setup_failure is None
    got = {c.name: (c.result, c.measurement, c.units) for c in cases}
    assert len(got) == len(cases)  # one case per name
    assert got == {
        "latency-setup_board_up_s": ("pass", 6.25, "s"),
        "round-trips-stay-within-budget": ("pass", None, None),
        "round-trips-stay-within-budget_rtt_p50_us": ("pass", 812.5, "us"),
        "round-trips-stay-within-budget_rtt_p99_us": ("pass", 1900.0, "us"),
        "round-trips-stay-within-budget_rtt_p50_us_2": ("pass", 905.0, "us"),  # measured again
        "deadline-missed": ("fail", None, None),
        "deadline-missed_misses": ("pass", 2.0, "misses"),
        "not-on-this-board": ("skip", None, None),
    }
    assert next(c for c in cases if c.name == "deadline-missed").message == "2 deadline misses, budget 0"


KERNEL_SUITE = textwrap.dedent("""\
    *** Settings ***
    Library    Figures.py
    Suite Setup    Booted    rt    6.1.0-56-rt-amd64

    *** Test Cases ***
    Board Restarts
        Booted    rt    ${RESTARTED}
        Booted    android    6.1.0-40-amd64
    """)


def _kernel_cases(tmp_path, restarted, expected):
    cases, _ = robot.cases_from_output(_robot(tmp_path, KERNEL_SUITE.replace("${RESTARTED}", restarted)), expected)
    return {c.name: (c.result, c.reference, c.message) for c in cases if c.name.startswith("kernel-")}


def test_each_booted_cells_kernel_is_a_case_failed_when_not_the_one_the_job_names(tmp_path):
    rt, android = "6.1.0-56-rt-amd64", "6.1.0-40-amd64"
    # read from the booted cells (the board library's KERNEL lines), each boot of the suite
    assert _kernel_cases(tmp_path / "a", rt, {"rt": rt, "android": android}) == {
        "kernel-rt": ("pass", rt, ""), "kernel-android": ("pass", android, "")}
    # a health check names no kernel: the cases only record what ran
    assert _kernel_cases(tmp_path / "b", rt, {})["kernel-rt"] == ("pass", rt, "")
    assert _kernel_cases(tmp_path / "c", rt, {"rt": "6.1.0-57-rt-amd64"})["kernel-rt"] == (
        "fail", rt, f"the booted rt cell runs {rt}, the job names 6.1.0-57-rt-amd64")
    assert _kernel_cases(tmp_path / "d", "6.1.0-57-rt-amd64", {})["kernel-rt"] == (
        "fail", f"{rt},6.1.0-57-rt-amd64", f"the rt cell booted different kernels in one suite: {rt}, 6.1.0-57-rt-amd64")


def _lava_helpers(tmp_path, monkeypatch, *helpers):
    """LAVA's shell helpers on PATH, each appending its command line to the file returned."""
    calls = tmp_path / "calls"
    for helper in helpers:
        (tmp_path / helper).write_text(f'#!/bin/sh\necho "{helper} $*" >> {calls}\n')
        (tmp_path / helper).chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    return calls


def test_inside_lava_a_kernel_case_names_the_release_as_its_reference(tmp_path, monkeypatch):
    calls = _lava_helpers(tmp_path, monkeypatch, "lava-test-case", "lava-test-reference")
    robot.report([robot.Case("kernel-rt", "fail", "x", reference="6.1.0-56-rt-amd64")], None)
    assert calls.read_text().splitlines() == ["lava-test-reference kernel-rt --result fail --reference 6.1.0-56-rt-amd64"]


def test_a_board_that_did_not_come_up_is_the_reason(tmp_path):
    cases, setup_failure = robot.cases_from_output(_robot(tmp_path, SUITE.replace("Boot    6.25", "Boot Fails")))
    assert setup_failure == "suite Latency set-up failed: RT cell did not report ready within 120 s"
    assert all(c.result == "fail" for c in cases if "_" not in c.name)


def test_outside_lava_the_cases_are_printed(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no lava-test-case here
    cases, failure = robot.cases_from_output(_robot(tmp_path, SUITE))
    robot.report(cases, failure)
    out = capsys.readouterr().out
    assert "deadline-missed: FAIL: 2 deadline misses, budget 0" in out
    assert "pass  round-trips-stay-within-budget_rtt_p50_us 812.5 us" in out


def test_inside_lava_each_case_is_signalled_with_its_measurement(tmp_path, monkeypatch):
    calls = _lava_helpers(tmp_path, monkeypatch, "lava-test-case", "lava-test-raise")
    robot.report(*robot.cases_from_output(_robot(tmp_path / "a", SUITE)))
    lines = calls.read_text().splitlines()
    assert "lava-test-case deadline-missed --result fail" in lines
    assert "lava-test-case deadline-missed_misses --result pass --measurement 2 --units misses" in lines
    assert not any(x.startswith("lava-test-raise") for x in lines)
    robot.report(*robot.cases_from_output(_robot(tmp_path / "b", SUITE.replace("Boot    6.25", "Boot Fails"))))
    lines = calls.read_text().splitlines()
    assert lines[-1] == "lava-test-raise suite Latency set-up failed: RT cell did not report ready within 120 s"


def test_results_table_shows_measurements():
    rows = [{"suite": "1_robot-latency", "name": "x_rtt_p50_us", "result": "pass", "measurement": "812.5000",
             "unit": "us"}, {"suite": "lava", "name": "job", "result": "pass", "measurement": None, "unit": ""}]
    assert lab.results_table(rows) == "* 1_robot-latency.x_rtt_p50_us [pass]  812.5 us\n* lava.job [pass]\n"


def test_a_failed_board_up_gives_one_line_with_the_cells_panic(tmp_path):
    console = tmp_path / "console.log"
    console.write_text("[    1.9] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)\n"
                       "[    1.9]  panic+0x10e/0x301\n")
    message = (f"rtdroid board up --board qemu-x86_64-noboot exited 1:\n[1/8] board file validated\n"
               f"board up failed (the rt cell exited during its first boot); tearing down what was started\n\n"
               f"rtdroid: the rt cell exited with status 0 during its first boot; last 30 li...\n"
               f"    [ Message content over the limit has been removed. ]\n"
               f"last 30 lines of {console}:\n")
    assert robot.reason_of(message) == ("the rt cell exited with status 0 during its first boot "
                                        "(Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0))")
    assert robot.reason_of("RT cell did not report ready within 120 s") == "RT cell did not report ready within 120 s"


def test_an_incomplete_jobs_reason_is_its_lava_job_error():
    rows = [{"suite": "lava", "name": "validate", "result": "pass", "metadata": {}},
            {"suite": "lava", "name": "job", "result": "fail",
             "metadata": {"error_msg": "suite 02 Deploy set-up failed: no init", "error_type": "Test"}}]
    assert lab.reason(rows) == "suite 02 Deploy set-up failed: no init"
    assert lab.reason(rows[:1]) == ""


def test_a_job_whose_devices_are_all_out_of_service_says_why(monkeypatch):
    answers = {
        ("devices", "list"): "- {hostname: qemu-x86_64-01, type: rtdroid-qemu-x86_64, health: Bad, state: Idle}\n"
                             "- {hostname: host-01, type: rtdroid-host, health: Good, state: Idle}\n",
        ("jobs", "list"): "- {id: 9, submitter: lava-health, actual_device: qemu-x86_64-01, state: Finished,\n"
                          "   health: Incomplete, error_msg: 'suite 01 Board set-up failed: no init'}\n"
                          "- {id: 8, submitter: lava-health, actual_device: qemu-x86_64-01, state: Finished,\n"
                          "   health: Complete, error_msg: null}\n",
    }
    monkeypatch.setattr(lab, "lavacli", lambda identity, *args, **kw: answers[args[:2]])
    assert lab.out_of_service("i", "rtdroid-qemu-x86_64") == (
        "no device of type rtdroid-qemu-x86_64 is in service: qemu-x86_64-01 is Bad "
        "(health check job 9 Incomplete: suite 01 Board set-up failed: no init)")
    assert lab.out_of_service("i", "rtdroid-host") is None
    assert lab.last_health_checks("i")["qemu-x86_64-01"]["id"] == 9


BOARD_SUITE = textwrap.dedent("""\
    *** Settings ***
    Library    ${CURDIR}/Figures.py

    *** Test Cases ***
    Boot Board
        Boot    6.25
        Fail    rtdroid: board up took 6.25 s, budget 0.001 s
    Both Cells Report Ready
        No Operation
    """)


def test_in_the_board_suite_a_boot_over_budget_is_a_failed_case_but_a_board_not_up_ends_the_job(tmp_path):
    """The board suite boots the board in a test: its cells not both ready means the board did not
    come up (the job, a health check among them, ends Incomplete: the device goes out of service);
    a boot over its budget is a failed test case only."""
    cases, setup_failure = robot.cases_from_output(_robot(tmp_path / "a", BOARD_SUITE))
    assert setup_failure is None and {c.name: c.result for c in cases}["boot-board"] == "fail"
    down = BOARD_SUITE.replace("    Fail    rtdroid: board up took 6.25 s, budget 0.001 s",
                               "    Fail    rtdroid board up exited 1:\\n\\nrtdroid: the rt cell exited with status 0 during its first boot")
    down = down.replace("    No Operation", "    Fail    the board is not up")
    cases, setup_failure = robot.cases_from_output(_robot(tmp_path / "b", down))
    assert setup_failure == ("suite Latency: the board did not come up: "
                             "the rt cell exited with status 0 during its first boot")
