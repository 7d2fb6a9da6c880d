#!/usr/bin/env bash
# The image's Java: a runtime cut with jlink from a local JDK 25 and, for each process, an AOT cache
# (JDK 25, JEP 483/514: classes loaded and linked ahead of time) made by a training run of that
# process ON THAT RUNTIME, with the classpath as the image lays it out. An AOT cache is only used by
# the JVM build that wrote it; since the image carries this very runtime, the two match.
#
#   hack/java-runtime.sh            -> image/target/jvm (reused when newer than its inputs)
#
# Needs: a JDK 25 (JAVA25_HOME, else /usr/lib/jvm/*25*), the image module's classpath
# (image/target/image-classpath.txt, written by `mvn package -pl image -am`) and its test classes and
# classpath (the training driver, AotTraining); for the controller's cache and a webhook cache that
# holds the eviction warnings' client also the local control plane (CONTROLPLANE_DIR, else the
# default of hack/build-controlplane.sh; `make controlplane`). Without the control plane the
# controller's cache is left out with one line saying so (`make image` builds the control plane
# first, so images have it).
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
training=(image/src/aot-training/machine-conversion.json "$reviews/capi-machine-create.json" "$reviews/ironcore-machine-create.json" "$reviews/machinepool-taint-update.json")
# the training driver's sources: a change to how the processes are trained makes new caches
drivers=(image/src/test/java/dev/ironcore/maintenance/image/{AotTraining,WebhookAotTraining,ControllerAotTraining,ShippedWebhook,ShippedContainer}.java)

# up to date? (newer than the classpath listing, every jar on it, this script, the Deployments, the
# training reviews, fleet and driver)
# the controller's cache counts only where it can be made
if [ -f "$out/app/webhook.aot" ] && { ! have_controlplane || [ -f "$out/app/controller.aot" ]; } &&
  [ -z "$(find "$cp_file" "$0" "$deployment" "$controller_deployment" "$controller_fleet" "${training[@]}" "${drivers[@]}" $(tr ':' ' ' <"$cp_file") -newer "$out/app/webhook.aot" 2>/dev/null | head -1)" ]; then
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

# 3. training runs (AotTraining, in the image module's test classes): each process as its Deployment
#    starts it, on this runtime and class path, until it did what it does installed; the JVM writes
#    its cache as it exits. With the control plane both run against one local kube-apiserver with
#    the CRDs, the shipped namespaces and RBAC and a small fleet: the webhook server in its pod's
#    environment (in-cluster configuration, the ServiceAccount's token), so that its eviction
#    warnings' client is in the cache too, then the controller until its caches are synced and its
#    loops ran. Without it only the webhook server, without a cluster.
# No training data (method profiles, JEP 515) in the caches: the processes run C1 only, which does
# not use profiles, and replaying them at start compiled ahead of need: about 0.6-0.9 s more CPU in
# the webhook's first 10,000 requests (one-off runs: cold 3,500-3,900 -> 4,100-4,700 reviews/s).
test_cp=image/target/test-classpath.txt
[ -f "$test_cp" ] && [ -d image/target/test-classes ] || die "$test_cp or image/target/test-classes missing: run 'mvn -B -DskipTests package -pl image -am' first"
controller_cache="no controller AOT cache (no etcd, kube-apiserver and kubectl in $controlplane: run make controlplane, which builds them into ~/.cache/ironcore-maintenance, or set CONTROLPLANE_DIR)"
with_cluster=()
have_controlplane && with_cluster=("$controlplane")
java -cp "image/target/test-classes:$(cat "$test_cp")" dev.ironcore.maintenance.image.AotTraining \
  "$PWD/$out" "$PWD/$out/train" "$PWD/image/src/aot-training" "$PWD/$reviews" "${with_cluster[@]}" \
  >"$out/train/training.log" 2>&1 ||
  die "training failed: $(tail -3 "$out/train/training.log")"
[ -s "$out/app/webhook.aot" ] || die "no webhook AOT cache written (see $out/train/training.log)"
if have_controlplane; then
  [ -s "$out/app/controller.aot" ] || die "no controller AOT cache written (see $out/train/training.log)"
  controller_cache="controller AOT cache $(du -m "$out/app/controller.aot" | cut -f1) MiB"
fi
echo "java-runtime: $out/runtime ($("$out/runtime/bin/java" -version 2>&1 | sed -n 2p)), webhook AOT cache $(du -m "$out/app/webhook.aot" | cut -f1) MiB, $controller_cache"
