#!/usr/bin/env bash
# make run: a local control plane with our CRDs and webhooks, the webhook server on
# https://127.0.0.1:$WEBHOOK_PORT and (once it exists) the controller. Ctrl-C stops everything.
#
# Environment: DEMO (default true), CONTROLLER_ARGS (extra controller flags), WEBHOOK_ARGS (extra
# webhook server flags, e.g. --zap-log-level=debug), SIMULATOR_ARGS (extra
# flags of the local simulators, e.g. --poollet-shutdown-delay=5s), WEBHOOK_PORT (9443),
# CAPI_MACHINE_SELECTOR (label selector given to BOTH the webhook server and the controller;
# default empty = all CAPI Machines), TWO_CLUSTERS (default false; true: a second control plane
# holds the IronCore API - MachinePools, Machines, pool Leases - while CAPI Machines and the
# controller's own Lease stay in the first; the controller, simulators and demo get
# --ironcore-kubeconfig, and each API server registers only the webhooks of what it stores).
# Everything lives in .local/ (git-ignored): kubeconfig, control-plane pki and logs, certs/,
# *.log of each process; the second control plane in .local/ironcore/. One make run per checkout:
# .local/run.lock is held by this script and every process it starts (.local/run.pid: its pid).
# WEBHOOK_PORT, CONTROLLER_HEALTH_PORT, CONTROLLER_METRICS_PORT (9443, 8081, 8080) are checked
# before anything is built or started. When a control plane (etcd or kube-apiserver), the webhook
# server or the simulators exit, everything stops with the name, exit code and last log lines.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
LOCAL="$ROOT/.local"
DEMO="${DEMO:-true}"
CONTROLLER_ARGS="${CONTROLLER_ARGS:-}"
SIMULATOR_ARGS="${SIMULATOR_ARGS:-}"
WEBHOOK_ARGS="${WEBHOOK_ARGS:-}"
WEBHOOK_PORT="${WEBHOOK_PORT:-9443}"
CAPI_MACHINE_SELECTOR="${CAPI_MACHINE_SELECTOR:-}"
CONTROLLER_HEALTH_PORT="${CONTROLLER_HEALTH_PORT:-8081}"
CONTROLLER_METRICS_PORT="${CONTROLLER_METRICS_PORT:-8080}"
TWO_CLUSTERS="${TWO_CLUSTERS:-false}"
IRONCORE_LOCAL="$LOCAL/ironcore"
# $MVN may carry options (MVN="mvn -o"): split into words once
read -r -a MVN_CMD <<<"${MVN:-mvn}"

log() { echo "[run] $*" >&2; }
# Maven, quiet: output only when it fails (mvn -q still prints terminal escape codes).
mvnq() {
  local out
  if ! out="$("${MVN_CMD[@]}" -q -B "$@" 2>&1)"; then
    echo "$out" >&2
    log "the Maven build failed (MVN='${MVN:-mvn}'); its output is above"
    return 1
  fi
}

