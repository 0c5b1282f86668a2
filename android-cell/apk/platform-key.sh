#!/usr/bin/env bash
# The platform's signing key for development: build/keys/android-debug.keystore (PKCS12, RSA 2048,
# alias rtdroid-debug, password "android"), created once, and its certificate exported as
# build/keys/platform-cert.pem. The platform apps (the proxy, the ConfigurationUI) are signed with
# it; the Android cell trusts the certificate as the platform's (docs/android-cell.md, "Identity").
# Usage: android-cell/apk/platform-key.sh   (prints the keystore path)
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
KEYS="$REPO/build/keys"
KEYSTORE="$KEYS/android-debug.keystore"
CERT="$KEYS/platform-cert.pem"
JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
export PATH="$JAVA_HOME/bin:$PATH"
mkdir -p "$KEYS"
# one creator at a time: Maven modules and build-apk.sh may ask at once
exec 9>"$KEYS/.lock"
flock 9
if [[ ! -f "$KEYSTORE" ]]; then
  keytool -genkeypair -keystore "$KEYSTORE" -storetype PKCS12 -alias rtdroid-debug -keyalg RSA \
    -keysize 2048 -validity 10000 -storepass android -keypass android \
    -dname "CN=RTDroid Android cell debug, O=RTDroid, C=US" >/dev/null 2>&1
  rm -f "$CERT"
fi
if [[ ! -f "$CERT" ]]; then
  keytool -exportcert -rfc -keystore "$KEYSTORE" -storepass android -alias rtdroid-debug -file "$CERT.tmp" >/dev/null 2>&1
  mv "$CERT.tmp" "$CERT"
fi
echo "$KEYSTORE"
