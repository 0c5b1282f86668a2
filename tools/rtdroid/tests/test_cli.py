"""The command line: argument errors exit 2, refusals exit 1 with a message, and the
commands that need no board work."""
import subprocess
import sys

import pytest

from rtdroid import cli

from rtdroid_testutil import rtdroid_cmd


def run(*args, **kw):
    return subprocess.run(rtdroid_cmd(*args), capture_output=True, text=True, **kw)


@pytest.mark.parametrize("args", [
    [], ["board"], ["board", "launch"], ["deploy"], ["deploy", "rt"], ["deploy", "ios", "x"],
    ["board", "console", "android"], ["board", "logs", "kernel"], ["bundle", "--jar", "x.jar"],
    ["board", "up", "--timeout", "soon"], ["board", "render", "--check", "--update-golden"],
    ["board", "restart"], ["board", "restart", "kernel"],
])
def test_argument_errors_exit_2(args):
    with pytest.raises(SystemExit) as e:
        cli.build_parser().parse_args(args)
    assert e.value.code == 2


def test_render_check_passes_on_the_committed_golden():
    r = run("board", "render", "--all", "--check")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "host: rendering matches golden" in r.stdout


def test_render_prints_the_qemu_argv():
    r = run("board", "render", "--board", "qemu-x86_64")
    assert r.returncode == 0 and "qemu-system-x86_64" in r.stdout and "ivshmem-plain" in r.stdout


def test_validate_reports_a_broken_board(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text((cli.paths.board_configs_dir() / "host.yaml").read_text().replace("slots: 256", "slots: 100"))
    r = run("board", "validate", str(bad))
    assert r.returncode == 1
    assert "regions[0].slots: 100: slots per ring must be a power of two" in r.stderr


def test_up_with_an_invalid_board_file_starts_nothing(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("board: x\n")
    r = run("board", "up", "--board", str(bad))
    assert r.returncode == 1 and "required field missing" in r.stderr


def test_up_with_unknown_cells_is_refused():
    r = run("board", "up", "--board", "host", "--cells", "rt,gpu")
    assert r.returncode == 1 and "--cells" in r.stderr


def test_commands_that_need_a_board_say_none_is_up(tmp_path):
    env = dict(__import__("os").environ, RTDROID_RUN_DIR=str(tmp_path / "run"))
    for args in (["rt", "services"], ["stats"], ["undeploy", "rt", "echo"], ["board", "console", "rt"],
                 ["board", "restart", "android"]):
        r = run(*args, env=env)
        assert r.returncode == 1 and "no board is up" in r.stderr, (args, r.stderr)
    r = run("deploy", "rt", "/nonexistent.rtb", env=env)
    assert r.returncode == 1 and "does not exist" in r.stderr


def test_keys_creates_a_pair_once(tmp_path):
    r = run("keys", "--dir", str(tmp_path))
    assert r.returncode == 0 and "created deploy key pair" in r.stdout
    pub = (tmp_path / "deploy.pub").read_text()
    assert pub.startswith("-----BEGIN PUBLIC KEY-----")
    assert (tmp_path / "deploy.key").read_text().startswith("-----BEGIN PRIVATE KEY-----")
    r = run("keys", "--dir", str(tmp_path))
    assert "present" in r.stdout and (tmp_path / "deploy.pub").read_text() == pub


def test_bundle_with_missing_inputs_is_refused(tmp_path):
    r = run("bundle", "--jar", str(tmp_path / "a.jar"), "--manifest", "m.xml", "-o", str(tmp_path / "o.rtb"))
    assert r.returncode == 1 and "--jar" in r.stderr and "does not exist" in r.stderr


@pytest.mark.parametrize("script", ["setup.sh", "fetch-kernel.sh"])
def test_setup_scripts_parse(script):
    path = cli.paths.repo_root() / "tools" / script
    r = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_down_with_nothing_up_says_so(tmp_path):
    env = dict(__import__("os").environ, RTDROID_RUN_DIR=str(tmp_path / "run"))
    r = run("board", "down", "--board", "nosuchboard", env=env)
    assert r.returncode == 0 and "not up" in r.stdout
