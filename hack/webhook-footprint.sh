#!/usr/bin/env bash
# Footprint of the webhook server with the shipped settings, in figures a loaded machine does not
# distort: CPU time (utime+stime) consumed until /readyz first answers, RSS (VmRSS/VmHWM), loaded
# classes (-Xlog:class+load), optionally Native Memory Tracking after h2load saturation.
# Wall-clock figures are printed for context only. Used for bench/results/*-footprint*.md.
#
#   hack/webhook-footprint.sh [SECONDS_OF_LOAD]   (default 15; 0 = start-up only)
#   FOOTPRINT_PORT=21299  FOOTPRINT_NMT=true  FOOTPRINT_JAVA_TOOL_OPTIONS=...  FOOTPRINT_ARGS=...
#   FOOTPRINT_REVIEW=file.json (the AdmissionReview sent under load; default a 4 KB CAPI Machine CREATE)
#   FOOTPRINT_CLASS_LOG=FILE: keep the class-load log (-Xlog:class+load) there
#   FOOTPRINT_LOOKUPS=N: N eviction-warning lookups before the load (a cluster with bench-pool, e.g.
#     from bench WebhookCluster: WebhookBench ... --controlplane-dir DIR --hold SECONDS, which prints
#     the webhook pod's environment to export here, as make bench runs it; KUBECONFIG works too but
#     costs about 5 MiB more: fabric8 loads every model class it knows when it parses a kubeconfig)
# JAVA_TOOL_OPTIONS, MALLOC_ARENA_MAX and the tuning args default to the Deployment's
# (manifests/deploy/webhook_deployment.yaml); FOOTPRINT_* override them for experiments.
# Needs image/target/jvm (mvn -DskipTests package -pl image -am: the image's Java), h2load, openssl.
set -euo pipefail
cd "$(dirname "$0")/.."
load_seconds=${1:-15}
port=${FOOTPRINT_PORT:-21299}
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; [ -z "${FOOTPRINT_CLASS_LOG:-}" ] || cp "$work/classes.log" "$FOOTPRINT_CLASS_LOG"; rm -rf "$work"' EXIT

deployment=manifests/deploy/webhook_deployment.yaml
. hack/deployment-env.sh
shipped_opts=$(deployment_env "$deployment" JAVA_TOOL_OPTIONS)
shipped_arena=$(deployment_env "$deployment" MALLOC_ARENA_MAX)
shipped_args=$(awk '/^ *args:/{f=1;next} f&&/^ *- --/{print $2} f&&/^ *[a-z]+:/{exit}' "$deployment" |
  grep -v -e '^--port' -e '^--tls-' -e 'bind-address' | tr '\n' ' ')
# the Deployment's probe and metrics ports, on free loopback ports
shipped_args="$shipped_args --health-probe-bind-address=127.0.0.1:0 --metrics-bind-address=127.0.0.1:0"
opts=${FOOTPRINT_JAVA_TOOL_OPTIONS:-$shipped_opts}
args=${FOOTPRINT_ARGS:-$shipped_args}