# Ports first: a bad one stops make run before anything is built, started or written.
PORT_VARS=(WEBHOOK_PORT CONTROLLER_HEALTH_PORT CONTROLLER_METRICS_PORT)
for port_var in "${PORT_VARS[@]}"; do
  if ! [[ "${!port_var}" =~ ^[0-9]{1,5}$ ]] || ((10#${!port_var} < 1 || 10#${!port_var} > 65535)); then
    log "$port_var must be a port number from 1 to 65535, got '${!port_var}'"
    exit 1
  fi
  printf -v "$port_var" '%d' "$((10#${!port_var}))" # 09443 is 9443
done
for port_var in "${PORT_VARS[@]}"; do
  for other in "${PORT_VARS[@]}"; do
    if [ "$other" != "$port_var" ] && [ "${!other}" = "${!port_var}" ]; then
      log "$port_var and $other are both ${!port_var}; give each its own port"
      exit 1
    fi
  done
done

# The controller of .local/controller.pid, if that pid still runs this checkout's controller (also
# one restarted by hand, which is not our child).
controller_pid() {
  local pid
  pid="$(cat "$LOCAL/controller.pid" 2>/dev/null)" || return 1
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] \
    && tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -q "$ROOT/controller/target/classes.*ControllerMain" \
    && echo "$pid"
}

# One make run per checkout: .local/ (kubeconfig, etcd data, certificates, logs) belongs to the
# running one. The lock is held until the last process of this make run ends (they inherit it).
mkdir -p "$LOCAL"
exec 9>>"$LOCAL/run.lock"
if ! flock -n 9; then
  exec 9>&- # (so that fuser below lists only the other make run's processes)
  other="$(cat "$LOCAL/run.pid" 2>/dev/null || true)"
  if [ -n "$other" ] && kill -0 "$other" 2>/dev/null; then
    log "another make run of this checkout is running (pid $other) and owns $LOCAL; stop it first (Ctrl-C there), or use another checkout"
  else
    # a controller restarted by hand (.local/controller.sh) does not hold the lock: name it too
    log "processes of an earlier make run of this checkout still use $LOCAL (pids: $( (fuser "$LOCAL/run.lock" 2>/dev/null; echo; controller_pid) | xargs -n1 | sort -un | xargs)); stop them first"
  fi
  exit 1
fi
echo $$ >"$LOCAL/run.pid"
# a refusal below leaves no pid of a finished make run behind (cleanup replaces this trap)
trap 'rm -f "$LOCAL/run.pid"' EXIT
if stray="$(controller_pid)"; then
  log "a controller of an earlier make run (pid $stray, started by $LOCAL/controller.sh) still runs; stop it first: kill $stray"
  exit 1
fi

# in_use HOST PORT: something listens there (a connect succeeds, or hangs: a listener that does
# not accept, its queue full, still holds the port). HOST "*" (a wildcard bind: ":P", "0.0.0.0:P",
# "[::]:P"): any listener on the port, on any address, as ss shows (else 127.0.0.1 and ::1)
in_use() {
  local rc host
  if [ "$1" = "*" ]; then
    if command -v ss >/dev/null; then
      [ -n "$(ss -Hltn "sport = :$2" 2>/dev/null)" ] && return 0
      return 1
    fi
    for host in 127.0.0.1 ::1; do in_use "$host" "$2" && return 0; done
    return 1
  fi
  rc=0
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$1" "$2" 2>/dev/null || rc=$?
  [ "$rc" = 0 ] || [ "$rc" = 124 ]
}
# last_value ARGS FLAG: the last value ARGS give FLAG (--flag=V or --flag V), empty when none
last_value() {
  local a prev= value=
  for a in $1; do
    case "$a" in
      "$2="*) value="${a#*=}" ;;
      *) [ "$prev" = "$2" ] && value="$a" ;;
    esac
    prev="$a"
  done
  echo "$value"
}
# bind_port ADDRESS: its port as a number ("" for 0, none or not a number); bind_host ADDRESS: its
# host, "*" for a wildcard
bind_port() {
  local port="${1##*:}"
  [[ "$port" =~ ^[0-9]{1,9}$ ]] && ((10#$port > 0 && 10#$port <= 65535)) && echo "$((10#$port))"
  return 0
}
bind_host() {
  local host="${1%:*}"
  [ "$host" = "$1" ] && host=
  host="${host#[}" host="${host%]}"
  case "$host" in "" | 0.0.0.0 | "::") echo "*" ;; *) echo "$host" ;; esac
}
# The controller's health address is where make run waits for it: CONTROLLER_HEALTH_PORT only. Its
# metrics address in CONTROLLER_ARGS (the last one, after make run's own) replaces
# CONTROLLER_METRICS_PORT's.
case " $CONTROLLER_ARGS " in
  *" --health-probe-bind-address"*)
    log "use CONTROLLER_HEALTH_PORT instead of --health-probe-bind-address in CONTROLLER_ARGS (make run waits for the controller's /readyz there)"
    exit 1 ;;
