"""The boot snapshot's bookkeeping and its QMP client (QEMU itself runs in the integration test)."""
import json
import socket
import threading

import pytest

from pathlib import Path

from rtdroid import hypervisors, snapshot
from rtdroid.errors import BoardError


def test_restore_and_cold_argv_are_inverse():
    argv = ["qemu-system-x86_64", "-m", "1024", "-qmp", "unix:/r/qmp.sock,server=on,wait=off"]
    restored = snapshot.restore_argv(argv, Path("/b/snap.zst"))
    assert restored[-2:] == ["-incoming", "exec:zstd -dc -q /b/snap.zst"]
    assert snapshot.cold_argv(restored) == argv


def test_a_snapshot_is_usable_only_with_the_same_key(tmp_path):
    kernel, initrd = tmp_path / "vmlinux", tmp_path / "initrd.cpio"
    kernel.write_bytes(b"kernel")
    initrd.write_bytes(b"initrd")
    key = snapshot.key_for(["qemu-system-x86_64", "-m", "1024"], kernel, initrd)
    snap = tmp_path / "snapshot-b-tcg.zst"
    assert not snapshot.usable(snap, key)                    # none yet
    snap.write_bytes(b"stream")
    snap.with_suffix(".json").write_text(json.dumps(key))
    assert snapshot.usable(snap, key)
    initrd.write_bytes(b"initrd, rebuilt")                   # a new image: the snapshot is stale
    assert not snapshot.usable(snap, snapshot.key_for(["qemu-system-x86_64", "-m", "1024"], kernel, initrd))
    assert not snapshot.usable(snap, dict(key, argv=["qemu-system-x86_64", "-m", "2048"]))
    snapshot.discard(snap)
    assert not snap.exists() and not snap.with_suffix(".json").exists()


def _fake_qemu(path, replies):
    """A QMP server that greets, then answers each command from `replies` (name -> reply)."""
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(str(path))
    srv.listen(1)
    seen = []

    def serve():
        conn, _ = srv.accept()
        f = conn.makefile("rw")
        f.write(json.dumps({"QMP": {"version": {}, "capabilities": []}}) + "\n")
        f.flush()
        for line in f:
            cmd = json.loads(line)
            seen.append(cmd)
            f.write(json.dumps({"event": "SOMETHING"}) + "\n")   # events are skipped
            f.write(json.dumps(replies.get(cmd["execute"], {"return": {}})) + "\n")
            f.flush()
        conn.close()
        srv.close()

    threading.Thread(target=serve, daemon=True).start()
    return seen


def test_qmp_client_negotiates_and_reports_errors(tmp_path):
    sock = tmp_path / "qmp.sock"
    seen = _fake_qemu(sock, {"query-status": {"return": {"status": "running"}},
                             "migrate": {"error": {"class": "GenericError", "desc": "Migration is disabled"}}})
    q = snapshot.Qmp(sock)
    assert q.execute("query-status") == {"status": "running"}
    with pytest.raises(snapshot.SnapshotError, match="QMP migrate: Migration is disabled"):
        q.execute("migrate", uri="exec:cat")
    q.close()
    assert [c["execute"] for c in seen] == ["qmp_capabilities", "query-status", "migrate"]
    assert seen[2]["arguments"] == {"uri": "exec:cat"}


def test_qmp_client_gives_up_on_a_missing_socket(tmp_path):
    with pytest.raises(snapshot.SnapshotError, match="cannot connect to QMP"):
        snapshot.Qmp(tmp_path / "none.sock", timeout=0.2)


class _Launch:
    """What boot_restored uses of a hypervisor's Launch; its processes are `sleep`s."""

    def __init__(self, run):
        from types import SimpleNamespace
        self.board, self.name, self.run, self.timeout = SimpleNamespace(name="b", hypervisor="qemu"), "rt", run, 5
        self.notes, self.started, self.state = [], [], {"cells": {}}
        self.progress = SimpleNamespace(note=self.notes.append)

    def start_process(self, argv, log):
        import subprocess
        self.started.append(argv)
        self.state["cells"]["rt"] = {}
        return subprocess.Popen(["sleep", "30"])

    def stop_process(self):
        pass


