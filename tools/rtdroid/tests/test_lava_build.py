"""A LAVA job names the commit and the cells' kernels it tests (job metadata; the `build` test
definition's results for the commit, each suite's for the kernels its booted cells run), and the
lab's jobs are listed and compared by them (rtdroid.lava.build, rtdroid.lava.history)."""
from __future__ import annotations

import platform
import subprocess

import pytest
import yaml

from rtdroid import boardconfig as bc
from rtdroid import cli, paths
from rtdroid.lava import build, history, lab, render

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _build(commit=COMMIT, rt="6.1.0-56-rt-amd64", dirty=False):
    return build.Build(commit, f"g{commit[:12]}" + ("-dirty" if dirty else ""), dirty,
                       {"rt": rt, "android": "6.1.0-40-amd64"})


def test_a_job_names_its_build_in_its_metadata_and_reports_it_first():
    board = bc.load_board("qemu-x86_64")
    job = yaml.safe_load(render.job_yaml(board, build=_build(dirty=True)))
    meta = job["metadata"]
    assert meta["build.commit"] == COMMIT and meta["build.dirty"] == "yes"
    assert meta["build.describe"] == "g0123456789ab-dirty"
    assert meta["kernel.rt"] == "6.1.0-56-rt-amd64" and meta["kernel.android"] == "6.1.0-40-amd64"
    assert build.from_metadata(meta) == _build(dirty=True)
    first, *suites = job["actions"][2]["test"]["definitions"]
    assert first["name"] == "build" and [d["name"] for d in suites] == [f"robot-{s}" for s in render.suites_for(board)]
    step = first["repository"]["run"]["steps"][-1]
    assert step.startswith("build/venv/bin/rtdroid lava build --board qemu-x86_64 ")
    assert f"--expect build.commit={COMMIT}" in step and "kernel" not in step
    # no lock: it boots nothing; each suite checks the kernels its booted cells run
    for d in suites:
        step = d["repository"]["run"]["steps"][-1]
        assert "--expect kernel.rt=6.1.0-56-rt-amd64 --expect kernel.android=6.1.0-40-amd64" in step


def test_a_job_without_a_build_names_none_and_the_golden_jobs_name_a_placeholder():
    board = bc.load_board("qemu-arm64-xen")
    job = yaml.safe_load(render.job_yaml(board))
    assert "build.commit" not in job["metadata"]
    assert job["actions"][2]["test"]["definitions"][0]["name"] == "robot-board"
    golden = yaml.safe_load(render.rendered_files(board)["jobs/qemu-arm64-xen.yaml"])
    assert golden["metadata"]["build.commit"] == "COMMIT"
    assert golden["metadata"]["kernel.rt"] == "KERNEL-RT"
    # a health check runs on whatever the root side has: it names no build
    hc = yaml.safe_load(render.rendered_files(board)["health-checks/rtdroid-qemu-arm64-xen.yaml"])
    assert "build.commit" not in hc["metadata"]