esac
metrics_address="$(last_value "$CONTROLLER_ARGS" --metrics-bind-address)"
controller_metrics_port="$CONTROLLER_METRICS_PORT"
[ -n "$metrics_address" ] && controller_metrics_port="$(bind_port "$metrics_address")"
for port_var in "${PORT_VARS[@]}"; do
  [ "$port_var" = CONTROLLER_METRICS_PORT ] && [ -n "$metrics_address" ] && continue
  if in_use 127.0.0.1 "${!port_var}"; then
    log "port ${!port_var} is already in use; stop what uses it or use $port_var=<free port>"
    exit 1
  fi
done
# free now, but inside the kernel's ephemeral range an outgoing connection (the build's, the
# control plane's) may take it before it is bound, minutes later: say so now, not after the build
ephemeral_low= ephemeral_high=
read -r ephemeral_low ephemeral_high </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
if [[ "$ephemeral_low" =~ ^[0-9]+$ && "$ephemeral_high" =~ ^[0-9]+$ ]]; then
  for port_var in "${PORT_VARS[@]}"; do
    if ((${!port_var} >= ephemeral_low && ${!port_var} <= ephemeral_high)); then
      log "warning: $port_var=${!port_var} lies in the kernel's ephemeral port range" \
        "($ephemeral_low-$ephemeral_high): an outgoing connection may take it before it is bound" \
        "(Address already in use after the build); ports below $ephemeral_low are safe"
    fi
  done
fi
# check_address WHAT FLAG ADDRESS OTHER...: its port is none of the OTHER "NAME=PORT" and free
check_address() {
  local what="$1" flag="$2" address="$3" port host other
  shift 3
  port="$(bind_port "$address")"
  [ -n "$port" ] || return 0
  for other in "$@"; do
    if [ -n "${other#*=}" ] && [ "$port" = "${other#*=}" ]; then
      log "$what $flag uses port $port, which is ${other%%=*}; give it another port"
      exit 1
    fi
  done
  host="$(bind_host "$address")"
  if in_use "$host" "$port"; then
    log "$what $flag: port $port is already in use$([ "$host" = "*" ] || echo " on $host"); stop what uses it or give it a free port"
    exit 1
  fi
}
[ -n "$metrics_address" ] && check_address CONTROLLER_ARGS --metrics-bind-address "$metrics_address" \
  "WEBHOOK_PORT=$WEBHOOK_PORT" "CONTROLLER_HEALTH_PORT=$CONTROLLER_HEALTH_PORT"
for flag in --health-probe-bind-address --metrics-bind-address; do
  address="$(last_value "$WEBHOOK_ARGS" "$flag")"
  [ -n "$address" ] && check_address WEBHOOK_ARGS "$flag" "$address" "WEBHOOK_PORT=$WEBHOOK_PORT" \
    "CONTROLLER_HEALTH_PORT=$CONTROLLER_HEALTH_PORT" \
    "$([ -n "$metrics_address" ] && echo "the controller's --metrics-bind-address" || echo CONTROLLER_METRICS_PORT)=$controller_metrics_port"
done
for bool_var in TWO_CLUSTERS DEMO; do
  case "${!bool_var}" in
    true|false) ;;
    *) log "$bool_var='${!bool_var}': use true or false"; exit 1 ;;
  esac
done
case " $CONTROLLER_ARGS " in
  *--ironcore-kubeconfig*)
    log "use TWO_CLUSTERS=true instead of --ironcore-kubeconfig in CONTROLLER_ARGS"
    exit 1 ;;
