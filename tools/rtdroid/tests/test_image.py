"""The qemu RT cell's image: kernel checks, vmlinux extraction, a reproducible initramfs."""
import lzma
import subprocess

import pytest

from rtdroid import boardconfig as bc
from rtdroid import image, paths, render


@pytest.fixture
def kernel_tree(tmp_path, monkeypatch):
    """A fake build/rt-cell with a kernel VERSION and module files."""
    monkeypatch.setattr(paths, "rt_cell_build_dir", lambda: tmp_path)
    k = tmp_path / "kernel"
    (k / "boot").mkdir(parents=True)
    (k / "VERSION").write_text("6.1.0-test-rt-amd64\n")
    mods = k / "lib" / "modules" / "6.1.0-test-rt-amd64" / "kernel"
    mods.mkdir(parents=True)
    for m in render.QEMU_RT_MODULES:
        (mods / f"{m}.ko").write_bytes(b"\x7fELF module " + m.encode())
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


def test_initramfs_is_reproducible_and_complete(kernel_tree, tmp_path):
    board = bc.load_board("qemu-x86_64")
    out = image.ensure_initramfs(board)
    first = out.read_bytes()
    (tmp_path / "initramfs.stamp").unlink()
    assert image.ensure_initramfs(board).read_bytes() == first  # rebuilt: same bytes
    listing = subprocess.run(f"zcat {out} | cpio -t --quiet", shell=True, capture_output=True,
                             text=True, check=True).stdout.split()
    for entry in ["init", "bin/busybox", "bin/sh", "dev/console", "lib/modules/9p.ko",
                  "lib/modules/virtio_pci.ko"]:
        assert entry in listing
    init = subprocess.run(f"zcat {out} | cpio -i --quiet --to-stdout init", shell=True,
                          capture_output=True, check=True).stdout.decode()
    assert init == render.qemu_init_script(board)


def test_missing_module_is_named(kernel_tree):
    next(kernel_tree.rglob("9pnet_virtio.ko")).unlink()
    with pytest.raises(image.ImageError, match="9pnet_virtio.ko not found"):
        image.ensure_initramfs(bc.load_board("qemu-x86_64"))


def test_root_share_needs_the_agent_and_the_key(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "rt_cell_build_dir", lambda: tmp_path)
    with pytest.raises(image.ImageError, match="RT cell agent not built"):
        image.ensure_root_share(agent_lib=tmp_path / "nolib", deploy_pub=tmp_path / "k.pub")
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "a.jar").write_bytes(b"PK")
    with pytest.raises(image.ImageError, match="deploy public key missing"):
        image.ensure_root_share(agent_lib=lib, deploy_pub=tmp_path / "k.pub")
