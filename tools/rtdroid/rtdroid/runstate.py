"""A board's run state (build/run/<board>/state.json: pids, paths, ports), the machine-wide
lock of `board up/down`, and SIGTERM/SIGHUP turned into an unwinding exception during `up`."""
from __future__ import annotations

import fcntl
import json
import signal
from contextlib import contextmanager
from pathlib import Path

from . import paths
from .errors import BoardError
from .procs import process_alive


def state_path(board: str) -> Path:
    return paths.run_dir(board) / "state.json"


def load_state(board: str) -> dict | None:
    try:
        return json.loads(state_path(board).read_text())
    except FileNotFoundError:
        return None
    except ValueError as e:
        raise BoardError(f"{state_path(board)} is corrupt ({e}); remove it after checking no cell runs")


def save_state(state: dict) -> None:
    p = state_path(state["board"])
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=2, sort_keys=True))
    tmp.replace(p)


def running_boards() -> list[tuple[str, dict]]:
    out = []
    root = paths.run_root()
    if not root.is_dir():
        return out
    for d in sorted(root.iterdir()):
        st = d / "state.json"
        if st.is_file():
            try:
                state = json.loads(st.read_text())
            except ValueError:
                continue
            if any(process_alive(c) for c in state.get("cells", {}).values()):
                out.append((d.name, state))
    return out


@contextmanager
def up_lock():
    """Only one `board up`/`down` at a time on this machine."""
    root = paths.run_root()
    root.mkdir(parents=True, exist_ok=True)
    f = open(root / ".lifecycle.lock", "w")
    try:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BoardError("another `rtdroid board up/down` is in progress on this machine") from None
        yield
    finally:
        f.close()


class Interrupted(BaseException):
    pass


@contextmanager
def signals_raise():
    """SIGTERM/SIGHUP during `up` unwind like Ctrl-C, so the teardown runs. SIGINT too when the
    process inherited it ignored (started as a background job of a script): Python then installs
    no KeyboardInterrupt, and a `kill -INT` would leave a half-started board behind."""
    def handler(signum, frame):
        raise Interrupted(signal.Signals(signum).name)
    signals = [signal.SIGTERM, signal.SIGHUP]
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signals.append(signal.SIGINT)
    old = {s: signal.signal(s, handler) for s in signals}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
