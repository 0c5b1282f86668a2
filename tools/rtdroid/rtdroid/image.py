"""The RT cell's image, assembled under build/rt-cell/ from what the set-up fetched (its /init and
the modules it loads are the hypervisor module's: qemu.py, xen.py):

- vmlinux: the ELF kernel unpacked from Debian's vmlinuz (a bzImage) so QEMU can boot it as PVH
  (~2.5 s to /init under TCG instead of ~5 s through SeaBIOS);
- root/: the RT cell's root, assembled here: a jlink'ed Java 25 runtime, the glibc it links, the
  RT cell agent's jars, the board's deploy public key and the characterisation probes (probes/);
- initrd.cpio: the initramfs, uncompressed (the kernel unpacks it with a memcpy, where gunzip under
  TCG costs seconds): busybox-static, /dev/console, the hypervisor module's /init, root/ at its
  guest root, and the kernel modules its /init loads (for qemu, qemu.GUEST_MODULES: the state
  disk's virtio-blk drivers, the SensorManager's input path evdev and uinput) from the kernel
  package as /lib/modules/<version>/<name>.ko.

Each piece is rebuilt only when its inputs changed (a stamp file records them).
"""
from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import json
import lzma
import os
import shutil
import stat
import subprocess
from pathlib import Path

from . import paths, probes
from .digest import file_digest, file_key


class ImageError(Exception):
    pass


# Modules the agent needs (java.base has Ed25519 and FFM; java.management/jdk.management for the
# thread allocation counters; jdk.unsupported for sun.misc.Unsafe users; java.xml for manifests).
JLINK_MODULES = ["java.base", "java.xml", "java.logging", "java.management", "jdk.management",
                 "jdk.unsupported", "jdk.crypto.ec", "jdk.zipfs"]

_COMPRESSIONS = [
    (b"\xfd7zXZ\x00", lambda b: lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(b)),
    (b"\x1f\x8b\x08", lambda b: gzip.GzipFile(fileobj=io.BytesIO(b)).read()),
    (b"BZh", lambda b: bz2.BZ2Decompressor().decompress(b)),
    (b"\x5d\x00\x00", lambda b: lzma.LZMADecompressor(format=lzma.FORMAT_ALONE).decompress(b)),
]


def kernel_dir() -> Path:
    return paths.rt_cell_build_dir() / "kernel"


def kernel_version() -> str:
    f = kernel_dir() / "VERSION"
    if not f.is_file():
        raise ImageError(f"no RT kernel fetched: {f} missing (run tools/fetch-kernel.sh or make setup)")
    return f.read_text().strip()


def vmlinuz_path() -> Path:
    return kernel_dir() / "boot" / f"vmlinuz-{kernel_version()}"


def kernel_modules(modules_dir: Path | None, names) -> dict[str, Path]:
    """The modules an /init loads (names: the hypervisor module says which), found in an
    unpacked kernel package's lib/modules/<version>/ (modules_dir; by default the qemu cell's
    kernel), as plain `.ko` or `.ko.xz` as newer Debian kernels ship them."""
    base = modules_dir or kernel_dir() / "lib" / "modules" / kernel_version()
    # One walk of the package's ~3,700 modules for all names (a walk per name and suffix cost
    # 0.2-0.6 s of every `board up`).
    by_file: dict[str, list[Path]] = {}
    for p in base.rglob("*.ko*"):
        by_file.setdefault(p.name, []).append(p)
    found = {}
    for name in names:
        hits = sorted(by_file.get(f"{name}.ko", [])) + sorted(by_file.get(f"{name}.ko.xz", []))
        if not hits:
            raise ImageError(f"kernel module {name}.ko of {base.name} not found under {base} "
                             "(the RT cell's state disk or sensor path needs it; fetch the kernel again: "
                             "tools/fetch-kernel.sh or tools/fetch-xen.sh)")
        found[name] = hits[0]
    return found


def add_modules(c: "_Cpio", version: str, modules: dict[str, Path]) -> None:
    """The modules as /lib/modules/<version>/<name>.ko, where /init's insmod looks for them."""
    module_dir = f"lib/modules/{version}"
    c.dir("lib/modules")
    c.dir(module_dir)
    for name, p in modules.items():
        c.file(f"{module_dir}/{name}.ko", _module_bytes(p))