esac
for args in CONTROLLER_ARGS WEBHOOK_ARGS; do
  case " ${!args} " in
    *" --kubeconfig"*)
      log "make run points both processes at its own control plane (.local/kubeconfig):" \
        "remove --kubeconfig from $args"
      exit 1 ;;
    *--capi-machine-selector*)
      log "use CAPI_MACHINE_SELECTOR='...' instead of --capi-machine-selector in $args:" \
        "the webhook server must mark exactly the CAPI Machines the controller drains"
      exit 1 ;;
  esac
done

# WEBHOOK_ARGS: what a string can tell, before anything is built (its flags are checked by the
# server itself below, once built)
for a in $WEBHOOK_ARGS; do
  case "$a" in
    --port | --port=*)
      log "WEBHOOK_ARGS sets --port: set WEBHOOK_PORT instead (make run waits for the server there and points the webhooks at it)"
      exit 1 ;;
    --bind-address | --bind-address=*)
      log "WEBHOOK_ARGS sets --bind-address: make run serves the webhooks on 127.0.0.1, which the webhooks and its readiness check point at"
      exit 1 ;;
  esac
done

BIN_DIR="$(hack/build-controlplane.sh)"
export CONTROLPLANE_DIR="$BIN_DIR"

# One reactor build writes every module's runtime classpath; our own modules resolve to this
# checkout's target/ (nothing is installed into ~/.m2, which other checkouts share).
# (not the image module: its Java runtime and AOT cache are for the image, make run uses this java)
log "building (mvn package, no tests)"
mvnq -DskipTests package dependency:build-classpath -DincludeScope=runtime \
  -Dmdep.outputFile=target/runtime-classpath.txt -pl '!image'

# Runtime classpath of a module: its classes plus its runtime dependencies, with our own modules
# taken from this checkout's target/classes.
classpath() {
  local module="$1" out="$ROOT/$1/target/runtime-classpath.txt"
  echo "$ROOT/$module/target/classes:$(sed -E "s#$ROOT/([a-z]+)/target/[a-z]+-[^/:]+\.jar#$ROOT/\1/target/classes#g" "$out")"
}
has_main() { [ -f "$ROOT/$1/target/classes/$(echo "$2" | tr . /).class" ]; }

# devtools: local-only tools (control plane, manifests, simulators, demo); the controller runs from
# its own module's classpath, which holds no simulator.
DEVTOOLS_CP="$(classpath devtools)"
CONTROLLER_CP="$(classpath controller)"

# The controller's command line, also written to .local/controller.sh so that it can be started
# again by hand (e.g. after killing it mid-drain to watch it resume). CONTROLLER_ARGS come last,
# so they can override the defaults here (e.g. --resync-period=30s).
# shellcheck disable=SC2206 # CONTROLLER_ARGS is a list of flags
CONTROLLER_CMD=(java -cp "$CONTROLLER_CP" dev.ironcore.maintenance.controller.ControllerMain
  --capi-machine-selector="$CAPI_MACHINE_SELECTOR"
  --health-probe-bind-address="127.0.0.1:$CONTROLLER_HEALTH_PORT"
  --metrics-bind-address="127.0.0.1:$CONTROLLER_METRICS_PORT" $CONTROLLER_ARGS)
# --validate-flags right after the class, so that a flag missing its value at the end of
# CONTROLLER_ARGS reads as picocli's "Missing required parameter", not "found '--validate-flags'"
CONTROLLER_JAVA=("${CONTROLLER_CMD[@]:0:4}") # java -cp CP class
CONTROLLER_FLAGS=("${CONTROLLER_CMD[@]:4}")
if ! out="$("${CONTROLLER_JAVA[@]}" --validate-flags "${CONTROLLER_FLAGS[@]}" 2>&1)"; then
  log "the controller refuses its flags (CONTROLLER_ARGS='$CONTROLLER_ARGS', CAPI_MACHINE_SELECTOR='$CAPI_MACHINE_SELECTOR'):"
  echo "$out" | head -3 >&2
  exit 1
