"""What a cell's own log says about its latest start, and who reads it."""
from rtdroid import hypervisors, procs


def test_only_the_latest_start_of_a_cell_is_read_from_its_log(tmp_path):
    log, console = tmp_path / "rt.log", tmp_path / "console.log"
    log.write_text("--- 2026-11-28T10:12:44 rtdroid: qemu-system-x86_64 -accel kvm\n"
                   "KVM internal error. Suberror: 1\n")
    text, shown = procs.machine_log(log, console)
    assert "KVM internal error" in text and "KVM internal error" in shown and "(this start)" in shown
    with log.open("a") as f:
        f.write("--- 2026-11-28T10:15:39 rtdroid: qemu-system-x86_64 -accel tcg\n")
    text, shown = procs.machine_log(log, console)
    assert "KVM" not in text and "-accel tcg" in shown and "KVM" not in shown


def test_a_cell_whose_ready_line_is_in_its_own_log_gets_no_second_tail(tmp_path):
    log = tmp_path / "android.log"
    log.write_text("--- 2026-11-28T10:12:44 rtdroid: java ...\nKVM internal error\n")
    assert procs.machine_log(log, log) == ("", "")


def test_a_guest_stopped_by_kvm_is_refused_by_the_qemu_machines_only():
    stopped = "--- t rtdroid: qemu-system-x86_64\nKVM internal error. Suberror: 1\n"
    for name in ("qemu", "xen"):
        assert "accel: tcg" in hypervisors.get(name).start_refused(stopped)
        assert hypervisors.get(name).start_refused("--- t rtdroid: qemu\n") is None
    assert hypervisors.get("process").start_refused(stopped) is None


def test_each_hypervisor_reads_its_own_boot_lines():
    xen, qemu, process = (hypervisors.get(n) for n in ("xen", "qemu", "process"))
    console = ("(XEN) Freed 400kB init memory\n(XEN) DOM1: RTCELL realtime=1 cpus=1 uptime=2.50\n")
    assert [k for k, _ in xen.boot_milestones] == ["hypervisor_up", "kernel_init"]
    assert [k for k, _ in qemu.boot_milestones] == ["kernel_init"] and process.boot_milestones == ()
    assert xen.kernel_booted(console) == "realtime=1, guest uptime 2.50 s"
    assert process.kernel_booted(console) is None
    assert xen.kernel_realtime(console) == 1
    # a cell restored from its boot snapshot: only the agent's line says it
    assert qemu.kernel_realtime("rtcell: kernel realtime=0 (PREEMPT_DYNAMIC)\n") == 0
    assert process.kernel_realtime("rtcell: kernel realtime=1\n") == 1
    # the release the booted cell's agent read there (what a LAVA job reports), on every console
    assert qemu.kernel_release("rtcell: kernel realtime=1 6.1.0-56-rt-amd64\n") == "6.1.0-56-rt-amd64"
    assert xen.kernel_release("(XEN) DOM1: rtcell: kernel realtime=1 6.1.0-56-rt-arm64\r\n") == "6.1.0-56-rt-arm64"
    assert process.kernel_release(console) is None