def _module_bytes(p: Path) -> bytes:
    """busybox insmod loads plain ELF modules only: an xz-compressed one is unpacked here."""
    data = p.read_bytes()
    if p.name.endswith(".xz"):
        try:
            data = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(data)
        except lzma.LZMAError as e:
            raise ImageError(f"kernel module {p} does not decompress: {e}") from None
    if data[:4] != b"\x7fELF":
        raise ImageError(f"kernel module {p} is not an ELF object")
    return data


def check_kernel() -> Path:
    """The RT kernel must be there and readable; a clear error otherwise."""
    p = vmlinuz_path()
    if not p.is_file():
        raise ImageError(f"RT kernel missing: {p} (run tools/fetch-kernel.sh)")
    try:
        with open(p, "rb") as f:
            head = f.read(0x210)
    except OSError as e:
        raise ImageError(f"RT kernel unreadable: {p}: {e.strerror}") from None
    if len(head) < 0x206 or head[0x202:0x206] != b"HdrS":
        raise ImageError(f"RT kernel {p} is not a bzImage (no 'HdrS' boot header at 0x202)")
    return p


def extract_vmlinux(vmlinuz: Path, out: Path) -> bool:
    """Find the compressed payload inside a bzImage (as scripts/extract-vmlinux does) and write
    the ELF it contains. False when no payload decompresses to an ELF."""
    data = vmlinuz.read_bytes()
    for magic, decompress in _COMPRESSIONS:
        start = 0
        while True:
            pos = data.find(magic, start)
            if pos < 0:
                break
            start = pos + 1
            try:
                elf = decompress(data[pos:])
            except Exception:
                continue
            if elf[:4] == b"\x7fELF":
                tmp = out.with_suffix(".tmp")
                tmp.write_bytes(elf)
                tmp.replace(out)
                return True
    return False


def _stamp_ok(stamp: Path, key: dict) -> bool:
    try:
        return json.loads(stamp.read_text()) == key
    except (OSError, ValueError):
        return False


def ensure_kernel() -> Path:
    """The kernel QEMU boots: the extracted ELF vmlinux (PVH) when possible, else the bzImage."""
    vmlinuz = check_kernel()
    out = paths.rt_cell_build_dir() / "vmlinux"
    stamp = paths.rt_cell_build_dir() / "vmlinux.stamp"
    key = {"vmlinuz": file_key(vmlinuz)}
    if out.is_file() and _stamp_ok(stamp, key):
        return out
    if extract_vmlinux(vmlinuz, out):
        stamp.write_text(json.dumps(key))
        return out
    return vmlinuz


# --- initramfs: a newc cpio archive written here, so the result is byte-for-byte reproducible ---

class _Cpio:
    def __init__(self):
        self.buf = io.BytesIO()
        self.ino = 1

    def _entry(self, name: str, mode: int, data: bytes = b"", rdev=(0, 0), nlink=1):
        name_b = name.encode() + b"\0"
        hdr = "070701" + "".join(f"{v:08X}" for v in (
            self.ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rdev[0], rdev[1], len(name_b), 0))
        self.ino += 1
        self.buf.write(hdr.encode() + name_b)
        self.buf.write(b"\0" * ((4 - (110 + len(name_b)) % 4) % 4))
        self.buf.write(data)
        self.buf.write(b"\0" * ((4 - len(data) % 4) % 4))

    def dir(self, name):
        self._entry(name, stat.S_IFDIR | 0o755, nlink=2)

    def file(self, name, data: bytes, perm=0o644):
        self._entry(name, stat.S_IFREG | perm, data)

    def symlink(self, name, target: str):
        self._entry(name, stat.S_IFLNK | 0o777, target.encode())

    def chardev(self, name, major, minor, perm=0o600):
        self._entry(name, stat.S_IFCHR | perm, rdev=(major, minor))

    def finish(self) -> bytes:
        self._entry("TRAILER!!!", 0)
        return self.buf.getvalue()


