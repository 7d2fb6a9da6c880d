#!/usr/bin/env bash
# make image: ONE OCI image with the webhook server and the controller, built by Jib (image/ module).
#   make image                                    -> image/target/jib-image.tar (OCI tarball)
#   make image IMAGE=registry/name:tag PUSH=true  -> pushed to the registry (credentials as for docker)
# PUSH is true or false (default); anything else is refused before anything is built.
# No Docker engine is needed. Two Maven calls: first the jars, the image's Java runtime and both AOT
# caches (image/target/jvm; `package`, no Jib), then Jib (its `package` finds all that up to date),
# so they are built whatever Jib does, even where Maven cannot load the Jib plugin (it has no
# lifecycle execution, so only make image downloads it). When it cannot build (e.g. the base image
# cannot be fetched), it prints ONE line with the reason, keeps Maven's full output in
# image/target/jib.log, exits 1 (ImageScriptTest).
set -euo pipefail
cd "$(dirname "$0")/.."
# $MVN may carry options (MVN="mvn -o"): split into words once
read -r -a MVN_CMD <<<"${MVN:-mvn}"
IMAGE="${IMAGE:-ironcore-maintenance:latest}"
PUSH="${PUSH:-false}"
# PUSH=yes would silently build the tarball instead of pushing: refused before anything is built
case "$PUSH" in
  true | false) ;;
  *) echo "make image: PUSH='$PUSH': use true or false" >&2; exit 1 ;;
esac
goal=jib:buildTar
[ "$PUSH" = "true" ] && goal=jib:build
mkdir -p image/target
log=image/target/jib.log

# The reason in Maven's output of the failed call (stdin), one line
failure_reason() {
  local out reason missing base
  out="$(cat)"
  # the Jib plugin, or a library it needs, was never downloaded and Maven runs offline (MVN='mvn -o'):
  # Maven then says "No plugin found for prefix 'jib'" (plugin missing) or fails the jib goal on the
  # first project (library missing); the artifact is named in the line that mentions the plugin
  missing="$(grep 'jib-maven-plugin' <<<"$out" |
    sed -nE 's/.* in offline mode and the artifact ([^ ]+) has not been downloaded from it before.*/\1/p' | head -1 || true)"
  if [ -n "$missing" ]; then
    [[ $missing == com.google.cloud.tools:jib-maven-plugin:* ]] && missing="the Jib Maven plugin ($missing)" ||
      missing="$missing (needed by the Jib Maven plugin)"
    echo "$missing is not in the local Maven repository and Maven runs offline: run make image once online" \
      "(without -o), which downloads it; the jars, the Java runtime and both AOT caches are built (image/target/jvm)"
    return
  fi
  # Maven's own "Failed to execute goal ...: <reason>" line, without its prefix; else the first error
  reason="$(sed -n 's/^\[ERROR\] Failed to execute goal [^ ]* ([^)]*) on project [^:]*: //p' <<<"$out" | head -1)"
  [ -n "$reason" ] || reason="$(grep -m1 '^\[ERROR\]' <<<"$out" | sed -E 's/^(\[ERROR\] *)+//' || true)"
  # online, the plugin could not be loaded: Maven's reason, not its "No plugin found for prefix 'jib'"
  if [[ $reason == "No plugin found for prefix 'jib'"* ]]; then
    missing="$(sed -n 's/^\[WARNING\] Failed to retrieve plugin descriptor for com\.google\.cloud\.tools:jib-maven-plugin:[^ ]*: //p' <<<"$out" | head -1 || true)"
    [ -z "$missing" ] || reason="the Jib Maven plugin could not be loaded: $missing"
  fi
  reason="$(echo "$reason" | sed -E 's/ -> \[Help 1\]$//' | tr -s ' ' | cut -c1-400)"
  base="$(sed -n 's/.*Getting manifest for base image \(.*\)\.\.\.$/\1/p' <<<"$out" | head -1)"
  if [ -n "$base" ] && ! grep -q "Using base image" <<<"$out"; then
    reason="base image $base could not be fetched (${reason:-no answer})"
  fi
  echo "${reason:-see $log}"
}
fail() {
  echo "make image: cannot build $IMAGE: $1 (full output: $log)" >&2
  exit 1
}

# the controller's AOT cache is trained against a local API server (hack/java-runtime.sh)
if ! controlplane_dir="$(hack/build-controlplane.sh 2>"$log")"; then
  fail "the local control plane for the controller's AOT training did not build"
fi
build() { "${MVN_CMD[@]}" -B -DskipTests -pl image -am package "$@" -Dimage="$IMAGE" -Dcontrolplane.dir="$controlplane_dir"; }
# 1. jars, Java runtime, AOT caches (image/target/jvm)
if ! build >"$log" 2>&1; then
  fail "$(failure_reason <"$log")"
fi
# 2. the image (Jib); the reason only from this call's output
first_line=$(($(wc -l <"$log") + 1))
if ! build "$goal" >>"$log" 2>&1; then
  fail "$(tail -n +"$first_line" "$log" | failure_reason)"
fi
if [ "$PUSH" = "true" ]; then
  echo "make image: pushed $IMAGE"
else
  echo "make image: $IMAGE as OCI tarball image/target/jib-image.tar (load with e.g. 'skopeo copy oci-archive:image/target/jib-image.tar ...')"
fi
