"""The xen hypervisor module: its board-file rules, its two machines (one CPU in virtual time, SMP
with cpupools in host time), and a further domU added by the board file alone."""
import copy
import os
import re

import pytest
import yaml

from rtdroid import boardconfig as bc
from rtdroid import paths, render
from rtdroid.errors import BoardError
from rtdroid.hypervisors import xen


def shipped(name="qemu-arm64-xen-smp"):
    return yaml.safe_load((paths.board_configs_dir() / f"{name}.yaml").read_text())


@pytest.mark.parametrize("name", ["qemu-arm64-xen", "qemu-arm64-xen-smp"])
def test_the_shipped_boards_validate_and_match_their_golden_files(name):
    b = bc.load_board(name)
    assert b.hypervisor == "xen" and render.compare_with_golden(b) == []


def test_the_virtual_time_board_is_one_cpu_under_icount_with_the_null_scheduler():
    b = bc.load_board("qemu-arm64-xen")
    argv = xen.render_argv(b)
    assert argv[:3] == ["taskset", "-c", "1"]
    assert argv[argv.index("-accel") + 1] == "tcg" and argv[argv.index("-icount") + 1] == "shift=0,sleep=off"
    assert argv[argv.index("-smp") + 1] == "1" and "node,nodeid=0,cpus=0-0,memdev=ram" in argv
    dtsi = xen.render_dtsi(b)
    # Xen's cpupool 0 (its one CPU) runs the null scheduler; no boot-time pools without a second CPU
    assert "bootscrub=0 sched=null vwfi=native\"" in dtsi and "xen,cpupool" not in dtsi and "domain-cpupool" not in dtsi
    assert xen.Xen().clock(b)["kind"] == "virtual" and xen.Xen().clock(b)["ns_per_instruction"] == 1
    # the Android cell judges the RT peer's heartbeat (100 ms of virtual time) by the host's clock
    android = render.render(b)["cells"]["android"]["argv"]
    assert android[-2:] == ["--peer-timeout-ms", "5000"]
    assert "--peer-timeout-ms" not in render.render(bc.load_board("host"))["cells"]["android"]["argv"]


def test_the_smp_board_runs_in_host_time_with_the_rt_cell_alone_in_a_null_scheduler_pool():
    b = bc.load_board("qemu-arm64-xen-smp")
    argv = xen.render_argv(b)
    assert argv[argv.index("-accel") + 1] == "tcg,thread=multi" and "-icount" not in argv
    assert argv[argv.index("-smp") + 1] == "2"
    dtsi = xen.render_dtsi(b)
    assert re.search(r'cpupool_rt \{\s*compatible = "xen,cpupool";\s*cpupool-cpus = <&\{/cpus/cpu@1\}>;'
                     r'\s*cpupool-sched = "null";', dtsi)
    assert "domain-cpupool = <&{/chosen/cpupool_rt}>" in dtsi and "sched=null" not in dtsi
    assert xen.Xen().clock(b) == {"kind": "host"}


def test_a_second_borrowing_domain_is_one_entry_of_the_board_file():
    data = shipped()
    data["xen"]["domains"].append({"name": "probe2", "cpus": [0], "memory_mib": 64})
    b = bc.validate_board(data)
    dtsi = xen.render_dtsi(b)
    # three domUs, each mapping the same static shared memory; only the RT cell owns it
    # the region (owned by the RT cell, borrowed by each domain) and the RT cell's own state bank
    assert re.findall(r"role = \"(\w+)\"", dtsi) == ["owner", "owner", "borrower", "borrower"]
    assert len(set(re.findall(r"xen,shared-mem = <([^>]*)>", dtsi))) == 2   # every domain maps the one region
    assert "domU-probe2 {" in dtsi and "domain-cpupool = <&{/chosen/cpupool_shared}>" in dtsi
    # its boot modules get their own slots and its /init is rendered
    argv = " ".join(xen.render_argv(b))
    assert "${XEN_PROBE2_KERNEL},addr=0x70000000" in argv and "${XEN_PROBE2_INITRD},addr=0x74000000" in argv
    assert "XENDOM probe2" in xen.Xen().golden_files(b)["qemu-arm64-xen-smp.probe2.init"]


@pytest.mark.parametrize("name", ["qemu-arm64-xen", "qemu-arm64-xen-smp"])
def test_the_region_is_the_memory_bank_after_machine_ram(name):
    b = bc.load_board(name)
    argv = xen.machine_args(b)
    assert f"memory-backend-file,id=xcc,size=4M,mem-path={b.rendered_region_path},share=on" in argv
    assert "node,nodeid=1,memdev=xcc" in argv and "2054M" in argv
    assert "0x0 0xc0000000 0x0 0x34000000 0x0 0x400000" in xen.render_dtsi(b)


