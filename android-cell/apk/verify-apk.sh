#!/usr/bin/env bash
# Checks built APKs the way a device and a store would: signature (apksigner verify -v),
# alignment (zipalign -c), manifest (aapt2 dump badging), the signature-level permission the proxy
# defines and the platform apps request (aapt2 dump permissions), and dex contents (dexdump).
# Usage: android-cell/apk/verify-apk.sh APK...   Exit status 0 only if every check passes.
set -euo pipefail
[[ $# -gt 0 ]] || { echo "usage: $0 APK..." >&2; exit 2; }
fail=0
check() { # description, command...
  local what="$1"; shift
  if "$@"; then echo "  ok   $what"; else echo "  FAIL $what"; fail=1; fi
}
dex_holds() { # description, class descriptor (Lpkg/Name;): the APK's dex has that class
  check "dex holds $1" bash -c "dexdump '$apk' | grep -q '$2'"
}
app_checks() { # launcher activity (its class name), then the description and descriptor of one more class
  local activity="$1"
  check "launchable activity ${activity##*.}" grep -q "launchable-activity: name='$activity'" <<<"$badging"
  check "uses-permission org.rtdroid.permission.CROSS_CONTEXT" grep -q "uses-permission: name='org.rtdroid.permission.CROSS_CONTEXT'" <<<"$perms"
  dex_holds "${activity##*.}" "L${activity//.//};"
  dex_holds "$2" "$3"
}
for apk in "$@"; do
  echo "== $apk"
  [[ -f "$apk" ]] || { echo "  FAIL missing"; fail=1; continue; }
  sig="$(apksigner ${FAST_JVM:+-J${FAST_JVM#-}} verify -v "$apk" 2>&1 || true)"   # FAST_JVM: build-apk.sh's
  echo "$sig" | sed 's/^/     /'
  check "signed (apksigner verify: Verifies)" grep -q '^Verifies' <<<"$sig"
  check "APK Signature Scheme v2 or v3 (v3 only from min SDK 28)" grep -qE "v[23] scheme \(APK Signature Scheme v[23]\): true" <<<"$sig"
  check "zip aligned (zipalign -c -p 4)" zipalign -c -p 4 "$apk"
  badging="$(aapt2 dump badging "$apk" 2>&1 || true)"
  echo "$badging" | grep -E "^(package|sdkVersion|targetSdkVersion|launchable-activity|application-label):" | sed 's/^/     /'
  check "aapt2 dump badging names a package" grep -q "^package: name='" <<<"$badging"
  perms="$(aapt2 dump permissions "$apk" 2>&1 || true)"
  echo "$perms" | sed 's/^/     /'
  dex="$(dexdump -f "$apk" 2>&1 || true)"
  classes="$(dexdump "$apk" 2>/dev/null | grep -c "Class descriptor" || true)"
  echo "     dexdump: $classes classes; $(grep -m1 -E 'magic' <<<"$dex" | tr -s ' ')"
  check "dexdump reads classes.dex" test "${classes:-0}" -gt 0
  case "$(basename "$apk")" in
    cochlear-configuration-ui.apk)
      app_checks org.rtdroid.cochlear.ui.ConfigurationActivity "the apps' library (RtCellActivity)" 'Lorg/rtdroid/android/app/RtCellActivity;'
      ;;
    fall-alert.apk)
      app_checks org.rtdroid.fall.ui.FallAlertActivity "the apps' library (RtCellActivity)" 'Lorg/rtdroid/android/app/RtCellActivity;'
      ;;
    autopilot-monitor.apk)
      app_checks org.rtdroid.autopilot.monitor.AutopilotMonitorActivity "the apps' library (RtCellActivity)" 'Lorg/rtdroid/android/app/RtCellActivity;'
      ;;
    spark-monitor.apk)
      app_checks org.rtdroid.spark.monitor.SparkMonitorActivity "the test video (SparkScene)" 'Lorg/rtdroid/video/SparkScene;'
      ;;
    rtdroid-proxy.apk)
      check "package org.rtdroid.proxy, minSdk 33" grep -q "sdkVersion:'33'" <<<"$badging"
      check "declares permission org.rtdroid.permission.CROSS_CONTEXT" grep -q "^permission: org.rtdroid.permission.CROSS_CONTEXT" <<<"$perms"
      check "declares permission org.rtdroid.permission.REALTIME_BROADCAST" grep -q "^permission: org.rtdroid.permission.REALTIME_BROADCAST" <<<"$perms"
      check "... both at protectionLevel signature (0x2, aapt2 dump xmltree)" bash -c "test \$(aapt2 dump xmltree --file AndroidManifest.xml '$apk' | grep -A4 'E: permission' | grep -c 'android:protectionLevel(0x01010009)=0x00000002') -eq 2"
      check "RTsProxyService requires it (aapt2 dump xmltree)" bash -c "aapt2 dump xmltree --file AndroidManifest.xml '$apk' | grep -A3 'E: service' | grep -q 'android:permission.*=\"org.rtdroid.permission.CROSS_CONTEXT\"'"
      dex_holds "RTsProxyService" 'Lorg/rtdroid/android/proxy/RTsProxyService;'
      dex_holds "the bridge codec" 'Lorg/rtdroid/bridge/codec/FrameCodec;'
      dex_holds "the JSON writer" 'Lorg/rtdroid/json/JsonWriter;'
      ;;
  esac
done
exit $fail
