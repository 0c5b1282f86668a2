"""What a cell's own log says about its latest start."""
from rtdroid import procs


def test_only_the_latest_start_of_a_cell_is_read_from_its_log(tmp_path):
    log, console = tmp_path / "rt.log", tmp_path / "console.log"
    log.write_text("--- 2026-11-28T10:12:44 rtdroid: qemu-system-x86_64 -accel kvm\n"
                   "KVM internal error. Suberror: 1\n")
    stopped, shown = procs.start_problem(log, console)
    assert stopped and "KVM internal error" in shown and "(this start)" in shown
    with log.open("a") as f:
        f.write("--- 2026-11-28T10:15:39 rtdroid: qemu-system-x86_64 -accel tcg\n")
    stopped, shown = procs.start_problem(log, console)
    assert not stopped and "-accel tcg" in shown and "KVM" not in shown


def test_a_cell_whose_ready_line_is_in_its_own_log_gets_no_second_tail(tmp_path):
    log = tmp_path / "android.log"
    log.write_text("--- 2026-11-28T10:12:44 rtdroid: java ...\nKVM internal error\n")
    assert procs.start_problem(log, log) == (False, "")
