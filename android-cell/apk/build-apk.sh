#!/usr/bin/env bash
# Builds real, signed Android APKs for the Android cell's apps, for real devices:
#   build/apk/rtdroid-proxy.apk              RTsProxyService + the bridge's Java library (min API 33)
#   build/apk/cochlear-configuration-ui.apk  the cochlear ConfigurationUI (min API 16)
#   build/apk/fall-alert.apk                 the fall detection app's FallAlert (min API 16)
#   build/apk/autopilot-monitor.apk          the autopilot app's AutopilotMonitor (min API 16)
#   build/apk/spark-monitor.apk              the spark detection app's SparkMonitor, with the test video (min API 16)
# Toolchain (nothing from the Android SDK installer): Debian's aapt2, zipalign, apksigner and
# framework-res.apk (packages aapt, zipalign, apksigner, android-framework-res); D8 from Maven
# Central's com.android.tools:r8; javac from the JDK; keytool for a debug key under build/keys.
# Usage: android-cell/apk/build-apk.sh [--verify]   (run from anywhere; needs bridge/java built)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="$REPO/build/apk"
WORK="$OUT/work"
TOOLS="$OUT/tools"
JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
export JAVA_HOME PATH="$JAVA_HOME/bin:$PATH"
R8_VERSION=9.5.28
STUBS_VERSION=4.1.1.4
ANDROID_ALL_VERSION=14-robolectric-10818077
FRAMEWORK_RES=/usr/share/android-framework-res/framework-res.apk
VERIFY=0
[[ "${1:-}" == "--verify" ]] && VERIFY=1

# Every JVM here (javac, D8, jar, apksigner) runs for seconds: C1 only, since C2's compilations
# never pay back in so short a run (half the CPU time of the whole build; the dex is byte-identical).
export FAST_JVM="-XX:TieredStopAtLevel=1"

step() { echo "[apk] $*"; }
die() { echo "build-apk: $*" >&2; exit 1; }

for tool in aapt2 zipalign apksigner javac jar keytool; do
  command -v "$tool" >/dev/null || die "$tool not found (apt-get install aapt zipalign apksigner; JDK at $JAVA_HOME)"
done
[[ -f "$FRAMEWORK_RES" ]] || die "$FRAMEWORK_RES missing (apt-get install android-framework-res)"

rm -rf "$WORK"
mkdir -p "$WORK" "$TOOLS"

# --- tools and API jars from Maven Central -------------------------------------------------
fetch() { # groupId:artifactId:version file
  local gav="$1" file="$2"
  if [[ ! -f "$TOOLS/$file" ]]; then
    step "fetching $gav"
    (cd "$REPO" && mvn -B -q -N dependency:copy -Dartifact="$gav" -DoutputDirectory="$TOOLS" \
      -Dmdep.stripVersion=false) || die "could not fetch $gav with Maven"
  fi
  [[ -f "$TOOLS/$file" ]] || die "$gav did not arrive as $TOOLS/$file"
}
fetch "com.android.tools:r8:$R8_VERSION" "r8-$R8_VERSION.jar"
fetch "com.google.android:android:$STUBS_VERSION" "android-$STUBS_VERSION.jar"
fetch "org.robolectric:android-all:$ANDROID_ALL_VERSION" "android-all-$ANDROID_ALL_VERSION.jar"
R8="$TOOLS/r8-$R8_VERSION.jar"
STUBS="$TOOLS/android-$STUBS_VERSION.jar"
ANDROID_ALL="$TOOLS/android-all-$ANDROID_ALL_VERSION.jar"
# Neither library jar holds java.* (the API stubs leave them out, Robolectric's android-all runs
# on the host's JDK): D8 also reads the JDK's classes, which it needs to desugar default and static
# interface methods (java.util.Comparator's, say) for API 16; without them it warns and guesses.

XCC_JAR="$(ls "$REPO"/bridge/java/target/xcc-java-*.jar 2>/dev/null | grep -v -e sources -e tests | head -1 || true)"
[[ -n "$XCC_JAR" ]] || die "bridge/java is not built: run 'mvn -B -q -pl bridge/java -am install -DskipTests' first"
# the wire's bounds (org.rtdroid.xcc.XccBounds), built with bridge/java
BOUNDS_JAR="$(ls "$REPO"/bridge/proto/target/xcc-bounds-*.jar 2>/dev/null | grep -v -e sources -e tests | head -1 || true)"
[[ -n "$BOUNDS_JAR" ]] || die "bridge/proto is not built: run 'mvn -B -q -pl bridge/java -am install -DskipTests' first"
# the JSON writer (org.rtdroid.json.JsonWriter) xcc-java's counters and tools write through
JSON_JAR="$(ls "$REPO"/json/target/rtdroid-json-*.jar 2>/dev/null | grep -v -e sources -e tests | head -1 || true)"
[[ -n "$JSON_JAR" ]] || die "json is not built: run 'mvn -B -q -pl bridge/java -am install -DskipTests' first"

# --- the platform's (debug) signing key: build/keys, shared with the cell's app packages ------
KEYSTORE="$("$REPO/android-cell/apk/platform-key.sh")"