BUSYBOX_APPLETS = ["ln", "sh", "mount", "umount", "insmod", "cat", "echo", "mkdir", "poweroff", "stat",
                   "uname", "ls", "sleep", "dmesg", "ps", "free", "top", "grep", "cut", "tail"]


def _tree_key(root: Path) -> list:
    return [[str(p.relative_to(root)), p.lstat().st_size,
             file_digest(p) if p.is_file() and not p.is_symlink() else os.readlink(p) if p.is_symlink() else ""]
            for p in sorted(root.rglob("*"))]


def _add_tree(c: "_Cpio", root: Path, prefix: str) -> None:
    """Everything under root as prefix/..., in sorted order, symlinks kept as symlinks."""
    for p in sorted(root.rglob("*")):
        name = f"{prefix}/{p.relative_to(root)}"
        if p.is_symlink():
            c.symlink(name, os.readlink(p))
        elif p.is_dir():
            c.dir(name)
        elif p.is_file():
            c.file(name, p.read_bytes(), stat.S_IMODE(p.stat().st_mode))


def ensure_initramfs(init_script: str, module_names, guest_root: str, busybox: Path = Path("/bin/busybox"),
                     root: Path | None = None) -> Path:
    """build/rt-cell/initrd.cpio: busybox, the hypervisor module's /init and kernel modules, and the
    RT cell's root (ensure_root_tree first) at guest_root."""
    out = paths.rt_cell_build_dir() / "initrd.cpio"
    stamp = paths.rt_cell_build_dir() / "initrd.stamp"
    root = root or root_tree_dir()
    init = init_script.encode()
    if not busybox.is_file():
        raise ImageError(f"{busybox} missing (apt-get install busybox-static)")
    if not (root / "jdk" / "bin" / "java").is_file():
        raise ImageError(f"the RT cell's root {root} has no jdk/bin/java (it is built by `board up`)")
    modules = kernel_modules(None, module_names)
    key = {"init": hashlib.sha256(init).hexdigest(), "busybox": file_key(busybox), "root": _tree_key(root),
           "modules": [file_key(p) for p in modules.values()]}
    if out.is_file() and _stamp_ok(stamp, key):
        return out
    c = _Cpio()
    for d in ("bin", "sbin", "dev", "etc", "proc", "sys", "tmp", "lib"):
        c.dir(d)
    c.chardev("dev/console", 5, 1)
    c.chardev("dev/null", 1, 3, 0o666)
    c.file("bin/busybox", busybox.read_bytes(), 0o755)
    for applet in BUSYBOX_APPLETS:
        c.symlink(f"bin/{applet}", "busybox")
    c.file("init", init, 0o755)
    add_modules(c, kernel_version(), modules)
    c.dir(guest_root.lstrip("/"))
    _add_tree(c, root, guest_root.lstrip("/"))
    raw = c.finish()
    tmp = out.with_suffix(".tmp")
    tmp.write_bytes(raw)
    tmp.replace(out)
    stamp.write_text(json.dumps(key))
    return out


# --- the RT cell's root (Java runtime, agent jars, deploy key) ---

def root_tree_dir() -> Path:
    return paths.rt_cell_build_dir() / "root"


def _jdeps_modules(lib: Path, java_home: Path) -> list[str]:
    jars = sorted(str(j) for j in lib.glob("*.jar"))
    if not jars:
        return []
    r = subprocess.run([str(java_home / "bin" / "jdeps"), "--print-module-deps", "--ignore-missing-deps",
                        "--multi-release", "25", "-q", "--class-path", os.pathsep.join(jars)] + jars,
                       capture_output=True, text=True)
    if r.returncode != 0:
        return []
    return [m for m in r.stdout.strip().split(",") if m]