fi
# the webhook server's flags too (WEBHOOK_ARGS), before anything starts; its port is WEBHOOK_PORT,
# which make run also waits on and installs the webhooks with
SERVER_MAIN=dev.ironcore.maintenance.server.WebhookServerMain
# shellcheck disable=SC2086 # WEBHOOK_ARGS is a list of flags
if has_main server "$SERVER_MAIN" && ! out="$(java -cp "$(classpath server)" "$SERVER_MAIN" \
  --port "$WEBHOOK_PORT" --bind-address 127.0.0.1 --tls-cert-file "$LOCAL/certs/tls.crt" \
  --tls-private-key-file "$LOCAL/certs/tls.key" --capi-machine-selector "$CAPI_MACHINE_SELECTOR" \
  --validate-flags $WEBHOOK_ARGS 2>&1)"; then
  log "the webhook server refuses its flags (WEBHOOK_ARGS='$WEBHOOK_ARGS'):"
  echo "$out" | head -3 >&2
  exit 1
fi
# the local simulators' flags too (SIMULATOR_ARGS)
SIMULATOR_MAIN=dev.ironcore.maintenance.devtools.sim.SimulatorsMain
# shellcheck disable=SC2086 # SIMULATOR_ARGS is a list of flags
if ! out="$(java -cp "$DEVTOOLS_CP" "$SIMULATOR_MAIN" --simulate-poollet --simulate-capi \
  --validate-flags $SIMULATOR_ARGS 2>&1)"; then
  log "the simulators refuse their flags (SIMULATOR_ARGS='$SIMULATOR_ARGS'):"
  echo "$out" | head -3 >&2
  exit 1
fi
# (added after the checks above: the IronCore kubeconfig exists only once its control plane runs)
SIMULATOR_CLUSTER_ARGS=()
if [ "$TWO_CLUSTERS" = "true" ]; then
  CONTROLLER_CMD+=(--ironcore-kubeconfig="$IRONCORE_LOCAL/kubeconfig")
  SIMULATOR_CLUSTER_ARGS=(--ironcore-kubeconfig="$IRONCORE_LOCAL/kubeconfig")
fi
{
  echo '#!/usr/bin/env bash'
  echo "# written by make run: starts the controller as make run did; extra flags are appended."
  echo "# Its pid goes to $LOCAL/controller.pid (stop it with: kill \$(cat $LOCAL/controller.pid)), once"
  echo "# its flags are accepted: a refused flag, --help or --version leave the file as it was."
  echo "export KUBECONFIG=$LOCAL/kubeconfig"
  echo 'for a in "$@"; do case "$a" in -h | --help | -V | --version)'
  printf '  exec'; printf ' %q' "${CONTROLLER_CMD[@]}"; echo ' "$@" ;; esac; done'
  printf ' %q' "${CONTROLLER_JAVA[@]}"; printf ' --validate-flags'; printf ' %q' "${CONTROLLER_CMD[@]:4}"
  echo ' "$@" >/dev/null || exit $?'
  # a second controller would fail on the taken ports, but only after overwriting the pid file
  cat <<GUARD
old=\$(cat $LOCAL/controller.pid 2>/dev/null)
if [ -n "\$old" ] && tr '\\0' ' ' 2>/dev/null </proc/\$old/cmdline | grep -q ControllerMain; then
  echo "controller.sh: a controller is already running (pid \$old, $LOCAL/controller.pid); stop it first: kill \$old" >&2
  exit 1
fi
GUARD
  echo "echo \$\$ >$LOCAL/controller.pid"
  printf 'exec'; printf ' %q' "${CONTROLLER_CMD[@]}"; echo ' "$@"'
} >"$LOCAL/controller.sh"
chmod +x "$LOCAL/controller.sh"

