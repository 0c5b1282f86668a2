"""The deploy suite's unschedulable bundle (RtCellLibrary: Build RT Bundle ... unschedulable) is
refused by the same analysis the RT cell's admission control runs, for the reason the suite expects."""
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "libraries"))
import RtCellLibrary as lib  # noqa: E402
import session  # noqa: E402

MANIFESTS = session.ROOT / "rtdroid-runtime" / "examples" / "src" / "main" / "manifests"


def validate(*manifests):
    return subprocess.run([sys.executable, "-m", "rtdroid.cli", "validate", "--board", "host", *map(str, manifests)],
                          capture_output=True, text=True)


def test_the_overloaded_echo_is_schedulable_alone_but_not_above_the_cochlear_implant(tmp_path):
    hog = tmp_path / "manifest.xml"
    hog.write_text(lib._overload((MANIFESTS / "echo" / "manifest.xml").read_text())
                   .replace('<application name="echo"', '<application name="echo-hog"', 1))
    alone = validate(hog)
    assert alone.returncode == 0, alone.stdout + alone.stderr
    beside = validate(MANIFESTS / "cochlear", hog)
    assert beside.returncode == 1, beside.stdout + beside.stderr
    assert "UNSCHEDULABLE: processingTask WCRT 9 ms > deadline 8 ms" in beside.stdout + beside.stderr
    # the echo example as it is fits beside the implant: the suite's schedulable second app
    assert validate(MANIFESTS / "cochlear", MANIFESTS / "echo").returncode == 0


def test_the_unschedulable_variant_needs_a_component_with_declared_timing():
    try:
        lib._overload('<receiver name="a.B" priority="5"/>')
    except AssertionError as e:
        assert "cost and min-interarrival" in str(e)
    else:
        raise AssertionError("a manifest without declared timing was overloaded")