# the image's Java and classpath as the build leaves them (hack/java-runtime.sh): /opt/java and
# /app/jvm of the image mapped to image/target/jvm
jvm=image/target/jvm
[ -x "$jvm/runtime/bin/java" ] || { echo "no $jvm: run 'mvn -B -DskipTests package -pl image -am' first" >&2; exit 1; }
opts=${opts//\/app\/jvm\//$PWD/$jvm/app/}

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
  -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$work/tls.key" -out "$work/tls.crt" 2>/dev/null
review=${FOOTPRINT_REVIEW:-bench/src/main/resources/reviews/capi-machine-create.json}

extra="-Xlog:class+load:file=$work/classes.log"
if [[ ${FOOTPRINT_NMT:-false} == true ]]; then extra="$extra -XX:NativeMemoryTracking=summary"; fi
echo "JAVA_TOOL_OPTIONS=\"$opts\" MALLOC_ARENA_MAX=${shipped_arena:-unset} args: $args"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
hz=$(getconf CLK_TCK)
start_ns=$(date +%s%N)
# shellcheck disable=SC2086
env JAVA_TOOL_OPTIONS="$opts $extra" ${shipped_arena:+MALLOC_ARENA_MAX=$shipped_arena} \
  "$jvm/runtime/bin/java" "@$jvm/local.classpath" dev.ironcore.maintenance.server.WebhookServerMain --port "$port" \
  --bind-address 127.0.0.1 --tls-cert-file "$work/tls.crt" --tls-private-key-file "$work/tls.key" \
  $args >"$work/server.log" 2>&1 &
pid=$!
cpu_ms() { awk -v hz="$hz" '{print ($14+$15)*1000/hz}' "/proc/$pid/stat"; }
status() { awk -v k="$1:" '$1==k{printf "%.1f", $2/1024}' "/proc/$pid/status"; }
threads() { awk '$1=="Threads:"{print $2}' "/proc/$pid/status"; }
until curl -skf -o /dev/null "https://127.0.0.1:$port/readyz"; do
  kill -0 "$pid" 2>/dev/null || { cat "$work/server.log"; exit 1; }
  sleep 0.005
done
ready_cpu=$(cpu_ms)
ready_wall=$(( ($(date +%s%N) - start_ns) / 1000000 ))
cp "$work/classes.log" "$work/classes-ready.log"
echo "ready: cpu ${ready_cpu} ms (wall ${ready_wall} ms, context only), RSS $(status VmRSS) MiB, classes $(grep -c 'class,load' "$work/classes.log") , threads $(threads)"
sleep 3
echo "ready+3s: cpu $(cpu_ms) ms, RSS $(status VmRSS) MiB, classes $(grep -c 'class,load' "$work/classes.log")"
if ((${FOOTPRINT_LOOKUPS:-0} > 0)); then
  # eviction-warning lookups: MachinePool writes adding a NoExecute taint, each a LIST of the pool's
  # Machines (needs a cluster with the pool, e.g. WebhookBench --hold)
  h2load -n "$FOOTPRINT_LOOKUPS" -c 1 -H 'content-type: application/json' \
    -d bench/src/main/resources/reviews/machinepool-taint-update.json \
    "https://127.0.0.1:$port/validate/machinepool" 2>&1 | grep -E '^(finished|status)' | tr '\n' ' '
  echo
  echo "after ${FOOTPRINT_LOOKUPS} lookups: RSS $(status VmRSS) MiB, classes $(grep -c 'class,load' "$work/classes.log")"
fi
if ((load_seconds > 0)); then
  load_cpu=$(cpu_ms)
  h2=$(h2load -c ${FOOTPRINT_CONNECTIONS:-4} -m ${FOOTPRINT_STREAMS:-16} -D "$load_seconds" -H 'content-type: application/json' -d "$review" \
    "https://127.0.0.1:$port/mutate/capi-machine" 2>&1 | grep -E '^(finished|requests|status)')
  echo "h2 saturation ${load_seconds}s: $(echo "$h2" | tr '\n' ' ')"
  h2_cpu=$(cpu_ms)
  h1=$(h2load --h1 -c 16 -D "$load_seconds" -H 'content-type: application/json' -d "$review" \
    "https://127.0.0.1:$port/mutate/capi-machine" 2>&1 | grep -E '^(finished|status)')
  echo "h1 saturation ${load_seconds}s: $(echo "$h1" | tr '\n' ' ')"
  h1_served=$(echo "$h1" | grep -o '[0-9]* 2xx' | awk '{print $1}')
  echo "CPU per request, h1 phase (after the h2 phase warmed up): $(awk -v a="$h2_cpu" -v b="$(cpu_ms)" -v n="$h1_served" 'BEGIN{printf "%.3f", (b-a)/n}') ms"
  served=$(echo "$h2 $h1" | grep -o '[0-9]* 2xx' | awk '{n+=$1} END{print n}')
  echo "CPU per request during load (JIT included): $(awk -v a="$load_cpu" -v b="$(cpu_ms)" -v n="$served" 'BEGIN{printf "%.3f", (b-a)/n}') ms over $served requests"
  echo "after load: cpu $(cpu_ms) ms, RSS $(status VmRSS) MiB, peak (VmHWM) $(status VmHWM) MiB, classes $(grep -c 'class,load' "$work/classes.log"), threads $(threads)"
fi
if [[ ${FOOTPRINT_NMT:-false} == true ]]; then
  jcmd "$pid" VM.native_memory summary | grep -E '^ *-? *(Total|Java Heap|Class|Thread|Code|GC|Internal|Other|Symbol|Shared|Metaspace|Arena)' | sed 's/^ *//'
fi
# FOOTPRINT_TOP=N: the N packages (three levels) with the most classes loaded when ready, then
# the N with the most classes loaded by the end NOT from the AOT cache (parsed from jars: metaspace)
awk '{print $2}' "$work/classes-ready.log" | awk -F. '{print $1"."$2"."$3}' | sort | uniq -c | sort -rn | head -${FOOTPRINT_TOP:-0} || true
if ((${FOOTPRINT_TOP:-0} > 0)); then
  echo "not from the AOT cache by the end: $(grep -vc 'shared objects file' "$work/classes.log") classes"
  grep -v 'shared objects file' "$work/classes.log" | awk '{print $2}' | awk -F. '{print $1"."$2"."$3"."$4}' |
    sort | uniq -c | sort -rn | head -"$FOOTPRINT_TOP" || true
fi
