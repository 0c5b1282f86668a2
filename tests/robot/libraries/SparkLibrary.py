"""Keywords for the spark detection app (seed 004, section 5): the truth its results are held to
and the checks of what the Android app shows.

The truth comes from the video itself, not from the app: the video library's own writer
(`org.rtdroid.video.Y4mWriter`, the bytes the RT cell reads) writes the YUV4MPEG2 stream, and
numpy finds, frame by frame, the pixels brighter than any background pixel and the rectangle that
bounds them. The RT cell's box for a frame must lie inside that rectangle; a frame without such
pixels must show no box.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # session.py

import numpy as np
from robot.api import logger
from robot.api.deco import keyword, library
from robot.libraries.BuiltIn import BuiltIn

from session import BUILD, ROOT, Keywords, cli, run

VIDEO_JAR = ROOT / "video" / "target" / "rtdroid-video-0.1.0-SNAPSHOT.jar"
JAVA = str(Path(os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64")) / "bin" / "java")
MAX_BACKGROUND_LUMA = 160  # SparkScene.MAX_BACKGROUND_LUMA: no background pixel is brighter


def read_y4m_luma(path: Path) -> np.ndarray:
    """The luma planes of a 4:2:0 YUV4MPEG2 file with plain FRAME tags, as (frames, height, width)."""
    data = path.read_bytes()
    end = data.index(b"\n")
    fields = data[:end].split()
    if fields[0] != b"YUV4MPEG2":
        raise AssertionError(f"{path}: not YUV4MPEG2")
    w = int(next(f for f in fields if f.startswith(b"W"))[1:])
    h = int(next(f for f in fields if f.startswith(b"H"))[1:])
    frame = 6 + w * h * 3 // 2
    body = np.frombuffer(data, dtype=np.uint8, offset=end + 1)
    n = body.size // frame
    frames = body[: n * frame].reshape(n, frame)
    if not (frames[:, :6] == np.frombuffer(b"FRAME\n", dtype=np.uint8)).all():
        raise AssertionError(f"{path}: a frame tag is not FRAME")
    return frames[:, 6 : 6 + w * h].reshape(n, h, w)


def truth_boxes(luma: np.ndarray) -> list[tuple[int, int, int, int] | None]:
    """Per frame, the rectangle (x0, y0, x1, y1, inclusive) of the pixels above the background, or None."""
    out = []
    for f in luma:
        ys, xs = np.nonzero(f > MAX_BACKGROUND_LUMA)
        out.append(None if xs.size == 0 else (int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())))
    return out


@library(scope="GLOBAL", auto_keywords=False)
class SparkLibrary(Keywords):
    def __init__(self):
        self._truth: list | None = None

    def truth(self) -> list:
        if self._truth is None:
            video = BUILD / "robot" / "sparks.y4m"
            video.parent.mkdir(parents=True, exist_ok=True)
            run([JAVA, "-cp", str(VIDEO_JAR), "org.rtdroid.video.Y4mWriter", str(video)], timeout=120)
            self._truth = truth_boxes(read_y4m_luma(video))
            events = [i for i, b in enumerate(self._truth) if b is not None]
            logger.info(f"the video: {len(self._truth)} frames, sparks or lightning on frames {events}")
        return self._truth

    @keyword
    def spark_history_should_match_the_video(self, frames: int = 60, events: int = 3, timeout_s: float = 60):
        """Reads the app's history of the last frames (``history``: ``"37 120,80,131,92"``, ``"38 -"``
        no box, ``"39 ?"`` not analysed) until ``frames`` frames, ``events`` of them with a spark or
        lightning, were checked against the video: a box inside the truth's rectangle on those, no
        box on the others."""
        truth = self.truth()
        checked: dict[int, str] = {}
        with_event = 0
        deadline = time.monotonic() + float(timeout_s)
        while len(checked) < int(frames) or with_event < int(events):
            if time.monotonic() > deadline:
                raise AssertionError(f"within {timeout_s} s only {len(checked)} frames ({with_event} with a spark) "
                                     f"were shown; expected {frames} ({events})")
            text = BuiltIn().run_keyword("View Text", "history")
            for line in text.splitlines():
                number, _, shown = line.partition(" ")
                n = int(number)
                if n in checked or shown == "?":
                    continue
                want = truth[n % len(truth)]
                if want is None:
                    if shown != "-":
                        raise AssertionError(f"frame {n}: the video has no spark there, the app shows box {shown}")
                else:
                    if shown == "-":
                        raise AssertionError(f"frame {n}: the video has a spark or lightning in {want}, the app shows no box")
                    x0, y0, x1, y1 = (int(v) for v in shown.split(","))
                    if not (want[0] <= x0 <= x1 <= want[2] and want[1] <= y0 <= y1 <= want[3]):
                        raise AssertionError(f"frame {n}: box {shown} is not inside the spark's {want}")
                    with_event += 1
                checked[n] = shown
            time.sleep(0.3)
        logger.info(f"{len(checked)} frames checked against the video, {with_event} with a spark or lightning: "
                    + ", ".join(f"{n}:{s}" for n, s in sorted(checked.items()) if s != "-"), also_console=True)

    @keyword
    def spark_detection_should_be_shown(self, timeout_s: float = 30) -> str:
        """Waits until the app shows a detection (``detection``: ``"frame 47: box 200,60 - 213,73"``,
        held on screen for 2 s) and checks it against the video."""
        truth = self.truth()
        deadline = time.monotonic() + float(timeout_s)
        while True:
            text = BuiltIn().run_keyword("View Text", "detection")
            if text.startswith("frame "):
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"no detection shown within {timeout_s} s: {text!r}")
            time.sleep(0.1)
        head, _, box = text.partition(": box ")
        n = int(head.split()[1])
        x0y0, _, x1y1 = box.partition(" - ")
        x0, y0 = (int(v) for v in x0y0.split(","))
        x1, y1 = (int(v) for v in x1y1.split(","))
        want = truth[n % len(truth)]
        if want is None or not (want[0] <= x0 <= x1 <= want[2] and want[1] <= y0 <= y1 <= want[3]):
            raise AssertionError(f"detection {text!r}: the video has {want} on frame {n}")
        logger.info(f"detection {text!r} lies inside the video's {want}", also_console=True)
        return text

    @keyword("Log The Spark Engine's Figures")
    def log_the_spark_engines_figures(self):
        """Logs ``rtdroid rt services``: the engine's line (``spark/SparkDetectionService.engine``:
        actions run, late ones, clobbered ones, the latest start), in the RT cell's time base as the
        command labels it (virtual time on emulated boards)."""
        out = cli("rt", "services").stdout
        engine = [line for line in out.splitlines() if ".engine" in line]
        if not engine:
            raise AssertionError(f"rt services shows no engine line:\n{out}")
        logger.info(out, also_console=True)

    @keyword
    def rt_trace_should_hold_the_spark_timelines(self, seconds: int = 5) -> str:
        """Writes ``rtdroid rt trace --seconds N`` and reads it back through Perfetto's trace protos:
        the engine's track holds read, parse, analyse and display slices in the seed's order, each
        ending after it begins, and the Android cell's track holds the proxy's spark.result broadcasts."""
        from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
        out = Path(os.environ.get("ROBOT_OUTPUT_DIR", BUILD / "robot")) / "spark.pftrace"
        cli("rt", "trace", "--seconds", str(seconds), "-o", str(out))
        trace = pb.Trace()
        trace.ParseFromString(out.read_bytes())
        names = {p.track_descriptor.uuid: (p.track_descriptor.name or p.track_descriptor.process.process_name)
                 for p in trace.packet if p.HasField("track_descriptor")}
        begins: dict[str, list[tuple[str, int]]] = {}
        for p in trace.packet:
            if p.HasField("track_event") and p.track_event.type == pb.TrackEvent.TYPE_SLICE_BEGIN:
                begins.setdefault(names[p.track_event.track_uuid], []).append((p.track_event.name, p.timestamp))
        engine = next((k for k in begins if k.startswith("spark/SparkDetectionService.engine (tid")), None)
        if engine is None:
            raise AssertionError(f"no engine track in the trace: {sorted(begins)}")
        order = [n for n, _ in begins[engine]]
        allowed = {"read": {"display"}, "parse": {"read"}, "analyse": {"parse"}, "display": {"analyse", "parse"}}
        for prev, cur in zip(order, order[1:]):
            if prev not in allowed.get(cur, set()):
                raise AssertionError(f"engine track: {cur} after {prev}")
        if [t for _, t in begins[engine]] != sorted(t for _, t in begins[engine]):
            raise AssertionError("engine track: slices out of time order")
        proxy = [k for k in begins if k.startswith("proxy broadcast spark.result")]
        if not proxy:
            raise AssertionError(f"no proxy broadcast track for spark.result: {sorted(begins)}")
        logger.info(f"{out.name}: {len(order)} engine actions, "
                    f"{sum(len(begins[k]) for k in proxy)} proxy broadcasts; tracks: {sorted(begins)}", also_console=True)
        return str(out)
