"""The figures' tests read what one quick run of `bench/figures/figures.py` wrote."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
FIGURES = HERE.parent
ROOT = FIGURES.parents[1]
sys.path.insert(0, str(FIGURES))


@pytest.fixture(scope="session")
def quick_run() -> Path:
    """Runs the quick form once (or takes FIGURES_OUT, a directory a quick run already wrote)."""
    given = os.environ.get("FIGURES_OUT")
    if given:
        out = Path(given)
    else:
        out = ROOT / "build" / "report" / "figures-test"
        subprocess.run([sys.executable, str(FIGURES / "figures.py"), "--form", "quick", "--out", str(out)], cwd=ROOT)
    assert (out / "index.json").is_file(), f"no {out / 'index.json'}: the quick run did not finish"
    return out


@pytest.fixture(scope="session")
def summary(quick_run) -> dict:
    return json.loads((quick_run / "index.json").read_text())
