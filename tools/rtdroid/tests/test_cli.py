"""The command line: argument errors exit 2, refusals exit 1 with a message, and the
commands that need no board work."""
import subprocess
import sys

import pytest

from rtdroid import cli
from rtdroid.boardconfig import available_boards

from rtdroid_testutil import rtdroid_cmd


def run(*args, **kw):
    return subprocess.run(rtdroid_cmd(*args), capture_output=True, text=True, **kw)


@pytest.mark.parametrize("args", [
    [], ["board"], ["board", "launch"], ["deploy"], ["deploy", "rt"], ["deploy", "ios", "x"],
    ["board", "console", "android"], ["board", "logs", "kernel"], ["bundle", "--jar", "x.jar"],
    ["board", "up", "--timeout", "soon"], ["board", "render", "--check", "--update-golden"],
    ["board", "restart"], ["board", "restart", "kernel"],
    ["deploy", "rt", "b.rtb", "--timeout", "-5"], ["deploy", "rt", "b.rtb", "--timeout", "0"],
    ["deploy", "rt", "b.rtb", "--timeout", "nan"], ["rt", "services", "--timeout", "inf"],
    ["board", "up", "--timeout", "-1"], ["board", "logs", "-n", "-3"], ["rt", "ping", "--count", "0"],
    ["rt", "ping", "--priority", "100"], ["rt", "ping", "--priority", "-1"],
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


def test_a_bad_number_names_the_rule():
    r = run("deploy", "rt", "b.rtb", "--timeout", "-5")
    assert r.returncode == 2 and "--timeout: -5: must be seconds > 0" in r.stderr


def test_a_directory_is_not_a_bundle(tmp_path):
    r = run("deploy", "rt", str(tmp_path))
    assert r.returncode == 1 and f"bundle {tmp_path} is a directory, not a file" in r.stderr
    assert "does not exist" not in r.stderr


def test_an_android_app_folder_is_refused_for_its_missing_signature(tmp_path):
    r = run("deploy", "android", str(tmp_path))
    assert r.returncode == 1 and f"app {tmp_path} is a folder (an unsigned app bundle)" in r.stderr
    assert "android-cell/apk/cell-apk.sh" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("args", [["board", "up", "--board", "nosuchboard"],
                                  ["board", "validate", "/nonexistent/b.yaml"],
                                  ["board", "render", "--board", "nosuchboard"],
                                  ["board", "status", "--board", "nosuchboard"],
                                  ["rt", "services", "--board", "nosuchboard"]])
def test_a_missing_board_file_is_called_missing_not_invalid(tmp_path, args):
    env = dict(__import__("os").environ, RTDROID_RUN_DIR=str(tmp_path / "run"))
    r = run(*args, env=env)
    assert r.returncode == 1 and "no such board file" in r.stderr and "invalid" not in r.stderr, r.stderr
    assert f"boards: {', '.join(available_boards())}" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_a_directory_is_not_a_board_file(tmp_path):
    r = run("board", "validate", str(tmp_path))
    assert r.returncode == 1 and "a directory, not a board file" in r.stderr and "invalid" not in r.stderr


def test_bundle_output_in_a_missing_directory_is_refused(tmp_path):
    jar, manifest = tmp_path / "a.jar", tmp_path / "m.xml"
    jar.write_bytes(b"PK")
    manifest.write_text("<manifest/>")
    r = run("bundle", "--jar", str(jar), "--manifest", str(manifest), "--key", str(manifest),
            "-o", str(tmp_path / "missing" / "o.rtb"))
    assert r.returncode == 1 and f"directory {tmp_path / 'missing'} does not exist" in r.stderr
    r = run("bundle", "--jar", str(jar), "--manifest", str(manifest), "--key", str(manifest), "-o", str(tmp_path))
    assert r.returncode == 1 and "is a directory" in r.stderr


def test_an_unexpected_error_is_one_line_and_debug_shows_the_trace(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    r = run("keys", "--dir", str(blocker / "keys"))  # a directory under a regular file
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [
        f"rtdroid: keys: Not a directory: {blocker / 'keys'} (--debug shows the trace)"]
    r = run("keys", "--dir", str(blocker / "keys"), "--debug")
    assert r.returncode == 1 and "Traceback (most recent call last)" in r.stderr
    assert r.stderr.strip().splitlines()[-1] == f"rtdroid: keys: Not a directory: {blocker / 'keys'}"


@pytest.mark.parametrize("args", [["rt", "services"], ["stats"], ["stats", "--region-only"],
                                  ["undeploy", "rt", "echo"], ["rt", "ping"]])
def test_a_corrupt_region_header_is_one_clear_line(tmp_path, args):
    from xcc import region as xr
    region = tmp_path / "region"
    xr.format(region, 3, 8, 256)
    with open(region, "r+b") as f:
        f.seek(20)
        f.write(b"\xff\xff")
    run_dir = tmp_path / "run"
    (run_dir / "host").mkdir(parents=True)
    (run_dir / "host" / "state.json").write_text(__import__("json").dumps(
        {"board": "host", "cells": {"rt": {"role": "rt", "pid": 1}}, "region": {"path": str(region)}}))
    env = dict(__import__("os").environ, RTDROID_RUN_DIR=str(run_dir))
    r = run(*args, "--board", "host", "--timeout", "1", env=env)
    assert r.returncode == 1 and "Traceback" not in r.stderr and "BufferError" not in r.stderr, r.stderr
    stored = int.from_bytes(region.read_bytes()[44:48], "little")
    assert r.stderr.strip().splitlines() == [
        f"rtdroid: region header field header_crc32 = 0x{stored:08x}: "
        f"must be the CRC-32 of bytes 0..43 (0x{xr.header_crc(region.read_bytes()):08x})"]


CAUSE = {"exception_class": "java.lang.IllegalStateException", "message": "sensor gone", "task": "process",
         "release": 42, "frames": ["a.B.c(B.java:1)", "a.B.d(B.java:2)"]}
SERVICES = [
    {"name": "cochlear/ProcessingService", "state": "FAILED", "releases": 41, "deadline_misses": 0,
     "worst_lateness_nanos": 12000, "failure": CAUSE},
    {"name": "cochlear/ProcessingService/process", "state": "FAILED", "releases": 41, "deadline_misses": 0,
     "worst_lateness_nanos": 12000, "failure": CAUSE},
    {"name": "echo/Echo", "state": "RUNNING", "releases": 3, "deadline_misses": 0, "worst_lateness_nanos": 0,
     "failure": None},
]


def test_rt_services_shows_a_failed_components_cause_once():
    out = cli.render_services(SERVICES).splitlines()
    assert out[1].startswith("cochlear/ProcessingService") and "FAILED" in out[1]
    assert out[2] == ("  failed: java.lang.IllegalStateException: sensor gone (task process, release 42) "
                      "at a.B.c(B.java:1)")
    assert out[3] == "    at a.B.d(B.java:2)"
    assert out[4].startswith("cochlear/ProcessingService/process"), "the task's row does not repeat it"
    assert out[5].startswith("echo/Echo") and len(out) == 8
    assert out[6] == "(releases, misses, lateness and execution in the RT cell's host clock)"
    assert out[7].startswith("(a component's releases are its callbacks: intents, alarms and its sensor listeners'")


def test_rt_services_shows_the_analysed_wcrt_beside_the_measured_worst_response():
    rows = [{"name": "cochlear/ProcessingService/processingTask", "state": "RUNNING", "releases": 1250,
             "deadline_misses": 0, "worst_lateness_nanos": 61000, "worst_response_nanos": 412300,
             "analysed_wcrt_nanos": 2_000_000, "failure": None},
            {"name": "cochlear/ProcessingService", "state": "RUNNING", "releases": 0, "deadline_misses": 0,
             "worst_lateness_nanos": 0, "worst_response_nanos": 0, "analysed_wcrt_nanos": None, "failure": None}]
    out = cli.render_services(rows).splitlines()
    assert out[0].split()[-7:] == ["worst", "response", "analysed", "WCRT", "worst", "exec", "cost"]
    assert " 61.0 us         412.3 us        2000.0 us " in out[1], out[1]
    assert " 0.0 us     not analysed " in out[2], "no declared cost: said, not shown as 0"
    assert len({len(line) for line in out[:3]}) == 1, "the columns line up under their headings"


def test_rt_services_shows_the_cpu_time_of_a_release_beside_its_declared_cost():
    rows = [{"name": "cochlear/RecordingService/recordingTask", "state": "RUNNING", "releases": 3000,
             "deadline_misses": 0, "worst_lateness_nanos": 450_000, "worst_response_nanos": 1_800_000,
             "analysed_wcrt_nanos": 1_000_000, "worst_execution_nanos": 1_250_000,
             "analysed_cost_nanos": 1_000_000, "cost_overruns": 17, "last_cost_overrun": 140, "failure": None},
            {"name": "cochlear/OutputReceiver", "state": "RUNNING", "releases": 40, "deadline_misses": 0,
             "worst_lateness_nanos": 0, "worst_response_nanos": 90_000, "analysed_wcrt_nanos": None,
             "worst_execution_nanos": 52_400, "analysed_cost_nanos": None, "cost_overruns": 0, "failure": None}]
    out = cli.render_services(rows).splitlines()
    assert out[1].endswith("    1250.0 us     1000.0 us"), out[1]
    assert out[2] == ("  over its cost: 17 of 3000 releases used more CPU time than the 1000.0 us the analysis "
                      "assumed (worst 1250.0 us), the last at release 140: the analysed WCRT did not bound them")
    assert out[3] == ("  over its WCRT: worst response 1800.0 us > analysed WCRT 1000.0 us: its release lateness (worst "
                      "450.0 us, the kernel's wake-up included) counts in the analysis only as the jitter its "
                      "manifest declares; some releases used more CPU time than "
                      "the declared cost; after it started, at least 100.0 us went neither to its own CPU time nor to "
                      "the preemption and blocking the analysis counts: something the analysis does not model held it "
                      "(the JVM's safepoints and its locks without priority inheritance, docs/rtdroid-runtime.md)")
    assert out[4].endswith("      52.4 us             -"), "no declared cost: '-', and no overrun line"
    assert len(out) == 7 and len({len(line) for line in (out[0], out[1], out[4])}) == 1


def test_rt_services_says_why_a_worst_response_exceeds_the_analysed_wcrt():
    row = {"name": "cochlear/RecordingService/recordingTask", "state": "RUNNING", "releases": 3000,
           "deadline_misses": 0, "worst_lateness_nanos": 451_100, "worst_response_nanos": 1_451_000,
           "analysed_wcrt_nanos": 1_000_000, "worst_execution_nanos": 1_000_000, "analysed_cost_nanos": 1_000_000,
           "cost_overruns": 0, "failure": None}
    out = cli.render_services([row, {**row, "worst_response_nanos": 999_000}]).splitlines()
    assert out[2] == ("  over its WCRT: worst response 1451.0 us > analysed WCRT 1000.0 us: its release lateness (worst "
                      "451.1 us, the kernel's wake-up included) counts in the analysis only as the jitter its "
                      "manifest declares")
    # the qemu-x86_64 loop's recordingTask: lateness and CPU time leave 679.4 us no modelled term explains
    held = {**row, "worst_lateness_nanos": 60_000, "worst_response_nanos": 1_309_000, "worst_execution_nanos": 569_600}
    assert cli.render_services([held]).splitlines()[2].endswith(
        "manifest declares; after it started, at least 679.4 us went neither to its own CPU time nor to the preemption "
        "and blocking the analysis counts: something the analysis does not model held it (the JVM's safepoints and its "
        "locks without priority inheritance, docs/rtdroid-runtime.md)")
    assert len(out) == 5, "a response within its WCRT gets no line"


def test_rt_services_shows_the_cpu_the_partition_pins_each_row_to():
    rows = [{"name": "left/Worker/work", "state": "RUNNING", "releases": 10, "deadline_misses": 0,
             "worst_lateness_nanos": 0, "cpu": 1, "failure": None},
            {"name": "echo/Echo", "state": "RUNNING", "releases": 3, "deadline_misses": 0,
             "worst_lateness_nanos": 0, "cpu": None, "failure": None}]
    out = cli.render_services(rows).splitlines()
    assert out[0].split()[2] == "cpu"
    assert out[1].split()[2] == "1" and out[2].split()[2] == "-", "not pinned: said, not shown as CPU 0"
    assert len({len(line) for line in out[:3]}) == 1, "the columns line up under their headings"


def test_rt_services_says_when_its_figures_are_in_virtual_time():
    clock = {"kind": "virtual", "label": "virtual time (QEMU icount shift=3: 125 M instructions/s)"}
    assert cli.render_services(SERVICES, clock).splitlines()[-2] == (
        "(releases, misses, lateness and execution in the RT cell's virtual time (QEMU icount shift=3: 125 M "
        "instructions/s))")


@pytest.mark.parametrize("as_json", [True, False])
def test_rt_services_json_carries_the_cause(monkeypatch, capsys, as_json):
    class Agent:
        @staticmethod
        def list_services(region, timeout):
            return SERVICES

        @staticmethod
        def sensor_status(region, timeout):
            from xcc import mgmt
            return mgmt.Result(15, "SENSORS_UNAVAILABLE", "sensors unavailable: this kernel has no /dev/uinput")
    monkeypatch.setattr(cli, "_mgmt", lambda: Agent)
    monkeypatch.setattr(cli, "_region_of", lambda a: "/dev/shm/unused")
    monkeypatch.setattr(cli, "_clock_of", lambda a: {"kind": "host"})
    assert cli.main(["rt", "services", "--board", "host"] + (["--json"] if as_json else [])) == 0
    out, err = capsys.readouterr()
    if as_json:
        rows = __import__("json").loads(out)
        assert rows[0]["failure"] == CAUSE and rows[2]["failure"] is None
        assert all(r["clock"] == {"kind": "host"} for r in rows)
    else:
        assert "failed: java.lang.IllegalStateException: sensor gone (task process, release 42)" in out
        # the table is the result; the sensors' refusal goes to stderr
        assert err == "sensors unavailable: this kernel has no /dev/uinput\n" and "sensors" not in out.splitlines()[-1]


def _agent_taking_traces(monkeypatch, answer):
    from xcc import mgmt
    sent = []

    def replay_trace(region, path, timeout):
        sent.append(path)
        return answer
    monkeypatch.setattr(mgmt, "replay_trace", replay_trace)
    monkeypatch.setattr(cli, "_region_of", lambda a: "/dev/shm/unused")
    return sent


def test_sensors_replay_prints_the_agents_answer(tmp_path, monkeypatch, capsys):
    from xcc import mgmt
    trace = tmp_path / "fall.trace"
    trace.write_text("0 0 0 9.81\n")
    sent = _agent_taking_traces(monkeypatch, mgmt.Result(14, "BAD_TRACE", "fall.trace:1: 4 fields, expected 7"))
    assert cli.main(["rt", "sensors", "replay", str(trace)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err == "replay fall.trace: REFUSED: BAD_TRACE (14): fall.trace:1: 4 fields, expected 7\n"
    assert sent == [trace]


@pytest.mark.parametrize("name,content,error", [
    ("big.trace", b"0" * (1024 * 1024 + 1), "is 1048577 bytes; a trace has 1..1048576"),
    ("empty.trace", b"", "is 0 bytes"),
    ("a trace with spaces", b"0\n", "its file name must be 1-63 characters of [A-Za-z0-9._-]"),
    (None, None, "does not exist"),
])
def test_sensors_replay_refuses_what_it_cannot_send_in_one_line(tmp_path, monkeypatch, capsys, name, content, error):
    from xcc import mgmt
    sent = _agent_taking_traces(monkeypatch, mgmt.Result(0, "OK", "replaying"))
    trace = tmp_path / (name or "missing.trace")
    if content is not None:
        trace.write_bytes(content)
    assert cli.main(["rt", "sensors", "replay", str(trace)]) == 1
    err = capsys.readouterr().err
    assert error in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert sent == []


def _bundle_inputs(tmp_path, root='<manifest versionCode="2">'):
    import zipfile
    jar, manifest = tmp_path / "a.jar", tmp_path / "m.xml"
    with zipfile.ZipFile(jar, "w") as z:
        z.writestr("a/A.class", b"x")
    manifest.write_text(f'{root}<application name="echo"><receiver name="a.A" priority="5"/></application></manifest>')
    run("keys", "--dir", str(tmp_path / "keys"))
    return jar, manifest, tmp_path / "keys" / "deploy.key"


def test_bundle_says_its_version_and_whether_it_may_downgrade(tmp_path):
    jar, manifest, key = _bundle_inputs(tmp_path)
    common = ("bundle", "--jar", str(jar), "--manifest", str(manifest), "--key", str(key))
    r = run(*common, "-o", str(tmp_path / "echo.rtb"))
    assert r.returncode == 0, r.stderr
    assert "application echo version 2, " in r.stdout and "downgrade" not in r.stdout
    r = run(*common, "--allow-downgrade", "-o", str(tmp_path / "echo-down.rtb"))
    assert r.returncode == 0, r.stderr
    assert "application echo version 2, " in r.stdout and "signed as a downgrade" in r.stdout
    import zipfile
    with zipfile.ZipFile(tmp_path / "echo-down.rtb") as z:
        assert "downgrade.ed25519" in z.namelist() and "signature.ed25519" not in z.namelist()


def test_bundle_without_a_version_is_refused_in_one_line(tmp_path):
    jar, manifest, key = _bundle_inputs(tmp_path, root="<manifest>")
    r = run("bundle", "--jar", str(jar), "--manifest", str(manifest), "--key", str(key), "-o", str(tmp_path / "o.rtb"))
    assert r.returncode == 1 and "BAD_MANIFEST" in r.stderr and "has no versionCode" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert not (tmp_path / "o.rtb").exists()


def test_a_downgrade_refusal_prints_one_line_with_both_versions(tmp_path, monkeypatch, capsys):
    """The agent's answer (its code and reason, as xcc.mgmt decodes them) becomes the CLI's line."""
    from xcc import frames as F
    from xcc import mgmt
    bundle = tmp_path / "cochlear.rtb"
    bundle.write_bytes(b"PK")
    answer = F.Control(kind=F.Control.DEPLOY_RESULT, code=10, subject="cochlear",
                       text="cochlear version 2 < deployed 3; a downgrade needs a bundle signed for it "
                            "(rtdroid bundle --allow-downgrade)")
    monkeypatch.setattr(mgmt, "deploy", lambda region, path, timeout: mgmt.Result.of(answer))
    monkeypatch.setattr(cli, "_region_of", lambda a: "/dev/shm/unused")
    assert cli.main(["deploy", "rt", str(bundle)]) == 1
    out, err = capsys.readouterr()  # a refusal is on stderr (after the time the answer took)
    assert out == "" and err.splitlines()[-1] + "\n" == ("deploy cochlear.rtb: REFUSED: DOWNGRADE (10): cochlear version 2 < deployed 3; a downgrade "
                   "needs a bundle signed for it (rtdroid bundle --allow-downgrade)\n")


@pytest.mark.parametrize("wrong,says", [
    ("text", "is not a private key in PEM PKCS#8"),
    ("public", "is not a private key in PEM PKCS#8"),
    ("rsa", "is an RSA key, not Ed25519"),
    ("encrypted", "is an encrypted private key"),
])
def test_bundle_with_a_wrong_key_says_so_in_one_sentence(tmp_path, wrong, says):
    """Issue 38, defect 6: the crypto library's own text (OpenSSL error codes) never reaches the user."""
    from cryptography.hazmat.primitives import serialization as S
    from cryptography.hazmat.primitives.asymmetric import ed25519, rsa
    jar, manifest, _ = _bundle_inputs(tmp_path)
    key = tmp_path / "wrong.key"
    ed = ed25519.Ed25519PrivateKey.generate()
    key.write_bytes({
        "text": b"not a key\n",
        "public": ed.public_key().public_bytes(S.Encoding.PEM, S.PublicFormat.SubjectPublicKeyInfo),
        "rsa": rsa.generate_private_key(65537, 1024).private_bytes(S.Encoding.PEM, S.PrivateFormat.PKCS8,
                                                                   S.NoEncryption()),
        "encrypted": ed.private_bytes(S.Encoding.PEM, S.PrivateFormat.PKCS8, S.BestAvailableEncryption(b"pw")),
    }[wrong])
    r = run("bundle", "--jar", str(jar), "--manifest", str(manifest), "--key", str(key), "-o", str(tmp_path / "o.rtb"))
    assert r.returncode == 1 and r.stdout == "", r.stdout
    assert r.stderr.count("\n") == 1 and says in r.stderr and "rtdroid keys" in r.stderr, r.stderr
    assert "OpenSSL" not in r.stderr and "deserialize" not in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "o.rtb").exists()


def _status_of(cells_alive: dict, link: list[str], phase="ready"):
    from rtdroid import lifecycle
    cells = {n: {"pid": 100 + i, "alive": alive, "ready": alive, "role": n} for i, (n, alive) in enumerate(cells_alive.items())}
    return {"host": {"up": all(cells_alive.values()), "phase": phase, "hypervisor": "process", "accel": None,
                     "condition": lifecycle.worst_condition(cells, phase, link),
                     "link": "ok" if not link else "degraded: " + "; ".join(link), "cells": cells,
                     "region": "/dev/shm/r", "peers": {}, "control_port": 7411, "adb_port": 7412,
                     "rt_kernel_realtime": 1, "up_seconds": 3.7822995589999664}}


@pytest.mark.parametrize("alive,link,first,code", [
    ({"rt": True, "android": True}, [], "board host: up (phase ready, process)", 0),
    ({"rt": True, "android": True}, ["rt cell is STOPPING"],
     "board host: DEGRADED: link rt cell is STOPPING (phase ready, process)", 1),
    ({"rt": False, "android": True}, ["rt cell is STOPPING"],
     "board host: DEGRADED: cell rt not running (phase ready, process)", 1),
    ({"rt": False, "android": False}, [], "board host: DOWN: cell rt, android not running (phase ready, process)", 1),
])
def test_board_status_leads_with_the_worst_condition(monkeypatch, capsys, alive, link, first, code):
    """Issue 38, defect 6: a degraded link is never "up" on the first line."""
    from rtdroid.commands import board
    monkeypatch.setattr(board.lifecycle, "status", lambda name: _status_of(alive, link))
    monkeypatch.setattr(board, "_app_lines", lambda b: [])
    assert cli.main(["board", "status"]) == code
    out = capsys.readouterr().out.splitlines()
    assert out[0] == first, out
    assert "up in 3.8 s" in out[-1], out  # rounded, as a person reads it


def test_board_status_shows_where_each_app_runs(monkeypatch):
    """Issue 36: an app in a process of its own shows its pid, state, starts and last death."""
    from rtdroid.commands import board

    class Control:
        def call(self, method, path):
            return [{"package": "org.rtdroid.proxy", "uid": 0, "state": "RUNNING", "system": True,
                     "process": "system_server"},
                    {"package": "org.rtdroid.cochlear.ui", "uid": 10000, "state": "INSTALLED",
                     "process": {"pid": 4242, "state": "RUNNING", "starts": 2,
                                 "lastDeath": "killed by signal 9 (SIGKILL)", "uid": 10000}}]

    from rtdroid import control
    monkeypatch.setattr(control.AndroidControl, "for_board", classmethod(lambda cls, b, timeout=5: Control()))
    lines = board._app_lines({"cells": {"android": {"role": "android", "alive": True}}})
    assert lines[0].endswith("in the system server's process"), lines
    assert lines[1] == ("app org.rtdroid.cochlear.ui: uid 10000, INSTALLED, crashes 0, own process pid 4242 "
                        "RUNNING (starts 2, last death: killed by signal 9 (SIGKILL))"), lines
