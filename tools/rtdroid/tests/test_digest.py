"""Stamps key on what a file holds: the digest follows the bytes, not the file's time, and a
remembered digest is used only for the size and time it was computed for."""
import hashlib
import os

from rtdroid import digest


def test_the_digest_follows_the_bytes_and_not_the_time(tmp_path, monkeypatch):
    monkeypatch.setattr(digest, "_memo_path", lambda: tmp_path / "digests.json")
    f = tmp_path / "a.jar"
    f.write_bytes(b"one")
    first = digest.file_key(f)
    assert first == [str(f), 3, hashlib.sha256(b"one").hexdigest()]
    os.utime(f, (1_000_000, 1_000_000))  # rewritten with the same bytes
    assert digest.file_key(f) == first
    f.write_bytes(b"two")  # same size, other bytes, another time
    os.utime(f, (2_000_000, 2_000_000))
    assert digest.file_key(f)[2] == hashlib.sha256(b"two").hexdigest()


def test_a_memo_that_cannot_be_read_or_written_costs_only_hashing_again(tmp_path, monkeypatch):
    memo = tmp_path / "digests.json"
    memo.write_text("{not json")
    monkeypatch.setattr(digest, "_memo_path", lambda: memo)
    f = tmp_path / "b"
    f.write_bytes(b"x")
    assert digest.file_digest(f) == hashlib.sha256(b"x").hexdigest()
    monkeypatch.setattr(digest, "_memo_path", lambda: tmp_path / "missing-dir" / "file" / "digests.json")
    (tmp_path / "missing-dir").write_text("a file where a directory would be")
    assert digest.file_digest(f) == hashlib.sha256(b"x").hexdigest()
