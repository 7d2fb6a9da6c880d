#!/usr/bin/env bash
# make run: a local control plane with our CRDs and webhooks, the webhook server on
# https://127.0.0.1:$WEBHOOK_PORT and (once it exists) the controller. Ctrl-C stops everything.
#
# Environment: DEMO (default true), CONTROLLER_ARGS (extra controller flags), WEBHOOK_PORT (9443),
# CAPI_MACHINE_SELECTOR (label selector given to BOTH the webhook server and the controller;
# default empty = all CAPI Machines).
# Everything lives in .local/ (git-ignored): kubeconfig, control-plane pki and logs, certs/,
# *.log of each process.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
LOCAL="$ROOT/.local"
DEMO="${DEMO:-true}"
CONTROLLER_ARGS="${CONTROLLER_ARGS:-}"
WEBHOOK_PORT="${WEBHOOK_PORT:-9443}"
CAPI_MACHINE_SELECTOR="${CAPI_MACHINE_SELECTOR:-}"
MVN="${MVN:-mvn}"

log() { echo "[run] $*" >&2; }
# Maven, quiet: output only when it fails (mvn -q still prints terminal escape codes).
mvnq() {
  local out
  if ! out="$("$MVN" -q -B "$@" 2>&1)"; then echo "$out" >&2; return 1; fi
}
mkdir -p "$LOCAL"

if (exec 3<>"/dev/tcp/127.0.0.1/$WEBHOOK_PORT") 2>/dev/null; then
  log "port $WEBHOOK_PORT is already in use (another make run?); stop that or use WEBHOOK_PORT=<free port>"
  exit 1
fi
case " $CONTROLLER_ARGS " in
  *--capi-machine-selector*)
    log "use CAPI_MACHINE_SELECTOR='...' instead of --capi-machine-selector in CONTROLLER_ARGS:" \
      "the webhook server must mark exactly the CAPI Machines the controller drains"
    exit 1 ;;
esac

BIN_DIR="$(hack/build-controlplane.sh)"
export CONTROLPLANE_DIR="$BIN_DIR"

log "building (mvn install, no tests)"
mvnq -DskipTests install

# Runtime classpath of a module: its classes plus its runtime dependencies.
classpath() {
  local module="$1" out="$ROOT/$1/target/runtime-classpath.txt"
  mvnq -pl "$module" dependency:build-classpath -DincludeScope=runtime -Dmdep.outputFile="$out"
  echo "$ROOT/$module/target/classes:$(cat "$out")"
}
has_main() { [ -f "$ROOT/$1/target/classes/$(echo "$2" | tr . /).class" ]; }

TESTKIT_CP="$(classpath testkit)"

