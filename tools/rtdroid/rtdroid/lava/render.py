"""Render a board file into what a LAVA lab needs for it: a device-type template (where LAVA ships
none that fits), a device dictionary and a job definition.

How a board maps onto LAVA's model. A LAVA test shell runs where the board's Robot suites run: on
the board's root side, the Linux that hosts the Android cell and starts the RT cell (Jailhouse's
root cell, Xen's dom0; on this project's emulated and host boards, the machine that runs QEMU and
the Android cell's JVM). The suites boot the board themselves (`rtdroid board up`, the same QEMU
command lines `rtdroid board render` shows), restart and kill its cells, and bring it down, so the
LAVA job's part is to reach that root side, run the suites under the board lock, and turn Robot's
results into LAVA test cases (`rtdroid lava robot`). On a real board LAVA boots the root side
first (u-boot: kernel, device tree, root file system with the project's build); on the emulated
boards the root side is the worker's own host, reached over ssh (LAVA's `ssh` device type), so
the emulated boards' devices need no serial line or power switch.

Deterministic and machine-independent like the other renderers: the golden files under
hypervisor-cells/lava/golden/ hold the local lab's values (ssh on 127.0.0.1:2222 with the lab's key).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .. import boardtests, paths
from ..boardconfig import Board
from . import images as lava_images
from . import qemu_boot
from .build import Build, example
from .images import Image

def suite_files() -> dict[str, Path]:
    """Every Robot suite, by the name board files, jobs and `rtdroid lava robot --suite` use (the
    file's name without its order prefix: 02_deploy.robot -> deploy), in their order."""
    return {re.sub(r"^\d+_", "", f.stem): f for f in sorted(boardtests.suites_dir().glob("*.robot"))}


# Hypervisors whose boards `rtdroid board up` runs on this project's own machines (their root side
# is the worker's host); the others (Jailhouse) need their real board in a lab.
ROOT_SIDE_ON_HOST = ("process", "qemu", "xen")

# Each suite runs in its own LAVA test action: it waits for the board lock (another user's board
# run), boots the board, runs and tears down. A bound on all of that, not a timing goal.
SUITE_TIMEOUT_MINUTES = 40
BOOT_ONLY_MINUTES = 20  # a real board's TFTP deploy (10) and u-boot boot (5), with room

IDENTITY_FILE = "/etc/lava-server/dispatcher-config/device/rtdroid-lab_ed25519"


@dataclass
class Site:
    """Where the lab reaches a board's root side (the local lab's defaults)."""
    ssh_host: str = "127.0.0.1"
    ssh_port: int = 2222
    ssh_user: str = "root"
    identity_file: str = IDENTITY_FILE
    # Where a real lab publishes the project's build for its boards to deploy (the root file
    # system with build/ in /opt/rtdroid, the root kernel, the device tree).
    artifacts_url: str = "https://artifacts.example.org/rtdroid"
    device_index: int = 1
    extra: dict = field(default_factory=dict)


# Real boards: LAVA's own device type for their hardware (LAVA ships the template).
REAL_DEVICE_TYPES = {"jailhouse-rpi4": "bcm2711-rpi-4-b"}


class NotALabBoard(RuntimeError):
    pass


def device_type(board: Board) -> str:
    """The LAVA device type of a board's devices: LAVA's own for a real board's hardware; for a
    board whose root side is this project's host, one of its own, rtdroid-<board>."""
    if board.name in REAL_DEVICE_TYPES:
        return REAL_DEVICE_TYPES[board.name]
    if not runs_on_host(board):
        raise NotALabBoard(f"board {board.name}: no LAVA device type (a {board.hypervisor} board that is "
                           f"neither run here nor a known real board: {', '.join(REAL_DEVICE_TYPES)})")
    return f"rtdroid-{board.name}"


def is_lab_board(board: Board) -> bool:
    return board.name in REAL_DEVICE_TYPES or runs_on_host(board)


def device_name(board: Board, site: Site) -> str:
    return f"{board.name}-{site.device_index:02d}"


def suites_for(board: Board) -> list[str]:
    """The suites `make robot` runs on this board: its board file's `tests.suites`, in run order;
    none for a board whose file has no `tests:` section (a real board nobody has set budgets for:
    its job boots it and runs nothing until its file says what to run and within which budgets)."""
    if "tests" not in board.data:
        return []
    return [re.sub(r"^\d+_", "", f.stem) for f in boardtests.suite_files(board)]


def runs_on_host(board: Board) -> bool:
    return board.hypervisor in ROOT_SIDE_ON_HOST


def _header(board: Board, what: str) -> str:
    return (f"{{# {what} for board {board.name}, rendered by `rtdroid lava render` from "
            f"{board.source} #}}\n")


def device_type_template(board: Board) -> str | None:
    """The device-type template of a board whose root side is a host reached over ssh; None for
    a real board (LAVA ships its hardware's template)."""
    if not runs_on_host(board):
        return None
    return (f"{{# device_type: {device_type(board)} #}}\n" + _header(board, "Device type")
            + "{# The board's root side: the Linux host that runs its Android cell and starts its RT cell\n"
              "   (`rtdroid board up`), reached over ssh; its test shells run the Robot suites there. #}\n"
              "{% extends 'ssh.jinja2' %}\n"
              "{% block schroot %}{% endblock schroot %}\n")


def device_dictionary(board: Board, site: Site) -> str:
    t = device_type(board)
    out = f"{{# device_type: {t} #}}\n" + _header(board, f"Device {device_name(board, site)}")
    out += f"{{% extends '{t}.jinja2' %}}\n"
    if runs_on_host(board):
        out += (f"{{% set ssh_host = '{site.ssh_host}' %}}\n"
                f"{{% set ssh_port = {site.ssh_port} %}}\n"
                f"{{% set ssh_user = '{site.ssh_user}' %}}\n"
                f"{{% set ssh_identity_file = '{site.identity_file}' %}}\n")
    else:
        # A real board: its serial console, power switch and network boot, as the lab wires them.
        out += ("{% set connection_command = 'telnet ser2net-host 7001' %}\n"
                "{% set hard_reset_command = 'pduclient --hostname pdu --port 1 --command reboot' %}\n"
                "{% set power_off_command = 'pduclient --hostname pdu --port 1 --command off' %}\n"
                "{% set power_on_command = 'pduclient --hostname pdu --port 1 --command on' %}\n")
    return out


def board_argument(board: Board) -> str:
    """How a job names the board on its root side: by name, or by its file's path (relative to the
    checkout) for a board file outside board-configs/ (a lab's variant of a board)."""
    return board.name if board.source == f"board-configs/{board.name}.yaml" else board.source


def _robot_step(board: Board, suite: str, robot_variables: dict[str, str], board_arg: str | None,
                variables: str | None, build: Build | None, images: bool = False) -> str:
    cmd = ["flock", '"$RTDROID_BOARD_LOCK"', "build/venv/bin/rtdroid", "lava", "robot",
           "--board", board_arg or board_argument(board), "--suite", suite]
    if images:  # the board boots the images the job deployed
        cmd += ["--images", lava_images.DOWNLOADS]
    # the kernels the job names: the suite reports what its booted cells run against them
    for cell, release in (build.kernels if build else {}).items():
        cmd += ["--expect", f"kernel.{cell}={release}"]
    if variables:
        cmd += ["--variables", variables]
    for k, v in sorted(robot_variables.items()):
        cmd += ["--robot-variable", f"{k}:{v}"]
    return " ".join(cmd)


def test_definition(board: Board, suite: str, robot_variables: dict[str, str] | None = None,
                    board_arg: str | None = None, variables: str | None = None, build: Build | None = None,
                    images: bool = False) -> dict:
    """One Robot suite as a LAVA test definition, run on the board's root side. The root side's
    login sets RTDROID_HOME (the project's checkout or installed build) and RTDROID_BOARD_LOCK (the
    lock every user of the board's machine takes around a run)."""
    name = f"robot-{suite}"
    return {
        "from": "inline",
        "name": name,
        "path": f"inline/{name}.yaml",
        "repository": {
            "metadata": {
                "format": "Lava-Test Test Definition 1.0",
                "name": name,
                "description": f"the {suite} Robot suite on board {board.name}: one LAVA test case per "
                               f"Robot test, its figures as measurements",
            },
            "run": {"steps": [
                'cd "$RTDROID_HOME"',
                _robot_step(board, suite, robot_variables or {}, board_arg, variables, build, images),
            ]},
        },
    }


def build_definition(board: Board, build: Build, board_arg: str | None = None) -> dict:
    """The job's first test definition: the commit the root side runs, as LAVA test cases (their
    values as references), failed where it is not the build the job names. The kernels are each
    suite's to report, as its booted cells run them (`rtdroid lava robot --expect kernel.CELL=K`)."""
    cmd = ["build/venv/bin/rtdroid", "lava", "build", "--board", board_arg or board_argument(board)]
    for k, v in build.metadata().items():
        if k.startswith("build."):
            cmd += ["--expect", f"{k}={v}"]
    return {
        "from": "inline",
        "name": "build",
        "path": "inline/build.yaml",
        "repository": {
            "metadata": {
                "format": "Lava-Test Test Definition 1.0",
                "name": "build",
                "description": f"the commit board {board.name} runs: one LAVA test case each, its value as "
                               f"the reference",
            },
            "run": {"steps": ['cd "$RTDROID_HOME"', " ".join(cmd)]},
        },
    }


def images_deploy(images: dict[str, Image]) -> dict:
    """LAVA downloads the board's images (from the lab's file or HTTP location) into the job's
    directory on the worker and checks each SHA-256, before the root side is reached: a job whose
    images are not what it names ends Incomplete there. Its own namespace: no test shell in it."""
    return {"deploy": {"namespace": lava_images.NAMESPACE, "to": "downloads", "timeout": {"minutes": 10},
                       "images": {name.split(".")[0]: {"url": i.url, "sha256sum": i.sha256}
                                  for name, i in images.items()}}}


def _boot_and_deploy(board: Board, site: Site) -> list[dict]:
    if runs_on_host(board):
        return [
            {"deploy": {"to": "ssh", "os": "debian", "timeout": {"minutes": 2}}},
            {"boot": {"method": "ssh", "connection": "ssh", "prompts": ["root@[^:]*:[^#]*# "],
                      "timeout": {"minutes": 2}}},
        ]
    # A real board: LAVA boots its root side (kernel, device tree, NFS root with the project's
    # build in /opt/rtdroid) with u-boot; `rtdroid board up` there starts the RT cell.
    base = f"{site.artifacts_url}/{board.name}"
    return [
        {"deploy": {"to": "tftp", "os": "debian", "timeout": {"minutes": 10},
                    "kernel": {"url": f"{base}/Image", "type": "image"},
                    "dtb": {"url": f"{base}/{board.name}.dtb"},
                    "nfsrootfs": {"url": f"{base}/rootfs.tar.xz", "compression": "xz"}}},
        {"boot": {"method": "u-boot", "commands": "nfs", "prompts": ["root@[^:]*:[^#]*# "],
                  "auto_login": {"login_prompt": "login:", "username": "root"},
                  "timeout": {"minutes": 5}}},
    ]


def job_definition(board: Board, site: Site | None = None, suites: list[str] | None = None,
                   robot_variables: dict[str, str] | None = None, board_arg: str | None = None,
                   variables: str | None = None, name: str | None = None, build: Build | None = None,
                   images: dict[str, Image] | None = None) -> dict:
    """A board's job. With a build (its commit and kernels), the job names it in its metadata and
    its first test definition reports what the root side runs (`build_definition`). With images
    (lava.images.publish), LAVA deploys them and every suite boots the board from LAVA's copies."""
    site = site or Site()
    suites = suites or suites_for(board)
    definitions = [test_definition(board, s, robot_variables, board_arg, variables, build, bool(images))
                   for s in suites]
    if build and definitions:
        definitions.insert(0, build_definition(board, build, board_arg))
    clock = board.rt.get("clock", {}).get("kind", "host")
    job = {
        "device_type": device_type(board),
        "job_name": name or (f"rtdroid {board.name}: Robot suites {', '.join(suites)}" if suites else
                             f"rtdroid {board.name}: boot only (its board file has no tests: section)"),
        "priority": "medium",
        "visibility": "public",
        # LAVA refuses a job whose default action timeout exceeds the job's ("Global timeout is
        # larger than job timeout"): a boot-only job's actions get what its deploy and boot need.
        "timeouts": {
            "job": {"minutes": 10 + SUITE_TIMEOUT_MINUTES * len(suites) if suites else BOOT_ONLY_MINUTES},
            "action": {"minutes": SUITE_TIMEOUT_MINUTES if suites else BOOT_ONLY_MINUTES},
            "connection": {"minutes": 2},
        },
        "metadata": {
            "board": board.name,
            "board.file": board.source,
            "board.hypervisor": board.hypervisor,
            "board.rt-clock": "virtual time (QEMU icount)" if clock == "virtual" else "host clock",
            **(build.metadata() if build else {}),
        },
        "actions": _in_namespace([images_deploy(images)] if images else [], ROOT_SIDE_NAMESPACE if images else None,
                                 _boot_and_deploy(board, site) + ([
            {"test": {"timeout": {"minutes": SUITE_TIMEOUT_MINUTES},
                      "definitions": definitions}},
        ] if definitions else [])),
    }
    return job


# A job with images has two namespaces: LAVA's downloads (lava.images.NAMESPACE) and the root
# side's (reached over ssh, where the test shell runs). LAVA refuses a job that names some of its
# actions' namespaces and not others.
ROOT_SIDE_NAMESPACE = "root-side"


def _in_namespace(first: list[dict], namespace: str | None, actions: list[dict]) -> list[dict]:
    if namespace:
        actions = [{kind: {"namespace": namespace, **params}} for a in actions for kind, params in a.items()]
    return first + actions


# The suite a board's health check runs: board up, both cells ready, board down.
HEALTH_CHECK_SUITE = "board"


def health_check(board: Board, site: Site | None = None) -> dict | None:
    """The health check of a board's device type: the job LAVA runs on each of its devices before
    they take jobs (and again every 24 hours, LAVA's default), marking a device Good when it
    completes and Bad, out of service, when it ends Incomplete: the board did not come up (its
    cells did not both report ready: `rtdroid lava robot` raises) or could not be reached. A failed Robot test of the suite (a boot over
    its budget) is a failed test case in a Complete job: the board works, its figures are judged
    by the jobs. None for a board whose device type is LAVA's own (a real board's hardware: the
    lab's health check for that type applies)."""
    if not runs_on_host(board):
        return None
    suites = [HEALTH_CHECK_SUITE] if HEALTH_CHECK_SUITE in suites_for(board) else []
    return job_definition(board, site, suites=suites,
                          name=f"rtdroid {board.name}: health check (board up, both cells ready, board down)")


def job_yaml(board: Board, **kw) -> str:
    text = yaml.safe_dump(job_definition(board, **kw), sort_keys=False, width=1000, allow_unicode=True)
    return (f"# LAVA job for board {board.name}, rendered by `rtdroid lava render` from {board.source}\n"
            + text)


def rendered_files(board: Board, site: Site | None = None, build: Build | None = None,
                   images: dict[str, Image] | None = None) -> dict[str, str]:
    """Relative path -> content: devices/<device>.jinja2, device-types/<type>.jinja2 and
    health-checks/<type>.yaml (when LAVA has none), jobs/<board>.yaml naming the build (the golden
    files' placeholder one by default). A health check names no build: the lab installs it once and
    runs it on whatever the root side has, to see the board come up."""
    site = site or Site()
    if images is None and lava_images.deploys_images(board):
        images = lava_images.example(board, site.artifacts_url)
    files = {f"devices/{device_name(board, site)}.jinja2": device_dictionary(board, site),
             f"jobs/{board.name}.yaml": job_yaml(board, site=site, build=build or example(board), images=images)}
    t = device_type_template(board)
    if t is not None:
        files[f"device-types/{device_type(board)}.jinja2"] = t
    if qemu_boot.applies(board) and images:  # the RT cell booted by LAVA's own QEMU boot method
        sub = qemu_boot.SUBDIR
        files[f"{sub}/device-types/{qemu_boot.device_type(board)}.jinja2"] = qemu_boot.device_type_template(board)
        files[f"{sub}/devices/{board.name}-lava-qemu-{site.device_index:02d}.jinja2"] = \
            qemu_boot.device_dictionary(board, site.device_index)
        meta = job_definition(board, site, build=build or example(board), images=images)["metadata"]
        job = qemu_boot.job_definition(board, images, {k: v for k, v in meta.items() if k != "kernel.android"})
        files[f"{sub}/jobs/{board.name}.yaml"] = (
            f"# LAVA job for board {board.name}'s RT cell booted by LAVA's QEMU boot method, rendered by "
            f"`rtdroid lava render` from {board.source}\n" + yaml.safe_dump(job, sort_keys=False, width=1000))
    hc = health_check(board, site)
    if hc is not None:
        files[f"health-checks/{device_type(board)}.yaml"] = (
            f"# LAVA health check of device type {device_type(board)}, rendered by `rtdroid lava render` "
            f"from {board.source}\n" + yaml.safe_dump(hc, sort_keys=False, width=1000, allow_unicode=True))
    return files


def golden_dir() -> Path:
    return paths.hypervisor_cells_dir() / "lava" / "golden"


def compare_with_golden(board: Board) -> list[str]:
    bad = []
    for name, text in rendered_files(board).items():
        p = golden_dir() / name
        if not p.is_file() or p.read_text(encoding="utf-8") != text:
            bad.append(str(p))
    return bad


def write(board: Board, directory: Path, site: Site | None = None, build: Build | None = None,
          images: dict[str, Image] | None = None) -> list[Path]:
    out = []
    for name, text in rendered_files(board, site, build, images).items():
        p = directory / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        out.append(p)
    return out
