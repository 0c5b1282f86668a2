"""`rtdroid validate`: the runtime's static validation run for a board's RT cell. Needs the runtime
jar (`mvn -B -q -pl rtdroid-runtime -am install`); without it every test here fails saying so."""
import json
import subprocess

import pytest

from rtdroid import cli, paths, validate

from rtdroid_testutil import rtdroid_cmd

EXAMPLES = paths.repo_root() / "rtdroid-runtime" / "examples" / "src" / "main" / "manifests"
COCHLEAR = EXAMPLES / "cochlear" / "manifest.xml"
GOLDEN = paths.repo_root() / "rtdroid-runtime" / "src" / "test" / "resources" / "org" / "rtdroid" / "runtime" \
    / "validation" / "cochlear.cheddar.xml"


@pytest.fixture(scope="module", autouse=True)
def runtime_built():
    try:
        validate.runtime_jar()
    except Exception as e:  # a test that cannot run must not pass
        pytest.fail(str(e))


def run(*args, **kw):
    return subprocess.run(rtdroid_cmd("validate", *args), capture_output=True, text=True, **kw)


def test_cochlear_holds_with_table_5_3s_figures():
    r = run("--board", "host", str(COCHLEAR.parent))
    assert r.returncode == 0, r.stdout + r.stderr
    # Table 5.3's three tasks, and the processing task's cost-overrun handler below them
    assert "CPU 0: utilization 38.1 %" in r.stdout
    tasks = [line.split() for line in r.stdout.splitlines() if line.split()[2:3] in (["periodic"], ["sporadic"])]
    # task app kind prio period ms cost ms jitter ms blocking ms WCRT ms ...
    assert [(t[0], t[3], t[12] + " " + t[13]) for t in tasks] == [
        ("recordingTask", "90", "1 ms"), ("processingTask", "89", "2 ms"), ("OutputReceiver", "88", "3 ms"),
        ("processingTask/overrun-handler", "87", "3050 us")]
    assert "Verdict: HOLDS" in r.stdout and r.stderr == ""


def test_cochlear_and_echo_together_on_the_qemu_board():
    r = run("--board", "qemu-x86_64", str(COCHLEAR), str(EXAMPLES / "echo"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Validation for board qemu-x86_64" in r.stdout and "EchoReceiver" in r.stdout


def test_an_unschedulable_set_exits_1_naming_the_task(tmp_path):
    m = tmp_path / "manifest.xml"
    m.write_text(COCHLEAR.read_text().replace('wcet="1ms"', 'wcet="3ms"').replace('cost="1ms"', 'cost="3ms"'))
    r = run("--board", "host", str(m))
    assert r.returncode == 1
    assert r.stdout.endswith("Verdict: FAILS (2 reason(s)):\n  UNSCHEDULABLE: OutputReceiver WCRT 9 ms > deadline 8 ms\n"
                             "  UNSCHEDULABLE: processingTask/overrun-handler WCRT unbounded > deadline 8 ms\n")


def test_a_cell_too_small_is_over_budget(tmp_path):
    board = tmp_path / "small.yaml"
    board.write_text((paths.board_configs_dir() / "host.yaml").read_text()
                     .replace("board: host", "board: small").replace("rt_budget_bytes: 67108864", "rt_budget_bytes: 1048576"))
    m = tmp_path / "manifest.xml"
    m.write_text(COCHLEAR.read_text().replace('total="24K" persistent="8K"', 'total="1040K" persistent="1024K"'))
    r = run("--board", str(board), str(m))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "OVER_BUDGET: scopes 1122304 B + channels 3168 B + runtime 229376 B = 1354848 B > rt_budget_bytes 1048576 B" \
           " of board small" in r.stdout
    assert f"RecordingService         cochlear  1048576 B" in r.stdout and f"{m}:9" in r.stdout


def test_a_malformed_manifest_exits_2_with_file_line_and_element(tmp_path):
    m = tmp_path / "manifest.xml"
    m.write_text(COCHLEAR.read_text().replace('priority="89">', 'priority="189">'))
    r = run(str(m))
    assert r.returncode == 2
    assert r.stderr == f"rtdroid: validate: {m}:19:84: <service>: priority 189 is outside 1..99\n"
    assert r.stdout == "" and "Traceback" not in r.stderr


def test_a_missing_manifest_exits_2(tmp_path):
    r = run(str(tmp_path / "none.xml"))
    assert r.returncode == 2 and "none.xml: cannot read: no such file" in r.stderr


def test_json_is_one_object_with_every_task():
    r = run("--json", "--board", "host", str(COCHLEAR))
    assert r.returncode == 0
    report = json.loads(r.stdout)
    assert report["holds"] is True and report["reasons"] == []
    tasks = report["cpu_results"][0]["tasks"]
    assert [(t["name"], t["priority"], t["wcrt_ns"]) for t in tasks] == [
        ("recordingTask", 90, 1_000_000), ("processingTask", 89, 2_000_000), ("OutputReceiver", 88, 3_000_000),
        ("processingTask/overrun-handler", 87, 3_050_000)]
    assert report["cpu_results"][0]["utilization"] == pytest.approx(0.38125)
    assert {c["name"] for c in report["channels"]} == {"cochlear.audio", "cochlear.output", "cochlear.config",
                                                       "cochlear.status"}


def test_cheddar_export_matches_the_golden_file(tmp_path):
    out = tmp_path / "cochlear.cheddar.xml"
    r = run("--board", "host", "--cheddar", str(out), str(COCHLEAR))
    assert r.returncode == 0, r.stderr
    assert out.read_text() == GOLDEN.read_text()
    assert f"wrote {out}" in r.stderr


def test_without_the_runtime_jar_the_error_says_how_to_build_it(tmp_path):
    r = run(str(COCHLEAR), env={**__import__("os").environ, "RTDROID_RUNTIME_JAR": str(tmp_path / "none.jar")})
    assert r.returncode == 1
    assert r.stderr.startswith("rtdroid: the runtime is not built: no rtdroid-runtime/target/rtdroid-runtime-*.jar")


@pytest.mark.parametrize("args", [["validate"], ["validate", "m.xml", "--board"], ["validate", "m.xml", "--jsn"]])
def test_argument_errors_exit_2(args):
    with pytest.raises(SystemExit) as e:
        cli.build_parser().parse_args(args)
    assert e.value.code == 2