PIDS=()
# what each background process is, for the message when it dies: "name|log file"
declare -A NAMES=()
cleanup() {
  trap - EXIT INT TERM
  log "stopping"
  local i pid
  if pid="$(controller_pid)"; then kill -TERM "$pid" 2>/dev/null || true; fi
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do kill -TERM "${PIDS[i]}" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  if pid="$(controller_pid)"; then
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  fi
  rm -f "$LOCAL/controller.pid" "$LOCAL/run.pid" "$LOCAL/webhook-server.pid"
  log "stopped"
}
trap cleanup EXIT
# Ctrl-C: 130 as usual (make reports "Interrupt" anyway); SIGTERM to .local/run.pid is a requested
# stop: once everything has stopped, exit 0, so that make does not report it as an error
trap 'exit 130' INT
trap 'exit 0' TERM

# 0. webhook serving certificate (CA kept across runs), before anything starts: a CA that cannot
#    be used (expired, garbage) stops make run here, with what to do
if ! java -cp "$DEVTOOLS_CP" dev.ironcore.maintenance.certs.GenerateCerts \
  --out "$LOCAL/certs" --service ironcore-maintenance-webhook --namespace ironcore-maintenance-system >/dev/null; then
  log "the local CA in $LOCAL/certs cannot be used (above): remove $LOCAL/certs/ca.crt and ca.key and run make run again; it makes a new CA and installs it in its clusters itself (make rotate-certs needs make run up)"
  exit 1
fi

# 1. control plane(s) (etcd + kube-apiserver) until we stop them
# start_controlplane WORK_DIR WHAT: runs LocalControlPlaneMain in the background, waits for WORK/ready
start_controlplane() {
  local work="$1" what="$2" pid
  mkdir -p "$work"
  rm -f "$work/ready"
  log "starting $what control plane (logs: $work/etcd.log, $work/kube-apiserver.log)"
  java -cp "$DEVTOOLS_CP" dev.ironcore.maintenance.devtools.LocalControlPlaneMain \
    --bin-dir "$BIN_DIR" --work-dir "$work" >"$work/controlplane.out" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  NAMES[$pid]="$what control plane (etcd + kube-apiserver)|$work/controlplane.out"
  for _ in $(seq 1 600); do
    [ -f "$work/ready" ] && break
    if ! kill -0 "$pid" 2>/dev/null; then
      log "$what control plane failed to start:"; cat "$work/controlplane.out" >&2; exit 1
    fi
    sleep 0.2
  done
  [ -f "$work/ready" ] || { log "$what control plane not ready after 120 s"; tail -40 "$work/controlplane.out" >&2; exit 1; }
  log "$what control plane ready at $(cat "$work/ready")"
}
if [ "$TWO_CLUSTERS" = "true" ]; then
  start_controlplane "$LOCAL" "CAPI (the controller's own cluster)"
  start_controlplane "$IRONCORE_LOCAL" "IronCore API"
else
  start_controlplane "$LOCAL" "local"
fi
export KUBECONFIG="$LOCAL/kubeconfig"

# 2. manifests/local pointed at the webhook (its certificate is made before anything starts, above)
# install_manifests KUBECONFIG [--only-api-group GROUP]
install_manifests() {
  java -cp "$DEVTOOLS_CP" dev.ironcore.maintenance.devtools.InstallManifests \
    --kubeconfig "$1" --overlay "$ROOT/manifests/local" "${@:2}" \
    --base-url "https://127.0.0.1:$WEBHOOK_PORT" --ca-bundle "$LOCAL/certs/ca.crt" --kubectl "$BIN_DIR/kubectl" >&2
}
if [ "$TWO_CLUSTERS" = "true" ]; then
  # each API server registers the webhooks of what it stores (one local webhook server serves both)
  install_manifests "$KUBECONFIG" --only-api-group cluster.x-k8s.io
  install_manifests "$IRONCORE_LOCAL/kubeconfig" --only-api-group compute.ironcore.dev
else
  install_manifests "$KUBECONFIG"
fi

