#!/usr/bin/env bash
# The image's Java: a runtime cut with jlink from a local JDK 25 and, for each process, an AOT cache
# (JDK 25, JEP 483/514: classes loaded and linked ahead of time) made by a training run of that
# process ON THAT RUNTIME, with the classpath as the image lays it out. An AOT cache is only used by
# the JVM build that wrote it; since the image carries this very runtime, the two match.
#
#   hack/java-runtime.sh            -> image/target/jvm (reused when newer than its inputs)
#
# Needs: a JDK 25 (JAVA25_HOME, else /usr/lib/jvm/*25*), the image module's classpath
# (image/target/image-classpath.txt, written by `mvn package -pl image -am`), openssl and curl; for
# the controller's cache also the local control plane (CONTROLPLANE_DIR, else the default of
# hack/build-controlplane.sh; `make controlplane`) and the image module's test classes and classpath
# (the training driver, ControllerAotTraining). Without the control plane the controller's cache is
# left out with one line saying so (`make image` builds the control plane first, so images have it).
# Maven runs it before the image module's tests (image/pom.xml), so `make test` and `make image` do.
# Layout written (what the image holds, image/pom.xml; the libs only for the training and the
# benchmark, the image gets them from Jib at /app/libs with the same content and modification time):
#   image/target/jvm/runtime/          -> /opt/java in the image
#   image/target/jvm/app/classpath     -> /app/jvm/classpath   (java @argfile: -cp /app/libs/...)
#   image/target/jvm/app/webhook.aot   -> /app/jvm/webhook.aot (-XX:AOTCache in the webhook Deployment)
#   image/target/jvm/app/controller.aot -> /app/jvm/controller.aot (in the controller Deployment)
#   image/target/jvm/libs/, local.classpath: the same jars and argfile for running it here
set -euo pipefail
cd "$(dirname "$0")/.."
out=image/target/jvm
cp_file=image/target/image-classpath.txt
deployment=manifests/deploy/webhook_deployment.yaml
controller_deployment=manifests/deploy/controller_deployment.yaml
controller_fleet=image/src/aot-training/controller-fleet.yaml
controlplane="${CONTROLPLANE_DIR:-$(hack/build-controlplane.sh --dir)}"
have_controlplane() { [ -x "$controlplane/kube-apiserver" ] && [ -x "$controlplane/etcd" ] && [ -x "$controlplane/kubectl" ]; }

# a failed run leaves no AOT cache behind, so the next run rebuilds instead of calling it up to date
die() { echo "java-runtime: $*" >&2; rm -f "$out/app/webhook.aot" "$out/app/controller.aot"; exit 1; }

