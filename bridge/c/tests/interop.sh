#!/usr/bin/env bash
# C <-> Java interop through a real /dev/shm region, writer and reader in different processes:
#   C ping (peer 1)  <-> Java echo (peer 0)
#   Java ping (peer 1) <-> C echo (peer 0)
# Both directions of ring 1 carry frames written by one language and validated (length, slot
# index, CRC-32) and answered by the other. Fails on any error, timeout, short sample file or a
# corrupt/resync counter in the region afterwards.
# Run by `make -C bridge/c interop`; BUILD and ROOT come from the Makefile.
set -euo pipefail
ROOT=${ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}
BUILD=${BUILD:-$ROOT/build/bridge/c}
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export PATH=$JAVA_HOME/bin:$PATH
CLASSES=$ROOT/bridge/java/target/classes
JSON_CLASSES=$ROOT/json/target/classes   # the JSON writer the peer's reports go through
COUNT=${COUNT:-5000}
WARMUP=${WARMUP:-500}
FRAME_BYTES=${FRAME_BYTES:-64}
REGION=/dev/shm/xcc-interop-$$
TMP=$BUILD/tmp/interop-$$
mkdir -p "$TMP"
cleanup() { rm -f "$REGION"; rm -rf "$TMP"; }
trap cleanup EXIT

if [ ! -f "$CLASSES/org/rtdroid/bridge/bench/BenchPeer.class" ] || [ ! -f "$JSON_CLASSES/org/rtdroid/json/JsonWriter.class" ]; then
  echo "interop: building bridge/java (mvn -B -q -pl bridge/java -am install -DskipTests)"
  (cd "$ROOT" && mvn -B -q -pl bridge/java -am install -DskipTests) || {
    echo "interop: FAIL: bridge/java does not build"; exit 1; }
fi
if [ ! -f "$CLASSES/org/rtdroid/bridge/bench/BenchPeer.class" ]; then
  echo "interop: FAIL: $CLASSES has no org.rtdroid.bridge.bench.BenchPeer"; exit 1
fi
if [ ! -f "$JSON_CLASSES/org/rtdroid/json/JsonWriter.class" ]; then
  echo "interop: FAIL: $JSON_CLASSES has no org.rtdroid.json.JsonWriter"; exit 1
fi
# Java 11 code cannot call sched_setaffinity: pin it with taskset, as the bench orchestrator does
java_peer() { local cpu=$1; shift; echo taskset -c "$cpu" java -cp "$CLASSES:$JSON_CLASSES" org.rtdroid.bridge.bench.BenchPeer; }
C_PEER=$BUILD/xcc_bench_peer
CPU_ECHO=0
CPU_PING=$(( $(nproc) > 1 ? 1 : 0 ))

run_pair() { # name, echo command..., --, ping command...
  local name=$1; shift
  local echo_cmd=() ping_cmd=()
  while [ "$1" != "--" ]; do echo_cmd+=("$1"); shift; done; shift
  ping_cmd=("$@")
  "$BUILD/xcc_region_tool" format --path "$REGION" --rings 3 --slots 64 --slot-bytes 512 >/dev/null
  timeout 120 "${echo_cmd[@]}" >"$TMP/$name.echo.out" 2>&1 &
  local echo_pid=$!
  local rc=0
  timeout 120 "${ping_cmd[@]}" >"$TMP/$name.ping.out" 2>&1 || rc=$?
  local erc=0
  wait "$echo_pid" || erc=$?
  local samples=$TMP/$name.samples
  local want=$(( COUNT * 8 ))
  local got=$(stat -c %s "$samples" 2>/dev/null || echo 0)
  local stats
  stats=$("$BUILD/xcc_region_tool" stats --path "$REGION")
  if [ $rc -ne 0 ] || [ $erc -ne 0 ] || [ "$got" -ne "$want" ] || \
     echo "$stats" | grep -Eq '"(frames_corrupt|resyncs|frames_dropped_full)":[1-9]'; then
    echo "interop: FAIL $name (ping rc=$rc, echo rc=$erc, samples $got/$want bytes)"
    sed 's/^/  ping: /' "$TMP/$name.ping.out"; sed 's/^/  echo: /' "$TMP/$name.echo.out"
    echo "$stats" | sed 's/^/  region: /'
    return 1
  fi
  echo "interop: ok $name: $(head -1 "$TMP/$name.ping.out")"
}

fail=0
run_pair c-ping_java-echo \
  $(java_peer $CPU_ECHO) echo --region "$REGION" --peer 0 --cpu $CPU_ECHO --count $((COUNT + WARMUP)) -- \
  "$C_PEER" ping --region "$REGION" --peer 1 --cpu $CPU_PING --frame-bytes $FRAME_BYTES \
     --count $COUNT --warmup $WARMUP --samples-out "$TMP/c-ping_java-echo.samples" || fail=1
run_pair java-ping_c-echo \
  "$C_PEER" echo --region "$REGION" --peer 0 --cpu $CPU_ECHO --count $((COUNT + WARMUP)) -- \
  $(java_peer $CPU_PING) ping --region "$REGION" --peer 1 --cpu $CPU_PING --frame-bytes $FRAME_BYTES \
     --count $COUNT --warmup $WARMUP --samples-out "$TMP/java-ping_c-echo.samples" || fail=1
if [ $fail -ne 0 ]; then echo "interop: FAILED"; exit 1; fi
echo "interop: 2 passed, 0 failed"