def _copy_system_libs(jdk: Path, dest: Path) -> None:
    """The JDK's launcher and libraries are dynamically linked: the guest gets the host's glibc
    (the versions the JDK was checked against) in its root; /init points the loader at them."""
    wanted: set[str] = set()
    targets = [jdk / "bin" / "java"] + sorted(jdk.rglob("*.so"))
    for t in targets:
        r = subprocess.run(["ldd", str(t)], capture_output=True, text=True)
        for line in r.stdout.splitlines():
            parts = line.split()
            if "=>" in parts and len(parts) >= 3 and parts[2].startswith("/"):
                wanted.add(parts[2])
            elif parts and parts[0].startswith("/") and "ld-linux" in parts[0]:
                wanted.add(parts[0])
    wanted = {w for w in wanted if not Path(w).resolve().is_relative_to(jdk.resolve())}
    if not any("ld-linux" in w for w in wanted):
        raise ImageError("ldd found no dynamic loader for the jlink'ed java")
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for w in sorted(wanted):
        shutil.copy2(Path(w).resolve(), dest / Path(w).name)


def ensure_root_tree(agent_lib: Path | None = None, deploy_pub: Path | None = None,
                      java_home: Path | None = None) -> Path:
    java_home = java_home or paths.java_home()
    agent_lib = agent_lib or paths.rt_agent_lib_dir()
    deploy_pub = deploy_pub or (paths.keys_dir() / "deploy.pub")
    root = root_tree_dir()
    root.mkdir(parents=True, exist_ok=True)
    if not agent_lib.is_dir() or not any(agent_lib.glob("*.jar")):
        raise ImageError(f"RT cell agent not built: no jars in {agent_lib} "
                         "(run: mvn -B -q install from the repository root with JAVA_HOME=temurin-25)")
    if not deploy_pub.is_file():
        raise ImageError(f"deploy public key missing: {deploy_pub} (run: rtdroid keys)")
    jdk = root / "jdk"
    stamp = paths.rt_cell_build_dir() / "root.stamp"  # outside root/: it must not enter the initramfs
    jars_key = [file_key(j) for j in sorted(agent_lib.glob("*.jar"))]
    try:
        prev = json.loads(stamp.read_text())
    except (OSError, ValueError):
        prev = {}
    if prev.get("jars") == jars_key and prev.get("java") == file_key(java_home / "release"):
        modules = prev["modules"]  # jdeps takes seconds: reuse its answer while the jars are the same
    else:
        modules = sorted(set(JLINK_MODULES) | set(_jdeps_modules(agent_lib, java_home)))
    key = {"modules": modules, "java": file_key(java_home / "release"), "jars": jars_key}
    if not (jdk / "bin" / "java").is_file() or not (root / "glibc").is_dir() or prev.get("modules") != modules \
            or prev.get("java") != key["java"]:
        shutil.rmtree(jdk, ignore_errors=True)
        r = subprocess.run([str(java_home / "bin" / "jlink"), "--add-modules", ",".join(modules),
                            "--strip-debug", "--no-header-files", "--no-man-pages",
                            "--generate-cds-archive", "--output", str(jdk)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise ImageError(f"jlink failed: {r.stderr.strip() or r.stdout.strip()}")
        _copy_system_libs(jdk, root / "glibc")
    stamp.write_text(json.dumps(key))
    # Jars and key are copied only when they differ (copy2 keeps mtimes), so the root always
    # matches the build and an unchanged build leaves the initramfs stamp valid.
    lib = root / "lib"
    wanted = {j.name: j for j in sorted(agent_lib.glob("*.jar"))}
    lib.mkdir(exist_ok=True)
    for old in lib.iterdir():
        if old.name not in wanted:
            old.unlink()
    for name, j in wanted.items():
        _copy_if_changed(j, lib / name)
    keys = root / "keys"
    keys.mkdir(exist_ok=True)
    _copy_if_changed(deploy_pub, keys / "deploy.pub")
    # the characterisation probes the agent runs on request (rt-cell/probes, RTJPerf): x86_64
    guest_probes = root / probes.GUEST_DIR
    guest_probes.mkdir(exist_ok=True)
    wanted_probes = {p.name: p for p in probes.files("x86_64")}
    for old in guest_probes.iterdir():
        if old.name not in wanted_probes:
            old.unlink()
    for name, p in wanted_probes.items():
        _copy_if_changed(p, guest_probes / name)
    for stray in root.glob("*.aot"):
        stray.unlink()
    return root


def _copy_if_changed(src: Path, dest: Path) -> None:
    if dest.is_file() and dest.read_bytes() == src.read_bytes():
        return
    shutil.copy2(src, dest)