@pytest.mark.parametrize("name", ["qemu-arm64-xen", "qemu-arm64-xen-smp"])
def test_the_rt_cells_state_bank_follows_the_region_and_is_its_alone(name):
    b = bc.load_board(name)
    argv = xen.machine_args(b)
    assert "memory-backend-file,id=state,size=2M,mem-path=${RT_STATE},share=on" in argv
    assert "node,nodeid=2,memdev=state" in argv
    dtsi = xen.render_dtsi(b)
    assert dtsi.count('xen,shm-id = "rtdroid-state"') == 1          # the RT cell's node only
    assert "0x0 0xc0400000 0x0 0x34400000 0x0 0x200000" in dtsi
    rt = next(d for d in xen.domains(b) if d["kind"] == "rt")
    assert "--state-device /dev/mem@0x34400000+2097152" in xen.init_script(b, rt)


def test_the_state_bank_is_created_blank_and_kept(tmp_path):
    bank = xen.ensure_state_bank(tmp_path / "rt-state.img")
    assert bank.read_bytes() == bytes(2 * 1024 * 1024)
    bank.write_bytes(b"RTCELLVR" + bytes(2 * 1024 * 1024 - 8))   # what the cell wrote
    xen.ensure_state_bank(bank)
    assert bank.read_bytes()[:8] == b"RTCELLVR"
    bank.write_bytes(b"short")
    with pytest.raises(BoardError, match="not a file of 2097152 bytes"):
        xen.ensure_state_bank(bank)


@pytest.mark.parametrize("path, value, rule", [
    ("cells.0.cpus", [0, 1], "Xen's shared cpupool needs a CPU besides the RT cell's"),
    ("xen.domains.0.cpus", [1], "must not share the RT cell's CPUs"),
    ("xen.domains.0.name", "android", "is already a cell's name"),
    ("xen.region_guest_address", 0x37F00000, "within the free domU window"),
    ("regions.0.size_bytes", 3 * 1024 * 1024, "a power of two >= 1 MiB"),
    ("xen.machine_ram_mib", 512, "too small for the domUs"),
    ("tuning.rt_cmdline", "quiet", "must contain console=ttyAMA0"),
    ("cells.0.boot", "snapshot", "boots cold"),
    ("cells.0.clock", {"kind": "virtual", "icount_shift": 0}, "a virtual-time xen board has one machine CPU"),
])
def test_a_broken_xen_board_is_refused_naming_the_rule(path, value, rule):
    data = copy.deepcopy(shipped())
    _refused(data, path, value, rule)


@pytest.mark.parametrize("path, value, rule", [
    ("xen.domains", [{"name": "probe", "cpus": [0], "memory_mib": 64}], "a further domU needs the host-clock SMP machine"),
    ("cells.0.vcpus", 2, "the RT cell has one vCPU"),
    ("cells.0.cpus", [0, 1], "runs its one machine CPU on one host CPU"),
])
def test_a_broken_virtual_time_xen_board_is_refused_naming_the_rule(path, value, rule):
    _refused(copy.deepcopy(shipped("qemu-arm64-xen")), path, value, rule)


def _refused(data, path, value, rule):
    d = data
    keys = path.split(".")
    for k in keys[:-1]:
        d = d[int(k)] if k.isdigit() else d[k]
    d[int(keys[-1]) if keys[-1].isdigit() else keys[-1]] = value
    with pytest.raises(bc.BoardConfigError) as e:
        bc.validate_board(data)
    assert rule in str(e.value)


def test_a_missing_payload_names_the_script_that_builds_it(monkeypatch, tmp_path):
    monkeypatch.setattr(xen, "build_dir", lambda: tmp_path / "xen")
    with pytest.raises(xen.BoardError, match=r"run tools/fetch-xen.sh"):
        xen.payload()


def test_the_virtual_time_board_restores_from_a_boot_snapshot_and_formats_the_region_after_it():
    b = bc.load_board("qemu-arm64-xen")
    assert b.rt["boot"] == "snapshot"
    hv = xen.Xen()
    assert hv.region_after_start(b, cold=False)          # the restore rewrites the region file
    assert not hv.region_after_start(b, cold=True)       # `board up --cold`
    assert not hv.region_after_start(bc.load_board("qemu-arm64-xen-smp"), cold=False)
    argv = xen.render_argv(b)
    assert argv[argv.index("-qmp") + 1] == "unix:${RUN_DIR}/qmp.sock,server=on,wait=off"
    # between the snapshot's boot and the restore the device tree stays (the restore loads it)
    assert "board.dtb" not in xen.MACHINE_RUN_FILES and "qmp.sock" in xen.MACHINE_RUN_FILES


