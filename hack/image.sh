#!/usr/bin/env bash
# make image: ONE OCI image with the webhook server and the controller, built by Jib (image/ module).
#   make image                                    -> image/target/jib-image.tar (OCI tarball)
#   make image IMAGE=registry/name:tag PUSH=true  -> pushed to the registry (credentials as for docker)
# No Docker engine is needed. When it cannot build (e.g. the base image cannot be fetched), it
# prints ONE line with the reason, keeps Maven's full output in image/target/jib.log, exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
# $MVN may carry options (MVN="mvn -o"): split into words once
read -r -a MVN_CMD <<<"${MVN:-mvn}"
IMAGE="${IMAGE:-ironcore-maintenance:latest}"
PUSH="${PUSH:-false}"
goal=jib:buildTar
[ "$PUSH" = "true" ] && goal=jib:build
mkdir -p image/target
log=image/target/jib.log
# the controller's AOT cache is trained against a local API server (hack/java-runtime.sh)
if ! controlplane_dir="$(hack/build-controlplane.sh 2>"$log")"; then
  echo "make image: cannot build $IMAGE: the local control plane for the controller's AOT training did not build (full output: $log)" >&2
  exit 1
fi
if "${MVN_CMD[@]}" -B -DskipTests -pl image -am package "$goal" -Dimage="$IMAGE" -Dcontrolplane.dir="$controlplane_dir" >"$log" 2>&1; then
  if [ "$PUSH" = "true" ]; then
    echo "make image: pushed $IMAGE"
  else
    echo "make image: $IMAGE as OCI tarball image/target/jib-image.tar (load with e.g. 'skopeo copy oci-archive:image/target/jib-image.tar ...')"
  fi
  exit 0
fi
# Maven's own "Failed to execute goal ...: <reason>" line, without its prefix; else the first error
reason="$(sed -n 's/^\[ERROR\] Failed to execute goal [^ ]* ([^)]*) on project [^:]*: //p' "$log" | head -1)"
[ -n "$reason" ] || reason="$(grep -m1 '^\[ERROR\]' "$log" | sed 's/^\[ERROR\] *//')"
reason="$(echo "$reason" | sed -E 's/ -> \[Help 1\]$//' | tr -s ' ' | cut -c1-400)"
base="$(sed -n 's/.*Getting manifest for base image \(.*\)\.\.\.$/\1/p' "$log" | head -1)"
if [ -n "$base" ] && ! grep -q "Using base image" "$log"; then
  reason="base image $base could not be fetched (${reason:-no answer})"
fi
echo "make image: cannot build $IMAGE: ${reason:-see $log} (full output: $log)" >&2
exit 1
