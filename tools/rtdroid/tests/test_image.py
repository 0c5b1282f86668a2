"""The qemu RT cell's image: kernel checks, vmlinux extraction, a reproducible initramfs."""
import lzma
import subprocess

import pytest

from rtdroid import boardconfig as bc
from rtdroid import image, paths
from rtdroid.hypervisors import qemu


@pytest.fixture
def kernel_tree(tmp_path, monkeypatch):
    """A fake build/rt-cell with a kernel VERSION and a root tree."""
    monkeypatch.setattr(paths, "rt_cell_build_dir", lambda: tmp_path)
    k = tmp_path / "kernel"
    (k / "boot").mkdir(parents=True)
    (k / "VERSION").write_text("6.1.0-test-rt-amd64\n")
    root = tmp_path / "root"
    (root / "jdk" / "bin").mkdir(parents=True)
    (root / "jdk" / "bin" / "java").write_bytes(b"\x7fELF java")
    (root / "jdk" / "bin" / "java").chmod(0o755)
    (root / "lib").mkdir()
    (root / "lib" / "agent.jar").write_bytes(b"PK agent")
    (root / "glibc").mkdir()
    (root / "glibc" / "libc.so.6").write_bytes(b"\x7fELF libc")
    (root / "glibc" / "libc.so").symlink_to("libc.so.6")
    # the kernel package's layout: modules somewhere under lib/modules/<version>/kernel/
    for m, sub in [("virtio_ring", "drivers/virtio"), ("virtio", "drivers/virtio"),
                   ("virtio_pci_legacy_dev", "drivers/virtio"), ("virtio_pci_modern_dev", "drivers/virtio"),
                   ("virtio_pci", "drivers/virtio"), ("virtio_blk", "drivers/block"), ("evdev", "drivers/input"),
                   ("uinput", "drivers/input/misc")]:
        ko = k / "lib" / "modules" / "6.1.0-test-rt-amd64" / "kernel" / sub / f"{m}.ko"
        ko.parent.mkdir(parents=True, exist_ok=True)
        ko.write_bytes(b"\x7fELF " + m.encode())
    return k


def test_missing_kernel_is_a_clear_error(kernel_tree):
    with pytest.raises(image.ImageError, match="RT kernel missing"):
        image.check_kernel()


def test_no_kernel_fetched_at_all_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "rt_cell_build_dir", lambda: tmp_path)
    with pytest.raises(image.ImageError, match="no RT kernel fetched"):
        image.check_kernel()


def test_kernel_that_is_not_a_bzimage_is_refused(kernel_tree):
    (kernel_tree / "boot" / "vmlinuz-6.1.0-test-rt-amd64").write_bytes(b"garbage" * 100)
    with pytest.raises(image.ImageError, match="not a bzImage"):
        image.check_kernel()


def test_unreadable_kernel_is_refused(kernel_tree):
    # A directory where the kernel file should be cannot be read (root ignores file modes).
    (kernel_tree / "boot" / "vmlinuz-6.1.0-test-rt-amd64").mkdir()
    with pytest.raises(image.ImageError, match="RT kernel missing"):
        image.check_kernel()


def test_extract_vmlinux_finds_the_compressed_elf(tmp_path):
    elf = b"\x7fELF" + bytes(range(256)) * 64
    bz = bytearray(b"\0" * 0x202 + b"HdrS" + b"\0" * 100) + lzma.compress(elf, format=lzma.FORMAT_XZ) + b"\0" * 32
    src, out = tmp_path / "vmlinuz", tmp_path / "vmlinux"
    src.write_bytes(bytes(bz))
    assert image.extract_vmlinux(src, out)
    assert out.read_bytes() == elf


def test_extract_vmlinux_without_payload_says_so(tmp_path):
    src = tmp_path / "vmlinuz"
    src.write_bytes(b"\0" * 4096)
    assert not image.extract_vmlinux(src, tmp_path / "vmlinux")


def test_initramfs_is_reproducible_and_carries_the_root(kernel_tree, tmp_path):
    board = bc.load_board("qemu-x86_64")
    out = qemu.ensure_initramfs(board)
    first = out.read_bytes()
    (tmp_path / "initrd.stamp").unlink()
    assert qemu.ensure_initramfs(board).read_bytes() == first  # rebuilt: same bytes
    listing = subprocess.run(["cpio", "-t", "--quiet", "-F", str(out)], capture_output=True,
                             text=True, check=True).stdout.split()
    for entry in ["init", "bin/busybox", "bin/sh", "bin/insmod", "dev/console", "rt/jdk/bin/java",
                  "rt/lib/agent.jar", "rt/glibc/libc.so", "lib/modules/6.1.0-test-rt-amd64/evdev.ko",
                  "lib/modules/6.1.0-test-rt-amd64/uinput.ko"]:
        assert entry in listing
    # the guest's modules (state disk, input path), and nothing else of the kernel's modules
    assert sorted(e for e in listing if e.endswith(".ko")) == sorted(
        f"lib/modules/6.1.0-test-rt-amd64/{m}.ko" for m in qemu.GUEST_MODULES)
    blk = subprocess.run(["cpio", "-i", "--quiet", "--to-stdout", "lib/modules/6.1.0-test-rt-amd64/virtio_blk.ko"],
                         input=first, capture_output=True, check=True).stdout
    assert blk == b"\x7fELF virtio_blk"
    init = subprocess.run(["cpio", "-i", "--quiet", "--to-stdout", "init"], input=first,
                          capture_output=True, check=True).stdout.decode()
    assert init == qemu.init_script(board)
    java = subprocess.run(["cpio", "-i", "--quiet", "--to-stdout", "rt/jdk/bin/java"], input=first,
                          capture_output=True, check=True).stdout
    assert java == b"\x7fELF java"