def test_the_boot_snapshot_is_invalidated_by_any_of_its_inputs(tmp_path):
    b = bc.load_board("qemu-arm64-xen")
    files = {}
    for name in ("XEN", "XEN_RT_KERNEL", "XEN_RT_INITRD"):
        files[name] = tmp_path / name
        files[name].write_bytes(name.encode())
    dtb = tmp_path / "board.dts"
    tree = "/ {\n\tchosen {\n\t\trng-seed = <0x%x 0x2>;\n\t\tkaslr-seed = <0x%x 0x4>;\n\t};\n};\n"
    dtb.write_text(tree % (1, 3))
    values = {k: str(v) for k, v in files.items()}
    argv = ["qemu-system-aarch64", "-m", "2052M"]
    key = xen.snapshot_key(b, argv, values, dtb)
    dtb.write_text(tree % (5, 7))               # QEMU's dumpdtb: fresh random seeds every time
    assert xen.snapshot_key(b, argv, values, dtb) == key
    dtb.write_text(tree.replace("chosen", "chosen2") % (1, 3))
    assert xen.snapshot_key(b, argv, values, dtb) != key
    dtb.write_text(tree % (1, 3))
    data = copy.deepcopy(b.data)
    data["cells"][0]["heap_mib"] = 96
    assert xen.snapshot_key(bc.validate_board(data), argv, values, dtb) != key
    assert xen.snapshot_key(b, argv + ["-s"], values, dtb) != key
    for name in files:
        files[name].write_bytes(b"rebuilt, longer than before")
        assert xen.snapshot_key(b, argv, values, dtb) != key, name
        key = xen.snapshot_key(b, argv, values, dtb)


def _rt_payload(tmp_path):
    """A stand-in payload (busybox, Java runtime, glibc, the arm64 kernel with its input modules),
    the agent's jars and the deploy key, as tools/fetch-xen.sh and the build lay them out."""
    pay = {"busybox": tmp_path / "busybox", "jre": tmp_path / "jre", "glibc": tmp_path / "glibc",
           "kernel": tmp_path / "kernel/boot/vmlinuz-6.1.0-99-rt-arm64"}
    for d in ("jre/bin", "glibc", "kernel/boot", "kernel/lib/modules/6.1.0-99-rt-arm64/kernel"):
        (tmp_path / d).mkdir(parents=True)
    pay["busybox"].write_bytes(b"bb")
    pay["kernel"].write_bytes(b"vmlinuz")
    for m in ("evdev", "uinput"):
        (tmp_path / f"kernel/lib/modules/6.1.0-99-rt-arm64/kernel/{m}.ko").write_bytes(b"\x7fELF " + m.encode())
    (tmp_path / "jre/bin/java").write_bytes(b"java")
    (tmp_path / "glibc/libc.so.6").write_bytes(b"libc")
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "agent.jar").write_bytes(b"jar")
    pub = tmp_path / "deploy.pub"
    pub.write_bytes(b"key")
    return pay, lib, pub


def test_an_rt_initramfs_without_the_input_modules_is_refused_naming_the_module(tmp_path, monkeypatch):
    monkeypatch.setattr(xen, "build_dir", lambda: tmp_path)
    pay, lib, pub = _rt_payload(tmp_path)
    (tmp_path / "kernel/lib/modules/6.1.0-99-rt-arm64/kernel/uinput.ko").unlink()
    b = bc.load_board("qemu-arm64-xen")
    with pytest.raises(xen.BoardError, match=r"kernel module uinput\.ko of 6\.1\.0-99-rt-arm64 not found"):
        xen.build_initrd(b, xen.domains(b)[0], pay, lib, pub)


def test_the_rt_initramfs_is_rebuilt_only_when_an_input_changes(tmp_path, monkeypatch):
    monkeypatch.setattr(xen, "build_dir", lambda: tmp_path)
    pay, lib, pub = _rt_payload(tmp_path)
    b = bc.load_board("qemu-arm64-xen")
    rt = xen.domains(b)[0]
    out = xen.build_initrd(b, rt, pay, lib, pub)
    data = out.read_bytes()
    assert b"agent.jar" in data and b"org.rtdroid.rtcell.agent.Main" in data
    assert b"lib/modules/6.1.0-99-rt-arm64/uinput.ko" in data and b"\x7fELF uinput" in data
    out.write_bytes(b"marker: not rebuilt")
    assert xen.build_initrd(b, rt, pay, lib, pub).read_bytes() == b"marker: not rebuilt"
    (tmp_path / "kernel/lib/modules/6.1.0-99-rt-arm64/kernel/evdev.ko").write_bytes(b"\x7fELF evdev, new")
    assert b"\x7fELF evdev, new" in xen.build_initrd(b, rt, pay, lib, pub).read_bytes()
    out.write_bytes(b"marker: not rebuilt")
    assert xen.build_initrd(b, rt, pay, lib, pub).read_bytes() == b"marker: not rebuilt"
    (lib / "agent.jar").write_bytes(b"a rebuilt jar")
    assert b"a rebuilt jar" in xen.build_initrd(b, rt, pay, lib, pub).read_bytes()
    out.write_bytes(b"marker: not rebuilt")
    (lib / "agent.jar").write_bytes(b"a rebuilt jar")  # a rebuild that wrote the same bytes again
    os.utime(lib / "agent.jar", (2_000_000_000, 2_000_000_000))
    assert xen.build_initrd(b, rt, pay, lib, pub).read_bytes() == b"marker: not rebuilt"