# 3. webhook server
if has_main server "$SERVER_MAIN"; then
  log "starting webhook server on https://127.0.0.1:$WEBHOOK_PORT (log: $LOCAL/webhook-server.log)"
  # it watches Machines (for its eviction warning) where they are stored: the IronCore API
  # WEBHOOK_ARGS come last, so they can override the defaults here
  # shellcheck disable=SC2086 # WEBHOOK_ARGS is a list of flags
  KUBECONFIG="$([ "$TWO_CLUSTERS" = "true" ] && echo "$IRONCORE_LOCAL/kubeconfig" || echo "$KUBECONFIG")" \
    java -cp "$(classpath server)" "$SERVER_MAIN" --port "$WEBHOOK_PORT" --bind-address 127.0.0.1 \
    --tls-cert-file "$LOCAL/certs/tls.crt" --tls-private-key-file "$LOCAL/certs/tls.key" \
    --capi-machine-selector "$CAPI_MACHINE_SELECTOR" $WEBHOOK_ARGS >"$LOCAL/webhook-server.log" 2>&1 &
  PIDS+=($!)
  NAMES[$!]="webhook server|$LOCAL/webhook-server.log"
  echo $! >"$LOCAL/webhook-server.pid" # to try the webhooks down: kill -STOP / -CONT
  for _ in $(seq 1 300); do
    kill -0 "${PIDS[-1]}" 2>/dev/null || { log "webhook server exited:"; tail -40 "$LOCAL/webhook-server.log" >&2; exit 1; }
    # asked over HTTPS rather than read from its log: --zap-log-level=warn hides the start line
    curl -sf --cacert "$LOCAL/certs/ca.crt" "https://127.0.0.1:$WEBHOOK_PORT/healthz" >/dev/null && break
    sleep 0.2
  done
  curl -sf --cacert "$LOCAL/certs/ca.crt" "https://127.0.0.1:$WEBHOOK_PORT/healthz" >/dev/null \
    || { log "webhook server not ready after 60 s:"; tail -40 "$LOCAL/webhook-server.log" >&2; exit 1; }
else
  log "WARNING: $SERVER_MAIN not built yet; webhooks are installed but nothing answers them"
fi

# 4. local-only simulators (poollet and CAPI stand-ins, devtools), then the controller ------------
log "starting simulators of the machinepoollet and Cluster API (LOCAL ONLY; log: $LOCAL/simulators.log)"
# shellcheck disable=SC2086 # SIMULATOR_ARGS is a list of flags
java -cp "$DEVTOOLS_CP" "$SIMULATOR_MAIN" \
  --simulate-poollet --simulate-capi "${SIMULATOR_CLUSTER_ARGS[@]}" $SIMULATOR_ARGS >"$LOCAL/simulators.log" 2>&1 &
PIDS+=($!)
NAMES[$!]="simulators|$LOCAL/simulators.log"
for _ in $(seq 1 300); do
  grep -q "simulators started" "$LOCAL/simulators.log" 2>/dev/null && break
  kill -0 "${PIDS[-1]}" 2>/dev/null || { log "simulators exited:"; tail -20 "$LOCAL/simulators.log" >&2; exit 1; }
  sleep 0.2
done
log "starting controller (.local/controller.sh; log: $LOCAL/controller.log)"
"$LOCAL/controller.sh" >"$LOCAL/controller.log" 2>&1 &
CONTROLLER_PID=$!
PIDS+=("$CONTROLLER_PID")
# started: its INFO line, or /readyz (the line is hidden by --zap-log-level=warn or error)
for _ in $(seq 1 300); do
  grep -q "controller started" "$LOCAL/controller.log" 2>/dev/null && break
  curl -sf -o /dev/null "http://127.0.0.1:$CONTROLLER_HEALTH_PORT/readyz" 2>/dev/null && break
  kill -0 "$CONTROLLER_PID" 2>/dev/null || {
    log "controller exited:"
    if [ "$(wc -l <"$LOCAL/controller.log")" -le 25 ]; then cat "$LOCAL/controller.log" >&2
    else head -5 "$LOCAL/controller.log" >&2; echo "..." >&2; tail -20 "$LOCAL/controller.log" >&2; fi
    exit 1; }
  sleep 0.2
