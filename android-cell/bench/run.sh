#!/bin/sh
# Runs one of the Android cell's benchmarks in the cell's framework sandbox, with the cell's JVM
# arguments (android-cell/target/dist/jvm.args):
#   android-cell/bench/run.sh <intents|tasks|broadcast|sensor|NAME,NAME...> [the benchmark's options] [--out DIR]
# intents: IntentDelayBench (seed 001's per-intent delays, k_nrt sweep, AMS and LocalBroadcastManager);
# tasks: TaskDurationBench (Table 4.2's Android column);
# broadcast: BroadcastBench (`make bench BENCH=broadcast`);
# sensor: SensorPathBench (Figs. 3.20-3.23's Android side: jPapaBench's sensor path on the main looper).
# Needs `make java` (android-cell/target/dist and android-cell/target/bench/lib).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
DIST="$ROOT/android-cell/target/dist"
LIB="$ROOT/android-cell/target/bench/lib"
if [ ! -f "$DIST/jvm.args" ] || [ ! -d "$LIB" ]; then
  echo "android-cell/bench/run.sh: the Android cell is not built; run: make java" >&2
  exit 2
fi
# A comma-separated list of intents, tasks and sensor (e.g. tasks,intents) runs them one after the
# other in one JVM, with the same options: the framework sandbox starts once.
case "${1:-}" in
  broadcast) shift; set -- org.rtdroid.android.cell.bench.BroadcastBench "$@" ;;
  intents|tasks|sensor|*,*) set -- org.rtdroid.android.cell.bench.BenchMain "$@" ;;
  *) echo "usage: android-cell/bench/run.sh <intents|tasks|broadcast|sensor|NAME,NAME...> [options]" >&2; exit 2 ;;
esac
exec "$JAVA_HOME/bin/java" "@$DIST/jvm.args" -cp "$DIST/lib/*:$LIB/*" "$@"