def _key_and_snapshot(tmp_path):
    kernel, initrd = tmp_path / "vmlinux", tmp_path / "initrd.cpio"
    kernel.write_bytes(b"kernel")
    initrd.write_bytes(b"initrd")
    key = snapshot.key_for(["qemu-system-aarch64"], kernel, initrd, xen="x")
    snap = tmp_path / "snapshot-b-tcg.zst"
    snap.write_bytes(b"stream")
    snap.with_suffix(".json").write_text(json.dumps(key))
    return key, snap


def test_a_usable_snapshot_is_restored_and_resumed(tmp_path):
    key, snap = _key_and_snapshot(tmp_path)
    seen = _fake_qemu(tmp_path / "qmp.sock", {"query-status": {"return": {"status": "running"}}})
    launch = _Launch(tmp_path)
    p, how = snapshot.boot_restored(launch, ["qemu-system-aarch64"], snap, key, ("qmp.sock",), "M", "~1 s")
    p.kill()
    assert launch.started == [["qemu-system-aarch64", "-incoming", f"exec:zstd -dc -q {snap}"]]
    assert how.startswith("M, restored from the boot snapshot in ")
    assert "restored_seconds" in launch.state["cells"]["rt"] and not launch.notes
    assert [c["execute"] for c in seen] == ["qmp_capabilities", "query-status"]


def test_a_snapshot_that_does_not_restore_is_discarded_and_the_cell_boots_cold(tmp_path):
    key, snap = _key_and_snapshot(tmp_path)
    _fake_qemu(tmp_path / "qmp.sock", {"query-status": {"return": {"status": "inmigrate"}},
                                       "query-migrate": {"return": {"status": "failed"}}})
    launch = _Launch(tmp_path)
    p, how = snapshot.boot_restored(launch, ["qemu-system-aarch64"], snap, key, ("qmp.sock",), "M", "~1 s")
    p.kill()
    assert launch.started[-1] == ["qemu-system-aarch64"] and how == "M, cold boot"
    assert not snap.exists() and "did not restore" in launch.notes[0]
    assert not (tmp_path / "qmp.sock").exists()              # the failed machine's run files are gone


class _Running:
    returncode = None

    def poll(self):
        return None


def _first_boot_failure(tmp_path, console_text, log_text, timeout):
    """The error of a first boot whose console says console_text and QEMU's log log_text."""
    console, log = tmp_path / "console.log", tmp_path / "rt-snapshot.log"
    console.write_text(console_text)
    log.write_text(log_text)
    with pytest.raises(BoardError) as e:
        snapshot._wait_console(_Running(), console, "ready", timeout, "rt", log, hypervisors.get("xen"))
    return str(e.value), console


def test_a_guest_stopped_by_kvm_fails_the_first_boot_at_once_naming_qemus_words(tmp_path):
    # QEMU keeps running with the guest stopped: the wait must not run into its timeout
    error, console = _first_boot_failure(tmp_path, "", "KVM internal error. Suberror: 1\nemulation failure\n", 30)
    assert "the rt cell cannot finish its first boot: KVM stopped the guest (set `accel: tcg`" in error
    assert "emulation failure" in error and f"{console} is empty" in error


def test_a_first_boot_that_times_out_shows_the_machine_log_beside_the_console(tmp_path):
    error, _ = _first_boot_failure(tmp_path, "booting\n",
                                   "qemu-system-x86_64: warning: something the guest never printed\n", 0.2)
    assert "did not report ready within 0.2 s" in error
    assert "booting" in error and "something the guest never printed" in error


def test_an_earlier_boots_kvm_failure_in_the_log_does_not_fail_this_boot(tmp_path):
    console, log = tmp_path / "console.log", tmp_path / "rt-snapshot.log"
    log.write_text("--- 2026-11-28T10:12:44 rtdroid: qemu-system-x86_64 -accel kvm\nKVM internal error. Suberror: 1\n"
                   "--- 2026-11-28T10:15:39 rtdroid: this boot, under TCG\n")
    console.write_text("... ready\n")
    snapshot._wait_console(_Running(), console, "ready", 30, "rt", log, hypervisors.get("qemu"))   # returns: ready
    console.write_text("")
    with pytest.raises(BoardError) as e:
        snapshot._wait_console(_Running(), console, "ready", 0.2, "rt", log, hypervisors.get("qemu"))
    assert "did not report ready" in str(e.value) and "this boot, under TCG" in str(e.value)
    assert "KVM" not in str(e.value)