def test_the_current_build_is_the_checkouts_commit_and_the_kernels_each_cell_runs():
    head = subprocess.run(["git", "-C", str(paths.repo_root()), "rev-parse", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    b = build.current(bc.load_board("host"))
    assert b.commit == head
    assert b.describe.endswith("-dirty") == b.dirty
    # both cells of the host board are processes on this machine's kernel
    assert b.kernels == {"rt": platform.release(), "android": platform.release()}
    x = build.current(bc.load_board("qemu-x86_64"))
    assert x.kernels["android"] == platform.release() and x.kernels["rt"] != platform.release()
    # a real board's RT kernel is its image's: only the board knows it
    assert build.current(bc.load_board("jailhouse-rpi4")).kernels["rt"] == build.UNKNOWN


def test_outside_lava_the_build_is_printed_and_a_difference_fails(capsys, monkeypatch):
    monkeypatch.setattr(build.shutil, "which", lambda name: None)
    got, want = _build(), _build(commit="f" * 40)
    assert build.report(got, got) == 0
    # the root side's kernels are not the build's to report: the booted cells' are (suites)
    assert build.report(got, _build(rt="6.1.0-57-rt-amd64")) == 0
    assert build.report(got, want) == 1
    out = capsys.readouterr().out
    assert f"build: build-commit is {COMMIT}, the job names {'f' * 40}" in out
    assert "  fail  build-commit " + COMMIT in out and "  pass  build-dirty no" in out
    assert "kernel" not in out


def test_inside_lava_each_value_is_a_test_case_with_the_value_as_its_reference(monkeypatch):
    calls = []
    monkeypatch.setattr(build.shutil, "which", lambda name: "/lava/bin/" + name)
    monkeypatch.setattr(build.subprocess, "run", lambda cmd, **kw: calls.append(cmd))
    assert build.report(_build(), _build(commit="f" * 40)) == 1
    assert ["lava-test-reference", "build-commit", "--result", "fail", "--reference", COMMIT] in calls
    assert ["lava-test-reference", "build-dirty", "--result", "pass", "--reference", "no"] in calls
    assert len(calls) == 3


def test_build_cli_refuses_an_expectation_that_is_not_key_value(capsys):
    assert cli.main(["lava", "build", "--board", "host", "--expect", "kernel.rt"]) != 0
    assert "--expect kernel.rt: not KEY=VALUE" in capsys.readouterr().err
    assert cli.main(["lava", "robot", "--board", "host", "--suite", "board", "--expect", "build.commit=x"]) != 0
    assert "--expect build.commit: a suite checks the kernels its cells boot" in capsys.readouterr().err


@pytest.mark.parametrize("commit,kernel,hit", [
    (COMMIT[:7], None, True), (COMMIT[:6], None, False), ("g0123456789ab", None, True), ("feedbee", None, False),
    (None, "6.1.0-56-rt-amd64", True), (None, "rt=6.1.0-56-rt-amd64", True), (None, "android=6.1.0-56-rt-amd64", False),
    (COMMIT, "6.1.0-57-rt-amd64", False)])
def test_jobs_are_matched_by_a_commits_hash_prefix_or_describe_and_by_a_kernel(commit, kernel, hit):
    assert history.matches(_build(), commit, kernel) is hit


def _lab(monkeypatch, jobs: dict[int, tuple[dict, str, list[dict]]]):
    """A lab whose finished jobs are these: id -> (metadata, health, results)."""
    def lavacli(identity, *args, **kw):
        if args[:2] == ("jobs", "list"):
            return yaml.safe_dump([{"id": i, "health": h, "submitter": "admin"} for i, (_, h, _) in sorted(jobs.items(), reverse=True)]
                                  + [{"id": 1, "health": "Complete", "submitter": "lava-health"}])
        if args[:2] == ("jobs", "definition"):
            return yaml.safe_dump({"metadata": jobs[int(args[2])][0]}, sort_keys=False)
        raise AssertionError(args)
    monkeypatch.setattr(lab, "lavacli", lavacli)
    monkeypatch.setattr(lab, "results", lambda identity, job_id: jobs[job_id][2])


def _rows(p99):
    return [{"suite": "lava", "name": "job", "result": "pass", "measurement": "None", "unit": ""},
            {"suite": "0_build", "name": "build-commit", "result": "pass", "measurement": "None", "unit": ""},
            {"suite": "2_robot-latency", "name": "rt_rtt_p99_us", "result": "pass", "measurement": str(p99), "unit": "us"}]


def test_results_list_a_commits_jobs_with_their_figures_and_compare_sets_two_commits_side_by_side(monkeypatch):
    a, b = _build(), _build(commit="f" * 40)
    meta = lambda x: {"board": "qemu-x86_64", **x.metadata()}  # noqa: E731
    _lab(monkeypatch, {10: (meta(a), "Complete", _rows(800)), 11: (meta(b), "Complete", _rows(1000)),
                       12: (meta(b), "Incomplete", []), 13: ({"board": "host"}, "Complete", _rows(5))})
    found = history.runs("i", commit=COMMIT[:8])
    assert [r.job_id for r in found] == [10]
    assert found[0].figures == {"robot-latency.rt_rtt_p99_us": (800.0, "us")}
    text = history.table(found)
    assert text.startswith("job 10 qemu-x86_64 Complete: g0123456789ab (0123456789ab); kernels rt 6.1.0-56-rt-amd64")
    assert "    robot-latency.rt_rtt_p99_us 800 us" in text
    assert [r.job_id for r in history.runs("i", kernel="rt=6.1.0-56-rt-amd64")] == [12, 11, 10]
    out = history.compare(history.runs("i", commit=COMMIT[:8]), history.runs("i", commit="f" * 12))
    assert "qemu-x86_64: A = job 10 g0123456789ab, B = job 11 gffffffffffff" in out  # the newest complete of B
    line = next(ln for ln in out.splitlines() if "rt_rtt_p99_us" in ln)
    assert line.split()[1:] == ["800", "us", "1000", "us", "B/A", "1.25"]
    assert history.compare(history.runs("i", commit=COMMIT[:8]), []) == "qemu-x86_64: no complete job of commit B\n"