def test_initramfs_is_rebuilt_when_the_root_changes(kernel_tree, tmp_path):
    board = bc.load_board("qemu-x86_64")
    first = qemu.ensure_initramfs(board).read_bytes()
    (tmp_path / "root" / "lib" / "agent.jar").write_bytes(b"PK agent, rebuilt")
    assert qemu.ensure_initramfs(board).read_bytes() != first


def test_initramfs_without_the_state_disk_drivers_is_refused(kernel_tree):
    (kernel_tree / "lib" / "modules" / "6.1.0-test-rt-amd64" / "kernel" / "drivers" / "block" / "virtio_blk.ko").unlink()
    with pytest.raises(image.ImageError, match="kernel module virtio_blk.ko of 6.1.0-test-rt-amd64 not found .*state disk or sensor path"):
        qemu.ensure_initramfs(bc.load_board("qemu-x86_64"))


def test_initramfs_without_a_java_runtime_is_refused(kernel_tree, tmp_path):
    (tmp_path / "root" / "jdk" / "bin" / "java").unlink()
    with pytest.raises(image.ImageError, match="no jdk/bin/java"):
        qemu.ensure_initramfs(bc.load_board("qemu-x86_64"))


def test_root_tree_needs_the_agent_and_the_key(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "rt_cell_build_dir", lambda: tmp_path)
    with pytest.raises(image.ImageError, match="RT cell agent not built"):
        image.ensure_root_tree(agent_lib=tmp_path / "nolib", deploy_pub=tmp_path / "k.pub")
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "a.jar").write_bytes(b"PK")
    with pytest.raises(image.ImageError, match="deploy public key missing"):
        image.ensure_root_tree(agent_lib=lib, deploy_pub=tmp_path / "k.pub")


def test_an_xz_module_is_carried_unpacked(kernel_tree, tmp_path):
    mods = kernel_tree / "lib" / "modules" / "6.1.0-test-rt-amd64" / "kernel" / "drivers" / "input"
    (mods / "misc" / "uinput.ko").unlink()
    (mods / "misc" / "uinput.ko.xz").write_bytes(lzma.compress(b"\x7fELF uinput", format=lzma.FORMAT_XZ))
    out = qemu.ensure_initramfs(bc.load_board("qemu-x86_64"))
    ko = subprocess.run(["cpio", "-i", "--quiet", "--to-stdout", "lib/modules/6.1.0-test-rt-amd64/uinput.ko"],
                        input=out.read_bytes(), capture_output=True, check=True).stdout
    assert ko == b"\x7fELF uinput"


def test_a_missing_module_is_a_clear_error(kernel_tree):
    (kernel_tree / "lib" / "modules" / "6.1.0-test-rt-amd64" / "kernel" / "drivers" / "input" / "evdev.ko").unlink()
    with pytest.raises(image.ImageError, match="kernel module evdev.ko of 6.1.0-test-rt-amd64 not found"):
        qemu.ensure_initramfs(bc.load_board("qemu-x86_64"))


def test_a_module_that_is_not_elf_is_refused(kernel_tree):
    (kernel_tree / "lib" / "modules" / "6.1.0-test-rt-amd64" / "kernel" / "drivers" / "input" / "evdev.ko").write_bytes(b"html")
    with pytest.raises(image.ImageError, match="evdev.ko is not an ELF object"):
        qemu.ensure_initramfs(bc.load_board("qemu-x86_64"))


def test_a_changed_module_rebuilds_the_initramfs_and_stales_the_snapshot(kernel_tree, tmp_path):
    from rtdroid import snapshot
    board = bc.load_board("qemu-x86_64")
    kernel = tmp_path / "vmlinux"
    kernel.write_bytes(b"kernel")
    out = qemu.ensure_initramfs(board)
    first, key = out.read_bytes(), snapshot.key_for(["qemu-system-x86_64"], kernel, out)
    (kernel_tree / "lib" / "modules" / "6.1.0-test-rt-amd64" / "kernel" / "drivers" / "input" / "evdev.ko").write_bytes(
        b"\x7fELF evdev, another build")
    assert qemu.ensure_initramfs(board).read_bytes() != first
    assert snapshot.key_for(["qemu-system-x86_64"], kernel, out) != key
