import pytest

from xcc import region as R


@pytest.fixture
def region_file(tmp_path):
    """A small formatted region in a file (R=3, S=8, 256-byte slots)."""
    path = tmp_path / "test.region"
    R.format(path, rings=3, slots=8, slot_bytes=256)
    return path
