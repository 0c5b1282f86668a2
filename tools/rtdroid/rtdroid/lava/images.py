"""The images a LAVA job deploys for a board: the files its RT cell boots (hypervisor.images():
on qemu-x86_64 the kernel and the initramfs with the agent and the deployment key; on the Xen
boards Xen, the domUs' kernel and each domU's initramfs), published
where the lab's dispatcher fetches them, with their SHA-256.

The job's first action downloads them (`deploy: to: downloads`), and LAVA checks each checksum
(the job ends Incomplete on a mismatch, before anything boots). Its suites then boot the board
from LAVA's copies (`rtdroid lava robot --images DIR` -> `rtdroid board up --images DIR`), so the
lab verifies the images it boots: what the build made, byte for byte, at the URL the job names.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from .. import hypervisors, paths
from ..boardconfig import Board
from ..digest import file_digest
from ..progress import Progress

# Where LAVA's dispatcher puts a `to: downloads` deploy of namespace NAMESPACE (lava_dispatcher's
# DISPATCHER_DOWNLOAD_DIR/<job id>/downloads/<namespace>), as the job's test shell spells it: the
# shell's environment names the job (LAVA_JOB_ID). The emulated boards' root side is the worker's
# own host, so the test shell reads the files the dispatcher wrote.
NAMESPACE = "images"
DOWNLOADS = f'"/var/lib/lava/dispatcher/tmp/$LAVA_JOB_ID/downloads/{NAMESPACE}"'


@dataclass(frozen=True)
class Image:
    url: str
    sha256: str


def deploys_images(board: Board) -> bool:
    """Whether a job deploys images for this board: its RT cell boots images of its own that
    `board up --images` can boot (the qemu and xen boards)."""
    return hypervisors.get(board.hypervisor).boots_deployed_images


def example(board: Board, base_url: str) -> dict[str, Image]:
    """The golden jobs' images: the names the board boots at a lab's URL, placeholder checksums."""
    names = hypervisors.get(board.hypervisor).image_names(board)
    return {n: Image(f"{base_url}/{board.name}/{n}", f"SHA256-{n.split('.')[0].upper()}") for n in names}


def publish(board: Board, directory: Path | None = None, out=print) -> dict[str, Image]:
    """Builds the board's images when stale and copies them to DIRECTORY/<board>/ (default
    build/lab/images: the local lab's file:// location), each with its SHA-256. A copy whose
    digest matches is left alone."""
    directory = (directory or paths.build_dir() / "lab" / "images") / board.name
    hv = hypervisors.get(board.hypervisor)
    built = hv.images(board, Progress(1, lambda line: out(f"{board.name}: {line}")))
    directory.mkdir(parents=True, exist_ok=True)
    published = {}
    for name, src in built.items():
        dst = directory / name
        digest = file_digest(src)
        if not dst.is_file() or file_digest(dst) != digest:
            tmp = dst.with_name(dst.name + ".tmp")
            shutil.copyfile(src, tmp)
            tmp.replace(dst)
        published[name] = Image(dst.resolve().as_uri(), digest)
    return published
