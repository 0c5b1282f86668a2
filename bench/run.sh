#!/bin/sh
# Runs one benchmark (or all) with the JVM settings the RT cell uses, then plots it.
#   bench/run.sh <looper|periodic|channels|alarm|sensor|sensor-papabench|tasks|reflection|all> [--quick] [--seconds S] [--cpu N]
#   bench/run.sh looper,sensor --quick   (a comma-separated list: each in turn in one JVM, same options)
#   bench/run.sh reflection --board B [--quick | --seconds S]   (in board B's RT cell: tools/bench.py)
# BENCH_PLOT=off: JSON only (bench/figures draws its own plots from the JSON).
# Needs: `mvn -B -q -pl bench -am install -DskipTests` (jar + target/lib), the venv build/venv
# (matplotlib) for the PNG, and rt-tests (cyclictest) for the periodic baseline.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
JAR=$(ls "$ROOT"/bench/target/rtdroid-bench-*.jar 2>/dev/null | head -n 1 || true)
if [ -z "$JAR" ] || [ ! -d "$ROOT/bench/target/lib" ]; then
  echo "bench/run.sh: bench is not built; run: mvn -B -q -pl bench -am install -DskipTests" >&2
  exit 2
fi
PYTHON="$ROOT/build/venv/bin/python"
PLOT=""
if [ "${BENCH_PLOT:-on}" = off ]; then
  :
elif [ -x "$PYTHON" ]; then
  PLOT="--python $PYTHON --plot-script $ROOT/bench/plot.py"
else
  echo "bench/run.sh: no $PYTHON; JSON only, no plot" >&2
fi
if [ $# -eq 0 ]; then
  set -- --help
fi
NAME=$1
shift
LOG_NAME=$(printf %s "$NAME" | tr , +)
# --board B: the benchmark in board B's RT cell, in the cell's time base (tools/bench.py brings the
# board up, runs it as the cell's JVM probe, brings it down): reflection only.
for a in "$@"; do
  if [ "$a" = "--board" ]; then
    exec "$PYTHON" "$ROOT/tools/bench.py" --only "$NAME" "$@"
  fi
done
# Generational ZGC (the only ZGC mode in Java 25), a fixed, pre-touched heap so mlockall covers it.
# The JVM's safepoints, handshakes and GC pauses are logged (asynchronously, by the VM's own
# threads, never the measuring ones) to build/bench/<name>-jvm.log: stalls of the Java participants
# can be matched against them.
# Defaults first, so a --out given on the command line wins, and BENCH_JAVA_OPTS after the fixed
# flags, so an option given there (e.g. -XX:SafepointTimeoutDelay=20) wins over the default.
mkdir -p "$ROOT/build/bench"
# 1 GiB, not the RT cell's 256 MiB: the fall detection's memory workload (SensorBench, 30 and 100
# threads of the dissertation's 2.5 MB Integer arrays) outgrows 256 MiB and ends in OutOfMemoryError.
# BENCH_HEAP_MIB=256 measures with the host board's RT cell's heap (board-configs/host.yaml).
HEAP_MIB=${BENCH_HEAP_MIB:-1024}
# The RT cell's JVM-thread priority, JIT and perf-data flags (tools/rtdroid/rtdroid/render.py,
# RT_GC_ARGS, RT_JIT_ARGS, RT_PERF_ARGS and RT_DIAG_ARGS; its test_render.py holds this file to them): the VM
# thread and the GC's threads at nice -10, above ordinary Java threads and below the real-time
# ones, the JIT's at nice 0 with the ordinary threads; no uncommon traps, so a real-time thread never falls back to the interpreter
# mid-run; no memory-mapped perf-data file, whose page writes can block behind disk write-back; a
# safepoint that waits 200 ms for a thread names the threads that have not reached it.
# shellcheck disable=SC2086
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED \
  -XX:+UseZGC -Xms${HEAP_MIB}m -Xmx${HEAP_MIB}m -XX:+AlwaysPreTouch -XX:ThreadPriorityPolicy=1 -XX:JavaPriority9_To_OSPriority=-10 -XX:CompilerThreadPriority=0 \
  -XX:PerMethodTrapLimit=0 -XX:PerBytecodeTrapLimit=0 -XX:-UseTypeSpeculation -XX:-UsePerfData \
  -XX:+SafepointTimeout -XX:SafepointTimeoutDelay=200 \
  -Xlog:async -Xlog:safepoint=info,handshake=info,gc=info:file="$ROOT/build/bench/$LOG_NAME-jvm.log":uptime,tid \
  -Drtdroid.home="$ROOT" ${BENCH_JAVA_OPTS:-} \
  -cp "$JAR:$ROOT/bench/target/lib/*" org.rtdroid.bench.Main "$NAME" --out "$ROOT/build/bench" $PLOT "$@"
