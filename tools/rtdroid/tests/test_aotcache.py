"""The Android cell's AOT cache is used only while it is newer than what it was made from."""
import os

from rtdroid import aotcache


def _dist(tmp_path, monkeypatch):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "a.jar").write_bytes(b"jar")
    (tmp_path / "jvm.args").write_text("-Xmx1g\n")
    monkeypatch.setenv("RTDROID_ANDROID_CELL_DIST", str(tmp_path))
    return tmp_path


def test_the_cache_is_used_only_while_newer_than_every_jar_and_the_jvm_args(tmp_path, monkeypatch):
    dist = _dist(tmp_path, monkeypatch)
    argv = ["taskset", "-c", "0", "/jdk/bin/java", "-Xmx1g", "-cp", "x", "Main"]
    assert not aotcache.fresh() and aotcache.with_cache(argv) == argv  # no cache yet
    cache = dist / "android-cell.aot"
    cache.write_bytes(b"aot")
    assert aotcache.fresh()
    assert aotcache.with_cache(argv) == argv[:4] + [f"-XX:AOTCache={cache}"] + argv[4:]
    t = cache.stat().st_mtime
    os.utime(dist / "lib" / "a.jar", (t + 10, t + 10))  # a rebuilt jar: the cache is stale
    assert not aotcache.fresh() and aotcache.with_cache(argv) == argv


def test_the_benchmark_baseline_switches_it_off(tmp_path, monkeypatch):
    dist = _dist(tmp_path, monkeypatch)
    (dist / "android-cell.aot").write_bytes(b"aot")
    monkeypatch.setenv("RTDROID_ANDROID_AOT", "off")
    assert aotcache.fresh() and aotcache.jvm_flags() == []