# build_apk NAME MANIFEST MIN_SDK TARGET_SDK DEX_INPUTS... (after --)
package_apk() {
  local name="$1" manifest="$2" min_sdk="$3" target_sdk="$4" dexdir="$5"
  local unsigned="$WORK/$name-unsigned.apk" aligned="$WORK/$name-aligned.apk" final="$OUT/$name.apk"
  step "$name: aapt2 link (framework-res API 29, min SDK $min_sdk)"
  aapt2 link -I "$FRAMEWORK_RES" --manifest "$manifest" --min-sdk-version "$min_sdk" \
    --target-sdk-version "$target_sdk" -o "$unsigned"
  # the dex goes in with the JDK's jar tool (no manifest added): no zip package needed
  jar -J$FAST_JVM --update --no-manifest --file "$unsigned" -C "$dexdir" classes.dex
  step "$name: zipalign -p 4"
  zipalign -f -p 4 "$unsigned" "$aligned"
  step "$name: apksigner sign"
  apksigner -J${FAST_JVM#-} sign --ks "$KEYSTORE" --ks-pass pass:android --key-pass pass:android --ks-key-alias rtdroid-debug \
    --min-sdk-version "$min_sdk" --out "$final" "$aligned"
  rm -f "$final.idsig"
  step "$name: $(stat -c %s "$final") bytes -> $final"
}

# --- the apps (ConfigurationUI, FallAlert, AutopilotMonitor, SparkMonitor): Java 8 bytecode against the API 16 stubs ----------
# app_apk NAME SOURCE_FOLDER OUT_NAME CONTRACT...: javac (the app with the apps' library, content/,
# which every app carries in its own APK), D8 --min-api 16 (with the app contracts' shared classes
# and the app's own contracts, bridge/contracts), then package_apk. EXTRA_SOURCES (set for one call)
# names an app's own library sources (SparkMonitor's: the test video, video/).
APP_LIBRARY="$REPO/android-cell/content/src/main/java"
CONTRACTS="$REPO/bridge/contracts/target/classes"
[[ -d "$CONTRACTS/org/rtdroid/contract" ]] || die "bridge/contracts is not built: run 'mvn -B -q -pl bridge/contracts -am install -DskipTests' first"
app_apk() {
  local name="$1" src="$REPO/android-cell/apps/$2/src/main" out="$3" contract
  shift 3
  local contracts=("$CONTRACTS"/org/rtdroid/contract/*.class)
  for contract in "$@"; do
    contracts+=($(find "$CONTRACTS/org/rtdroid/contract/$contract" -name '*.class'))
  done
  mkdir -p "$WORK/$name/classes" "$WORK/$name/dex"
  step "$name: javac --release 8 against android-$STUBS_VERSION.jar (with the apps' library and contracts $*)"
  javac -J$FAST_JVM --release 8 -Xlint:-options -nowarn -encoding UTF-8 -cp "$STUBS:$CONTRACTS" -d "$WORK/$name/classes" \
    $(find "$src/java" "$APP_LIBRARY" ${EXTRA_SOURCES:-} -name '*.java')
  step "$name: D8 --min-api 16"
  java $FAST_JVM -cp "$R8" com.android.tools.r8.D8 --release --min-api 16 --lib "$STUBS" --lib "$JAVA_HOME" --output "$WORK/$name/dex" \
    $(find "$WORK/$name/classes" -name '*.class') "${contracts[@]}"
  package_apk "$out" "$src/AndroidManifest.xml" 16 29 "$WORK/$name/dex"
}
app_apk configuration-ui configuration-ui cochlear-configuration-ui cochlear echo
app_apk fall-alert fall-alert fall-alert fall
app_apk autopilot-monitor autopilot-monitor autopilot-monitor autopilot
EXTRA_SOURCES="$REPO/video/src/main/java" app_apk spark-monitor spark-monitor spark-monitor spark

# --- the proxy: Java 11 bytecode (with xcc-java's VarHandles) against the SDK 34 framework ---
PROXY_SRC="$REPO/android-cell/proxy/src/main"
mkdir -p "$WORK/proxy/classes" "$WORK/proxy/dex"
step "rtdroid-proxy: javac --release 11 against android-all $ANDROID_ALL_VERSION"
# the apps' library's ProxyIntents: its constants only (inlined), so it is not dexed into the proxy
javac -J$FAST_JVM --release 11 -nowarn -encoding UTF-8 -cp "$ANDROID_ALL:$XCC_JAR:$BOUNDS_JAR:$JSON_JAR" -d "$WORK/proxy/classes" \
  $(find "$PROXY_SRC/java" -name '*.java') "$APP_LIBRARY/org/rtdroid/android/app/ProxyIntents.java"
rm -f "$WORK/proxy/classes/org/rtdroid/android/app/ProxyIntents.class"
step "rtdroid-proxy: D8 --min-api 33 (proxy classes + $(basename "$XCC_JAR") + $(basename "$BOUNDS_JAR") + $(basename "$JSON_JAR"))"
java $FAST_JVM -cp "$R8" com.android.tools.r8.D8 --release --min-api 33 --lib "$ANDROID_ALL" --lib "$JAVA_HOME" --output "$WORK/proxy/dex" \
  $(find "$WORK/proxy/classes" -name '*.class') "$XCC_JAR" "$BOUNDS_JAR" "$JSON_JAR"
package_apk rtdroid-proxy "$PROXY_SRC/AndroidManifest.xml" 33 33 "$WORK/proxy/dex"

if [[ $VERIFY == 1 ]]; then
  "$REPO/android-cell/apk/verify-apk.sh" "$OUT/cochlear-configuration-ui.apk" "$OUT/fall-alert.apk" "$OUT/autopilot-monitor.apk" \
    "$OUT/spark-monitor.apk" "$OUT/rtdroid-proxy.apk"
fi
