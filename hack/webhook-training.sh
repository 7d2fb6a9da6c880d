#!/usr/bin/env bash
# Training run of the webhook server's AOT cache (JDK 25, JEP 483/514), called by
# hack/java-runtime.sh: the server as its Deployment starts it (the Deployment's JVM flags, on the
# image's runtime in image/target/jvm), serving admission and conversion reviews, metrics and probes,
# then stopped (the JVM writes the cache as it exits).
#
#   hack/webhook-training.sh CACHE_FILE
#
# With KUBECONFIG set (ControllerAotTraining runs it against its local kube-apiserver holding the
# training fleet of image/src/aot-training/controller-fleet.yaml), the server also runs its eviction
# warnings as an installed pod does: fabric8's client, discovery, and MachinePool writes that add a
# NoExecute taint to pool-a (each a LIST of its Machines), so those 2,600 classes come from the cache
# too (bench/analysis.md, session 35: about 0.4 s less CPU after the start and 2.5 MiB less RSS).
# Without it the server finds no cluster (unless ~/.kube/config names one) and logs so.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${1:?usage: hack/webhook-training.sh CACHE_FILE}
out=image/target/jvm
reviews=bench/src/main/resources/reviews
deployment=manifests/deploy/webhook_deployment.yaml
die() { echo "webhook-training: $*" >&2; exit 1; }
. hack/deployment-env.sh
flags=$(deployment_env "$deployment" JAVA_TOOL_OPTIONS | sed -E 's/-XX:AOTCache=[^ ]*//')
[[ $flags == *-XX:* ]] || die "no JAVA_TOOL_OPTIONS found in $deployment"
mkdir -p "$out/train"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=aot-training \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$out/train/tls.key" -out "$out/train/tls.crt" 2>/dev/null
# a free loopback port: a taken one would let the training talk to whatever listens there
for _ in $(seq 1 50); do
  port=$((20000 + RANDOM % 20000))
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
done
url=https://127.0.0.1:$port
if [ -n "${KUBECONFIG:-}" ]; then
  sed 's/"bench-pool"/"pool-a"/g' "$reviews/machinepool-taint-update.json" >"$out/train/machinepool-taint-update.json"
fi
# No training data (method profiles, JEP 515) in the cache: the server runs C1 only, which does not
# use profiles, and replaying them at start compiled ahead of need: about 0.6-0.9 s more CPU in the
# first 10,000 requests (one-off runs: cold 3,500-3,900 -> 4,100-4,700 reviews/s, ready unchanged).
rm -f "$cache"
JAVA_TOOL_OPTIONS="$flags -XX:+UnlockDiagnosticVMOptions -XX:-AOTRecordTraining -XX:AOTCacheOutput=$cache" \
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
if [ -n "${KUBECONFIG:-}" ]; then
  # the server asks discovery on a thread of its own after it listens: wait for the warning
  warned=false
  for _ in $(seq 1 100); do
    if curl -sfk --http2 -H 'content-type: application/json' \
      --data-binary "@$out/train/machinepool-taint-update.json" "$url/validate/machinepool" |
      grep -q 'not tolerate'; then
      warned=true
      break
    fi
    sleep 0.1
  done
  $warned || die "no eviction warning for pool-a from $KUBECONFIG; see $out/train/server.log"
fi
for round in 1 2 3; do
  post /mutate/capi-machine "$reviews/capi-machine-create.json" 500
  post /mutate/machine "$reviews/ironcore-machine-create.json" 300
  post /validate/machine "$reviews/ironcore-machine-create.json" 300
  post /convert image/src/aot-training/machine-conversion.json 200
  if [ -n "${KUBECONFIG:-}" ]; then post /validate/machinepool "$out/train/machinepool-taint-update.json" 20; fi
  curl -sfk "$url/metrics" "$url/healthz" "$url/readyz" >/dev/null
done
kill -TERM $pid
wait $pid || true
trap - EXIT
[ -s "$cache" ] || die "no AOT cache written: $(grep -i aot "$out/train/server.log" | tail -3)"
