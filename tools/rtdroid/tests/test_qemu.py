"""How the qemu-x86_64 board picks its accelerator."""
import copy

import pytest

from rtdroid import boardconfig as bc
from rtdroid.errors import BoardError
from rtdroid.hypervisors import qemu


def _no_probe():
    raise AssertionError("a cell in virtual time must not probe KVM")


def test_a_cell_in_virtual_time_runs_under_tcg_whatever_kvm_says(monkeypatch):
    monkeypatch.setattr(qemu, "probe_kvm", _no_probe)
    b = bc.load_board("qemu-x86_64")
    assert b.rt["accel"] == "auto" and b.rt["clock"]["kind"] == "virtual"
    accel, cpu, why = qemu.choose_accel(b)
    assert (accel, cpu) == ("tcg", "max") and "virtual time" in why


def _host_clock_board(accel):
    b = copy.deepcopy(bc.load_board("qemu-x86_64"))
    b.rt["clock"] = {"kind": "host"}
    b.rt["accel"] = accel
    return b


def test_a_cell_on_the_host_clock_takes_kvm_only_when_the_probe_passes(monkeypatch):
    monkeypatch.setattr(qemu, "probe_kvm", lambda: (True, "qemu -accel kvm -cpu host runs"))
    assert qemu.choose_accel(_host_clock_board("auto"))[:2] == ("kvm", "host")
    monkeypatch.setattr(qemu, "probe_kvm", lambda: (False, "/dev/kvm not accessible"))
    assert qemu.choose_accel(_host_clock_board("auto"))[:2] == ("tcg", "max")
    with pytest.raises(BoardError, match="asks for KVM but it is not usable here: /dev/kvm not accessible"):
        qemu.choose_accel(_host_clock_board("kvm"))