done

# 5. demo: pool-a with three Machines and a CAPI Machine, then a watched drain --------------------
if [ "$DEMO" = "true" ]; then
  log "demo (make run DEMO=false skips it)"
  CAPI_MACHINE_SELECTOR="$CAPI_MACHINE_SELECTOR" \
    IRONCORE_KUBECONFIG="$([ "$TWO_CLUSTERS" = "true" ] && echo "$IRONCORE_LOCAL/kubeconfig")" \
    java -cp "$DEVTOOLS_CP" dev.ironcore.maintenance.devtools.demo.DrainDemo || log "demo FAILED; see $LOCAL/controller.log"
fi

KUBECTL_VERSION="$("$BIN_DIR/kubectl" version --client -o json 2>/dev/null | sed -n 's/.*"gitVersion": *"\([^"]*\)".*/\1/p' | head -1)"
echo
echo "export KUBECONFIG=$LOCAL/kubeconfig"
echo "export PATH=$BIN_DIR:\$PATH   # kubectl ${KUBECTL_VERSION:-?}, built with the API server (same version, no skew)"
if [ "$TWO_CLUSTERS" = "true" ]; then
  echo "# CAPI Machines live there; the IronCore API (MachinePools, Machines) is at:"
  echo "#   kubectl --kubeconfig $IRONCORE_LOCAL/kubeconfig get machinepools,machines.compute.ironcore.dev -A"
fi
echo
log "controller pid $(cat "$LOCAL/controller.pid" 2>/dev/null) in $LOCAL/controller.pid; kill it to try a crash mid-drain:"
log "  kill -9 \$(cat $LOCAL/controller.pid)   then restart: $LOCAL/controller.sh >>$LOCAL/controller.log 2>&1 &"
# the pools, their Leases and the health loop's probe live on the IronCore API server
api_dir="$LOCAL"
[ "$TWO_CLUSTERS" = "true" ] && api_dir="$IRONCORE_LOCAL"
log "pause the API server of the pools and Leases to try an outage: kill -STOP \$(cat $api_dir/kube-apiserver.pid), resume: kill -CONT \$(cat $api_dir/kube-apiserver.pid) (etcd: $api_dir/etcd.pid)"
log "running; Ctrl-C stops everything (a controller restarted by hand too)"
# Stay up until Ctrl-C or until a control plane (its etcd or kube-apiserver), the webhook server or
# the simulators exit: then say which one, with its exit code and last log lines, and stop the rest.
# When the controller exits (or is killed to try a crash mid-drain), everything else stays up for a
# restart by hand.
while true; do
  exited=""
  code=0
  wait -n -p exited "${PIDS[@]}" || code=$?
  if [ -n "$exited" ] && [ "$exited" = "$CONTROLLER_PID" ]; then
    log "controller exited (see $LOCAL/controller.log); the rest stays up. Start it again with:"
    log "  $LOCAL/controller.sh >>$LOCAL/controller.log 2>&1 &"
    log "(its pid goes to $LOCAL/controller.pid; Ctrl-C here stops it too)"
    remaining=()
    for pid in "${PIDS[@]}"; do [ "$pid" != "$CONTROLLER_PID" ] && remaining+=("$pid"); done
    PIDS=("${remaining[@]}")
    CONTROLLER_PID=""
    continue
  fi
  break
done
IFS='|' read -r name logfile <<<"${NAMES[${exited:-none}]:-a process|}"
log "$name exited with code $code (pid ${exited:-?}); stopping everything. Last lines of ${logfile:-the logs in $LOCAL}:"
[ -n "$logfile" ] && tail -n 20 "$logfile" | sed 's/^/  /' >&2
exit 1
