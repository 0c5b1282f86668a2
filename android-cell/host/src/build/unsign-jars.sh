#!/usr/bin/env bash
# Removes the JAR signatures (META-INF/*.SF, *.RSA, *.DSA, *.EC) from the jars of the Android
# cell's dist (android-cell/target/dist/lib; `mvn package` runs this), for start-up time:
# the JDK's AOT cache cannot hold classes of signed jars, so a signed jar's classes (BouncyCastle's
# ~700, which Robolectric installs as a security provider at every start) were loaded, verified
# and linked again at every start of the cell, after its signature was checked. The jars come from
# Maven Central, whose checksums Maven verified when it downloaded them; OpenJDK loads security
# providers from unsigned jars.
#   unsign-jars.sh DIR
set -euo pipefail
dir=${1:?usage: unsign-jars.sh DIR}
[[ -d $dir ]] || { echo "unsign-jars.sh: $dir is not a directory" >&2; exit 2; }
for jar in "$dir"/*.jar; do
    entries=$(unzip -Z1 "$jar")
    if grep -qE '^META-INF/[^/]+\.(SF|RSA|DSA|EC)$' <<<"$entries"; then
        zip -q -d "$jar" 'META-INF/*.SF' 'META-INF/*.RSA' 'META-INF/*.DSA' 'META-INF/*.EC'
        echo "unsign-jars.sh: signature removed from $(basename "$jar")"
    fi
done