PIDS=()
cleanup() {
  trap - EXIT INT TERM
  log "stopping"
  local i
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do kill -TERM "${PIDS[i]}" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  log "stopped"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1. control plane (etcd + kube-apiserver) until we stop it
rm -f "$LOCAL/ready"
log "starting local control plane (logs: $LOCAL/etcd.log, $LOCAL/kube-apiserver.log)"
java -cp "$TESTKIT_CP" dev.ironcore.maintenance.testkit.LocalControlPlaneMain \
  --bin-dir "$BIN_DIR" --work-dir "$LOCAL" >"$LOCAL/controlplane.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 600); do
  [ -f "$LOCAL/ready" ] && break
  if ! kill -0 "${PIDS[0]}" 2>/dev/null; then
    log "control plane failed to start:"; cat "$LOCAL/controlplane.out" >&2; exit 1
  fi
  sleep 0.2
done
[ -f "$LOCAL/ready" ] || { log "control plane not ready after 120 s"; tail -40 "$LOCAL/controlplane.out" >&2; exit 1; }
export KUBECONFIG="$LOCAL/kubeconfig"
log "control plane ready at $(cat "$LOCAL/ready")"

# 2. webhook serving certificate (CA kept across runs) and manifests/local pointed at it
java -cp "$TESTKIT_CP" dev.ironcore.maintenance.certs.GenerateCerts \
  --out "$LOCAL/certs" --service ironcore-maintenance-webhook --namespace ironcore-maintenance-system >/dev/null
java -cp "$TESTKIT_CP" dev.ironcore.maintenance.testkit.InstallManifests \
  --kubeconfig "$KUBECONFIG" --overlay "$ROOT/manifests/local" \
  --base-url "https://127.0.0.1:$WEBHOOK_PORT" --ca-bundle "$LOCAL/certs/ca.crt" --kubectl "$BIN_DIR/kubectl" >&2

# 3. webhook server
SERVER_MAIN=dev.ironcore.maintenance.server.WebhookServerMain
if has_main server "$SERVER_MAIN"; then
  log "starting webhook server on https://127.0.0.1:$WEBHOOK_PORT (log: $LOCAL/webhook-server.log)"
  java -cp "$(classpath server)" "$SERVER_MAIN" --port "$WEBHOOK_PORT" --bind-address 127.0.0.1 \
    --tls-cert-file "$LOCAL/certs/tls.crt" --tls-private-key-file "$LOCAL/certs/tls.key" \
    --capi-machine-selector "$CAPI_MACHINE_SELECTOR" >"$LOCAL/webhook-server.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 300); do
    kill -0 "${PIDS[-1]}" 2>/dev/null || { log "webhook server exited:"; tail -40 "$LOCAL/webhook-server.log" >&2; exit 1; }
    grep -q "webhook server listening" "$LOCAL/webhook-server.log" 2>/dev/null \
      && curl -sf --cacert "$LOCAL/certs/ca.crt" "https://127.0.0.1:$WEBHOOK_PORT/healthz" >/dev/null && break
    sleep 0.2
  done
  grep -q "webhook server listening" "$LOCAL/webhook-server.log" \
    || { log "webhook server not ready after 60 s:"; tail -40 "$LOCAL/webhook-server.log" >&2; exit 1; }
else
  log "WARNING: $SERVER_MAIN not built yet; webhooks are installed but nothing answers them"
fi

# 4. controller, with the local-only simulators (poollet and CAPI stand-ins) ---------------------
# CONTROLLER_ARGS come last, so they can override the defaults here (e.g. --poollet-shutdown-delay=5s).
CONTROLLER_MAIN=dev.ironcore.maintenance.controller.ControllerMain
CONTROLLER_CP="$(classpath controller)"
log "starting controller --simulate-poollet --simulate-capi --capi-machine-selector='$CAPI_MACHINE_SELECTOR' $CONTROLLER_ARGS (log: $LOCAL/controller.log)"
# shellcheck disable=SC2086 # CONTROLLER_ARGS is a list of flags
java -cp "$CONTROLLER_CP" "$CONTROLLER_MAIN" --simulate-poollet --simulate-capi \
  --capi-machine-selector="$CAPI_MACHINE_SELECTOR" $CONTROLLER_ARGS \
  >"$LOCAL/controller.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 300); do
  grep -q "controller started" "$LOCAL/controller.log" 2>/dev/null && break
  kill -0 "${PIDS[-1]}" 2>/dev/null || { log "controller exited:"; tail -40 "$LOCAL/controller.log" >&2; exit 1; }
  sleep 0.2
done

# 5. demo: pool-a with three Machines and a CAPI Machine, then a watched drain --------------------
if [ "$DEMO" = "true" ]; then
  log "demo (make run DEMO=false skips it)"
  CAPI_MACHINE_SELECTOR="$CAPI_MACHINE_SELECTOR" \
    java -cp "$CONTROLLER_CP" dev.ironcore.maintenance.controller.demo.DrainDemo || log "demo FAILED; see $LOCAL/controller.log"
fi

echo
echo "export KUBECONFIG=$LOCAL/kubeconfig"
echo
log "running; Ctrl-C stops everything"
# stay up until Ctrl-C or until one of the processes exits
wait -n "${PIDS[@]}" || true
log "a process exited; see logs in $LOCAL"
