#!/bin/bash
# End-to-end check of the RT cell agent on the host board, no QEMU: format a /dev/shm region,
# start the agent as a process, deploy the signed echo example, ping it as the Android cell,
# refuse a tampered bundle, undeploy, SIGTERM. Needs: mvn -pl rt-cell/agent,rtdroid-runtime/examples -am package.
# Run from the repository root; scratch files go to build/e2e-agent.
set -e
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
E=build/e2e-agent; R=/dev/shm/rtdroid-e2e-agent; mkdir -p $E
CP='rt-cell/agent/target/dist/lib/*'
jrun() { java --enable-native-access=ALL-UNNAMED -cp "$CP" "$@"; }
client() { jrun org.rtdroid.rtcell.agent.client.AgentClient "$@"; }
rm -f $R $R.lock
jrun org.rtdroid.bridge.tools.RegionTool format --path $R --rings 3 --slots 64 --slot-bytes 512
client keygen --out $E/keys
client bundle --manifest rtdroid-runtime/examples/target/apps/echo/manifest.xml \
    --jar rtdroid-runtime/examples/target/apps/echo/app.jar --key $E/keys/deploy.key --out $E/echo.rtb
java --enable-native-access=ALL-UNNAMED -XX:+UseZGC -cp "$CP" org.rtdroid.rtcell.agent.Main \
    --region $R --deploy-key $E/keys/deploy.pub --cpus 1 --budget-bytes 64M > $E/agent.log 2>&1 &
AGENT=$!
for i in $(seq 1 200); do grep -q "^RTCELL READY$" $E/agent.log && break; sleep 0.05; done
echo "--- agent console so far"; cat $E/agent.log; echo "---"
client hello --region $R
client deploy --region $R --bundle $E/echo.rtb
client services --region $R
client ping --region $R --text "hello rt cell"
client ping --region $R --text "low priority" --priority 10
# a tampered bundle is refused
cp $E/echo.rtb $E/tampered.rtb
python3 - "$E/tampered.rtb" <<'PY'
import sys, zipfile
src = sys.argv[1]; entries = {}
with zipfile.ZipFile(src) as z:
    for n in z.namelist(): entries[n] = z.read(n)
entries["manifest.xml"] = entries["manifest.xml"].replace(b'capacity="16"', b'capacity="17"')
with zipfile.ZipFile(src, "w") as z:
    for n, d in entries.items(): z.writestr(n, d)
PY
client deploy --region $R --bundle $E/tampered.rtb --name echo2 || echo "(refused, exit $?)"
client stats --region $R
client undeploy --region $R --name echo
client services --region $R
kill -TERM $AGENT; wait $AGENT; echo "agent exit status $?"
echo "--- agent console"; cat $E/agent.log
jrun org.rtdroid.bridge.tools.RegionTool dump --path $R | head -c 600; echo
rm -f $R $R.lock
