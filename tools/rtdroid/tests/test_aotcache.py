"""The Android cell's AOT cache is used only while the cell's jars and JVM arguments hold the
bytes it was trained on: a rebuild that rewrites a jar with the same bytes keeps it, a jar with
different bytes makes it stale."""
import json
import os

from rtdroid import aotcache, digest


def _dist(tmp_path, monkeypatch):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "a.jar").write_bytes(b"jar")
    (tmp_path / "jvm.args").write_text("-Xmx1g\n")
    monkeypatch.setenv("RTDROID_ANDROID_CELL_DIST", str(tmp_path))
    monkeypatch.setattr(digest, "_memo_path", lambda: tmp_path / "digests.json")
    return tmp_path


def _trained(dist):
    """What a training run leaves: the cache and the digests of what it was trained on."""
    (dist / "android-cell.aot").write_bytes(b"aot")
    (dist / "android-cell.aot.key").write_text(json.dumps(aotcache._inputs_key()))
    return dist / "android-cell.aot"


def test_the_cache_is_used_only_while_the_jars_and_jvm_args_are_those_it_was_trained_on(tmp_path, monkeypatch):
    dist = _dist(tmp_path, monkeypatch)
    argv = ["taskset", "-c", "0", "/jdk/bin/java", "-Xmx1g", "-cp", "x", "Main"]
    assert not aotcache.fresh() and aotcache.with_cache(argv) == argv  # no cache yet
    cache = _trained(dist)
    assert aotcache.fresh()
    assert aotcache.with_cache(argv) == argv[:4] + [f"-XX:AOTCache={cache}"] + argv[4:]
    jar = dist / "lib" / "a.jar"
    trained_mtime = jar.stat().st_mtime_ns
    jar.write_bytes(b"jar")  # rewritten by a rebuild, same bytes: still the cache's
    t = cache.stat().st_mtime
    os.utime(jar, (t + 10, t + 10))
    assert aotcache.fresh()
    # The JVM refuses a cache whose class-path jar has another mtime than at training, whatever
    # its bytes: using the cache gives the jar its training-time mtime back.
    assert aotcache.with_cache(argv) == argv[:4] + [f"-XX:AOTCache={cache}"] + argv[4:]
    assert jar.stat().st_mtime_ns == trained_mtime
    jar.write_bytes(b"JAR")  # different bytes: stale
    os.utime(jar, (t + 20, t + 20))  # (a later time than the digest remembered: the kernel's
    # file times are coarse, two writes in a row may carry the same one)
    assert not aotcache.fresh() and aotcache.with_cache(argv) == argv
    jar.write_bytes(b"jar")
    (dist / "jvm.args").write_text("-Xmx2g\n")  # other JVM arguments: stale
    assert not aotcache.fresh()


def test_a_cache_without_its_key_is_not_used(tmp_path, monkeypatch):
    dist = _dist(tmp_path, monkeypatch)
    (dist / "android-cell.aot").write_bytes(b"aot")
    assert not aotcache.fresh()


def test_the_benchmark_baseline_switches_it_off(tmp_path, monkeypatch):
    dist = _dist(tmp_path, monkeypatch)
    _trained(dist)
    monkeypatch.setenv("RTDROID_ANDROID_AOT", "off")
    assert aotcache.fresh() and aotcache.jvm_flags() == []


def test_a_key_of_the_older_format_means_training_again(tmp_path, monkeypatch):
    dist = _dist(tmp_path, monkeypatch)
    (dist / "android-cell.aot").write_bytes(b"aot")
    (dist / "android-cell.aot.key").write_text(json.dumps(aotcache._inputs_key()["digests"]))
    assert not aotcache.fresh()


def test_the_jvms_refusal_of_the_cache_is_found_in_the_cells_log():
    log = ("--- rtdroid: java ...\n"
           "[0.085s][warning][aot] This file is not the one used while building the shared archive file: "
           "'/d/lib/android-proxy.jar', timestamp has changed\n"
           "[0.093s][error  ][aot] Unable to map shared spaces\nANDROID CELL READY port=7411\n")
    assert aotcache.refusal(log).startswith("This file is not the one used while building")
    assert aotcache.refusal("ANDROID CELL READY port=7411\n") is None