jdk="${JAVA25_HOME:-}"
if [ -z "$jdk" ]; then
  for d in /usr/lib/jvm/*25*; do [ -x "$d/bin/jlink" ] && jdk=$d && break; done
fi
[ -n "$jdk" ] && [ -x "$jdk/bin/jlink" ] || die "no JDK 25 found: set JAVA25_HOME to a JDK 25 (with jlink)"
grep -q '^JAVA_VERSION="25' "$jdk/release" || die "$jdk is not a JDK 25 ($(grep '^JAVA_VERSION=' "$jdk/release"))"
[ -f "$cp_file" ] || die "$cp_file missing: run 'mvn -B -DskipTests package -pl image -am' first"

reviews=bench/src/main/resources/reviews
training=(image/src/aot-training/machine-conversion.json "$reviews/capi-machine-create.json" "$reviews/ironcore-machine-create.json")

# up to date? (newer than the classpath listing, every jar on it, this script, the Deployment and
# the training reviews)
# the controller's cache counts only where it can be made
if [ -f "$out/app/webhook.aot" ] && { ! have_controlplane || [ -f "$out/app/controller.aot" ]; } &&
  [ -z "$(find "$cp_file" "$0" "$deployment" "$controller_deployment" "$controller_fleet" "${training[@]}" $(tr ':' ' ' <"$cp_file") -newer "$out/app/webhook.aot" 2>/dev/null | head -1)" ]; then
  echo "java-runtime: $out up to date"
  exit 0
fi
rm -rf "$out"
mkdir -p "$out/app" "$out/libs" "$out/train"

# 1. runtime: every module the image's jars use (jdeps: e.g. jdk.httpserver for the controller's
#    probes, jdk.unsupported, jdk.management), the Java SE modules, and every security provider that
#    java.security lists (a missing one makes the JDK search the classpath for providers, which loads
#    BouncyCastle's during the first TLS handshake); with the JDK's default CDS archive (the
#    controller starts from it)
#    jetty-alpn-conscrypt-server is a modular jar requiring module org.conscrypt, which the
#    Conscrypt jar names only in its manifest (Automatic-Module-Name): jdeps finds it on its module
#    path, not on the class path
conscrypt=$(tr ':' '\n' <"$cp_file" | grep '/conscrypt-openjdk[^/]*\.jar$' | paste -sd: -)
used=$("$jdk/bin/jdeps" --print-module-deps --ignore-missing-deps --multi-release 25 \
  ${conscrypt:+--module-path "$conscrypt"} \
  --class-path "$(cat "$cp_file")" $(tr ':' ' ' <"$cp_file") 2>/dev/null | tail -1)
[[ $used == java.base* ]] || die "jdeps could not list the modules the image's jars use ($used)"
"$jdk/bin/jlink" --add-modules "$used,java.se,jdk.crypto.ec,jdk.crypto.cryptoki,java.smartcardio,jdk.security.jgss,jdk.naming.dns" \
  --strip-debug --no-man-pages --no-header-files --generate-cds-archive --output "$out/runtime"
echo "$used" >"$out/jdeps-modules"

# 2. the image's classpath, in Maven's order, with Jib's file modification time (1 s after the epoch)
image_cp=() local_cp=()
for jar in $(tr ':' ' ' <"$cp_file"); do
  [[ $jar == *.jar ]] || die "$jar on the image classpath is not a jar (an AOT cache needs jars only)"
  name=$(basename "$jar")
  [ ! -e "$out/libs/$name" ] || die "two jars named $name on the image classpath"
  cp "$jar" "$out/libs/$name"
  touch -d @1 "$out/libs/$name"
  image_cp+=("/app/libs/$name")
  local_cp+=("$PWD/$out/libs/$name")
done
(IFS=:; echo "-cp ${image_cp[*]}") >"$out/app/classpath"
(IFS=:; echo "-cp ${local_cp[*]}") >"$out/local.classpath"

# 3. training run of the webhook server with the Deployment's JVM flags: start, serve admission and
#    conversion reviews, metrics and probes, stop (the JVM writes the cache as it exits)
. hack/deployment-env.sh
flags=$(deployment_env "$deployment" JAVA_TOOL_OPTIONS | sed -E 's/-XX:AOTCache=[^ ]*//')
[[ $flags == *-XX:* ]] || die "no JAVA_TOOL_OPTIONS found in $deployment"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=aot-training \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$out/train/tls.key" -out "$out/train/tls.crt" 2>/dev/null
# a free loopback port: a taken one would let the training talk to whatever listens there
for _ in $(seq 1 50); do
  port=$((20000 + RANDOM % 20000))
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
done
url=https://127.0.0.1:$port
# No training data (method profiles, JEP 515) in the cache: the server runs C1 only, which does not
# use profiles, and replaying them at start compiled ahead of need: about 0.6-0.9 s more CPU in the
# first 10,000 requests (one-off runs: cold 3,500-3,900 -> 4,100-4,700 reviews/s, ready unchanged).
JAVA_TOOL_OPTIONS="$flags -XX:+UnlockDiagnosticVMOptions -XX:-AOTRecordTraining -XX:AOTCacheOutput=$PWD/$out/app/webhook.aot" \
  "$out/runtime/bin/java" "@$out/local.classpath" dev.ironcore.maintenance.server.WebhookServerMain \
  --port "$port" --bind-address 127.0.0.1 --tls-cert-file "$out/train/tls.crt" \
  --tls-private-key-file "$out/train/tls.key" --capi-machine-selector= --log-format=json \
  >"$out/train/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do
  curl -sfk -o /dev/null "$url/readyz" && break
  kill -0 $pid 2>/dev/null || die "training server exited: $(tail -3 "$out/train/server.log")"
  sleep 0.05
done
post() { # path file n: n POSTs over one HTTP/2 connection
  local urls=() i
  for i in $(seq 1 "$3"); do urls+=("$url$1"); done
  curl -sfk --http2 -H 'content-type: application/json' --data-binary "@$2" "${urls[@]}" >/dev/null
}
for round in 1 2 3; do
  post /mutate/capi-machine "$reviews/capi-machine-create.json" 500
  post /mutate/machine "$reviews/ironcore-machine-create.json" 300
  post /validate/machine "$reviews/ironcore-machine-create.json" 300
  post /convert "${training[0]}" 200
  curl -sfk "$url/metrics" "$url/healthz" "$url/readyz" >/dev/null
done
kill -TERM $pid
wait $pid || true
trap - EXIT
[ -s "$out/app/webhook.aot" ] || die "no AOT cache written: $(grep -i aot "$out/train/server.log" | tail -3)"

# 4. training run of the controller with its Deployment's JVM flags and args, against a local
#    kube-apiserver with the CRDs and a small fleet, until its caches are synced and its loops ran
#    (ControllerAotTraining); the JVM writes the cache as it exits
controller_cache="no controller AOT cache (no etcd, kube-apiserver and kubectl in $controlplane: run make controlplane, which builds them into ~/.cache/ironcore-maintenance, or set CONTROLPLANE_DIR)"
if have_controlplane; then
  test_cp=image/target/test-classpath.txt
  [ -f "$test_cp" ] && [ -d image/target/test-classes ] || die "$test_cp or image/target/test-classes missing: run 'mvn -B -DskipTests package -pl image -am' first"
  java -cp "image/target/test-classes:$(cat "$test_cp")" dev.ironcore.maintenance.image.ControllerAotTraining \
    "$controlplane" "$PWD/$out/train/controller" "$PWD/$out" "$PWD/$out/app/controller.aot" "$controller_fleet" \
    >"$out/train/controller-training.log" 2>&1 ||
    die "controller training failed: $(tail -3 "$out/train/controller-training.log")"
  controller_cache="controller AOT cache $(du -m "$out/app/controller.aot" | cut -f1) MiB"
fi
echo "java-runtime: $out/runtime ($("$out/runtime/bin/java" -version 2>&1 | sed -n 2p)), webhook AOT cache $(du -m "$out/app/webhook.aot" | cut -f1) MiB, $controller_cache"
