"""The adb client waits for the cell's transport to be a device (a fake adb on PATH plays the server)."""
import pytest

from rtdroid import adb

# The fake server: `connect` always succeeds; `get-state` answers the next line of $STATES
# (the last one for ever); every call is appended to $CALLS.
FAKE_ADB = """#!/bin/sh
echo "$*" >> "$CALLS"
case "$*" in
  *disconnect*) echo "disconnected $2" ;;
  *connect*) echo "connected to 127.0.0.1:5555" ;;
  *get-state*)
    n=$(grep -c get-state "$CALLS")
    line=$(sed -n "${n}p" "$STATES"); [ -n "$line" ] || line=$(tail -n 1 "$STATES")
    case "$line" in
      device) echo device ;;
      gone) echo "error: device '127.0.0.1:5555' not found" >&2; exit 1 ;;
      *) echo "error: device $line" >&2; exit 1 ;;
    esac ;;
esac
"""


@pytest.fixture
def fake_adb(tmp_path, monkeypatch):
    tool = tmp_path / "bin" / "adb"
    tool.parent.mkdir()
    tool.write_text(FAKE_ADB)
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tool.parent}:/usr/bin:/bin")
    monkeypatch.setenv("CALLS", str(tmp_path / "calls"))
    monkeypatch.setenv("STATES", str(tmp_path / "states"))
    (tmp_path / "calls").write_text("")

    def play(*states):
        (tmp_path / "states").write_text("\n".join(states) + "\n")
        return lambda: (tmp_path / "calls").read_text().splitlines()
    return play


def test_connect_waits_until_the_transport_is_a_device_and_reconnects_a_dropped_one(fake_adb):
    calls = fake_adb("offline", "gone", "device")
    adb.Adb(5555, timeout=10).connect()
    c = calls()
    assert [x.split()[-1] for x in c if "get-state" in x] == ["get-state"] * 3
    assert sum(1 for x in c if x.startswith("connect")) == 2, "the dropped transport was connected again"


def test_a_transport_that_never_becomes_a_device_fails_in_one_sentence(fake_adb):
    fake_adb("still authorizing")
    with pytest.raises(adb.AdbError, match=r"connected but is authorizing after 0.5 s, not a device"):
        adb.Adb(5555, timeout=0.5).connect()
