#!/usr/bin/env bash
# Packs an app bundle for the Android cell (a folder with AndroidManifest.xml, plain XML, and
# classes.jar, JVM bytecode: docs/android-cell.md, "App packages") into a signed APK container:
# a zip of those two files signed with APK Signature Scheme v2 and v3 by apksigner. The cell
# installs only such APKs and takes the app's identity from them (package and versionCode from the
# signed manifest, the signer's certificate).
# Usage: android-cell/apk/cell-apk.sh BUNDLE_DIR OUT.apk [KEYSTORE [ALIAS]]
#   default key: the platform key (platform-key.sh); password "android" for any keystore given.
set -euo pipefail
[[ $# -ge 2 && $# -le 4 ]] || { echo "usage: $0 BUNDLE_DIR OUT.apk [KEYSTORE [ALIAS]]" >&2; exit 2; }
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUNDLE="$1" OUT="$2"
KEYSTORE="${3:-$("$HERE/platform-key.sh")}"
ALIAS="${4:-rtdroid-debug}"
JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
export JAVA_HOME PATH="$JAVA_HOME/bin:$PATH"
die() { echo "cell-apk: $*" >&2; exit 1; }
command -v apksigner >/dev/null || die "apksigner not found (apt-get install apksigner)"
for f in AndroidManifest.xml classes.jar; do
  [[ -f "$BUNDLE/$f" ]] || die "$BUNDLE/$f missing (a cell app bundle has AndroidManifest.xml and classes.jar)"
done
unsigned="$(mktemp --suffix=.zip)"
trap 'rm -f "$unsigned"' EXIT
rm -f "$unsigned"
# the JDK's jar tool writes the zip (no manifest of its own): no zip package needed
jar --create --no-manifest --file "$unsigned" -C "$BUNDLE" AndroidManifest.xml -C "$BUNDLE" classes.jar
mkdir -p "$(dirname "$OUT")"
# --min-sdk-version: the manifest is plain XML (the cell's), so apksigner must not read it for one;
# 24 selects v2+v3 only (no JAR signing).
apksigner sign --ks "$KEYSTORE" --ks-pass pass:android --key-pass pass:android --ks-key-alias "$ALIAS" \
  --min-sdk-version 24 --v1-signing-enabled false --v2-signing-enabled true --v3-signing-enabled true \
  --out "$OUT" "$unsigned"
rm -f "$OUT.idsig"
