"""atheris target: board files. Any text given as a board file is accepted as a Board or refused
with BoardConfigError (each problem with its path, value, rule and line); anything else is a
finding. Board files come from users and from other machines' repositories."""
import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["rtdroid.boardconfig"]):
    from rtdroid.boardconfig import BoardConfigError, load_board

_DIR = Path(tempfile.mkdtemp(prefix="board-fuzz-"))
_FILE = _DIR / "fuzz.yaml"


def test_one(data: bytes) -> None:
    _FILE.write_bytes(data)
    try:
        load_board(str(_FILE))
    except BoardConfigError as e:
        assert e.problems, "a refusal names at least one problem"


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one)
    atheris.Fuzz()
