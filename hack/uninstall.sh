#!/usr/bin/env bash
# make uninstall: removes ironcore-maintenance from the cluster of KUBECONFIG, in an order that
# leaves no CAPI Machine stuck on us:
#   1. refuses (changes nothing) while a CAPI Machine is being deleted and still carries our
#      pre-drain hook (a drain is in progress); FORCE=true goes on (CAPI then deletes that node
#      without our drain); in the IronCore cluster of two clusters (no CAPI Machines), while a
#      MachinePool's condition Maintenance says it is in a drain (FORCE=true goes on too)
#   2. deletes our Mutating/ValidatingWebhookConfiguration (nothing adds finalizer or hook any more)
#   3. deletes our Deployments, Services, PodDisruptionBudgets (no drain runs any more)
#   4. removes our finalizer and pre-drain hook annotation from every CAPI Machine (all namespaces;
#      every other finalizer and annotation stays); skipped where machines.cluster.x-k8s.io is not
#      served (the IronCore cluster of a two-cluster install)
#   5. deletes our RBAC and namespace ironcore-maintenance-system
# Never deleted: namespace ironcore-machinepool-lease (IronCore's: every poollet Lease) and the CRDs
# (deleting them deletes every Machine and MachinePool stored in them). Do not use
# `kubectl delete -k manifests/default`: it deletes the lease namespace.
# Two clusters (docs/two-clusters.md): run it once per cluster.
#   (between 2. and 3.: our CRDs' conversion, which calls our Service, is set to None; after 3. it
#   waits for the controller's pods to stop and reads the Machines again: one deleted since 1. is
#   a drain no controller finishes now, refused as in 1.; after 4. it re-reads the Machines: a
#   controller of ours still running elsewhere, e.g. make run's, would put finalizer and hook back)
# Environment: KUBECONFIG (required), DRY_RUN=true (plan only; where 1. refuses, the plan and then
# the refusal, exit 1), FORCE=true (see 1.), WAIT_TIMEOUT (120s: how long to wait for the
# controller's pods).
set -euo pipefail
# relative paths in KUBECONFIG (a :-list) mean the caller's working directory, as for kubectl
absolute() { local p out=() IFS=:; for p in $1; do [ -n "$p" ] && out+=("$(realpath -m -- "$p")"); done; echo "${out[*]}"; }
[ -n "${KUBECONFIG:-}" ] && KUBECONFIG="$(absolute "$KUBECONFIG")" && export KUBECONFIG
cd "$(dirname "$0")/.."

DRY_RUN="${DRY_RUN:-false}"
FORCE="${FORCE:-false}"
say() { echo "[uninstall] $*"; }
joined() { local IFS=,; local all="$*"; echo "${all//,/, }"; } # a, b, c
fail() { echo "uninstall: $1" >&2; exit "${2:-1}"; }
# a drain in progress (step 1): a run is refused before it changes anything; a dry run goes on with
# its plan (what FORCE=true would do) and says after it why a run would be refused, exiting 1 as the
# run would (fresh eyes: DRY_RUN=true during a drain showed no plan, only the refusal)
refusals=()
refuse() {
  [ "$DRY_RUN" = true ] || fail "refused, nothing changed: $1"
  refusals+=("$1")
}
# true or false in any letter case, as make certs takes them; anything else (yes, 1) is refused
# before anything is read or changed (fresh eyes: DRY_RUN=yes uninstalled for real)
for bool_var in DRY_RUN FORCE; do
  case "$(tr '[:upper:]' '[:lower:]' <<<"${!bool_var}")" in
    true) printf -v "$bool_var" true ;;
    false | "") printf -v "$bool_var" false ;;
    *) fail "$bool_var='${!bool_var}': use true or false (or leave $bool_var empty); nothing changed" 2 ;;
  esac
done

# names as in manifests/ (docs/names.md)
NAMESPACE=ironcore-maintenance-system
LEASE_NAMESPACE=ironcore-machinepool-lease
FINALIZER=maintenance.ironcore.dev/machinepool-cleanup
HOOK=pre-drain.delete.hook.machine.cluster.x-k8s.io/ironcore-maintenance
CAPI_MACHINES=machines.cluster.x-k8s.io
POOLS=machinepools.compute.ironcore.dev
# kind name [namespace], in deletion order per step
WEBHOOKS=(
  "mutatingwebhookconfiguration ironcore-maintenance"
  "validatingwebhookconfiguration ironcore-maintenance"
)
WORKLOADS=(
  "deployment ironcore-maintenance-controller $NAMESPACE"
  "deployment ironcore-maintenance-webhook $NAMESPACE"
  "service ironcore-maintenance-webhook $NAMESPACE"
  "service ironcore-maintenance-webhook-metrics $NAMESPACE"
  "service ironcore-maintenance-controller-metrics $NAMESPACE"
  "poddisruptionbudget ironcore-maintenance-webhook $NAMESPACE"
  "poddisruptionbudget ironcore-maintenance-controller $NAMESPACE"
)
RBAC=(
  "clusterrolebinding ironcore-maintenance-controller-capi"
  "clusterrolebinding ironcore-maintenance-controller"
  "clusterrolebinding ironcore-maintenance-webhook"
  "clusterrole ironcore-maintenance-controller-capi"
  "clusterrole ironcore-maintenance-controller"
  "clusterrole ironcore-maintenance-webhook"
  "rolebinding ironcore-maintenance-controller-leader-election $NAMESPACE"
  "role ironcore-maintenance-controller-leader-election $NAMESPACE"
  "rolebinding ironcore-maintenance-controller-pool-leases $LEASE_NAMESPACE"
  "role ironcore-maintenance-controller-pool-leases $LEASE_NAMESPACE"
)

# kubectl (PATH, else the one make controlplane built), as hack/certs.sh finds it
KUBECTL="$(command -v kubectl || ls "$HOME"/.cache/ironcore-maintenance/k8s/*/kubectl 2>/dev/null | head -1 || true)"
[ -n "$KUBECTL" ] || fail "no kubectl on PATH (or run make controlplane)" 2
# stdin closed: kubectl must not prompt for a user name a kubeconfig lacks
k() { "$KUBECTL" --request-timeout=30s "$@" </dev/null; }

if [ -z "${KUBECONFIG:-}" ]; then
  fail "KUBECONFIG is not set: name the cluster to uninstall from (KUBECONFIG=... make uninstall)" 2
fi
found=false
IFS=: read -ra listed <<<"$KUBECONFIG"
for f in "${listed[@]}"; do [ -f "$f" ] && found=true; done
if [ "$found" != true ]; then
  for f in "${listed[@]}"; do [ -e "$f" ] && fail "KUBECONFIG $KUBECONFIG: not a file (a directory?)" 2; done
  fail "KUBECONFIG $KUBECONFIG: no such file" 2
fi
# the kubeconfig itself first: kubectl without a current-context talks to localhost:8080, and its
# errors read as a cluster that does not answer (fresh eyes)
# kubectl's stderr, apart from its output (a warning on stderr must not become the context), and
# its error line: the first line that is no "Warning: ..." ("error: ...", "Error from server
# (Forbidden): ...", "Unable to connect to the server: ..."), else the first line
errfile="$(mktemp)"
trap 'rm -f "$errfile"' EXIT
first_error() { { grep -v -m1 '^Warning: ' "$errfile" || head -1 "$errfile"; } | sed 's/^error: //'; }
if ! context="$(k config current-context 2>"$errfile")"; then
  case "$(cat "$errfile")" in
    *"current-context is not set"*)
      fail "KUBECONFIG $KUBECONFIG: no current-context is set (kubectl config use-context NAME)" 2 ;;
    *) fail "KUBECONFIG $KUBECONFIG: cannot be read: $(first_error)" 2 ;;
  esac
fi
if ! server="$(k config view --minify -o jsonpath='{.clusters[0].cluster.server}' 2>"$errfile")"; then
  fail "KUBECONFIG $KUBECONFIG: current-context $context cannot be used: $(first_error)" 2
fi
# a context whose cluster names no server: kubectl talks to localhost:8080 (as without a context)
[ -n "$server" ] || fail "KUBECONFIG $KUBECONFIG: current-context $context cannot be used: its cluster names no server" 2
# kubectl failing before it sends a request (a file the kubeconfig names is missing, a CA or key
# that does not parse, a server URL that does not, a credential plugin that does not run) is the
# kubeconfig's fault, not the cluster's (fresh eyes: a missing certificate-authority file read "the
# cluster does not answer"); kubectl's words for those, several of them ("Error in configuration:"
# then "* ..." lines) joined into one line; anything else is the cluster's answer, or none
if ! k get --raw /version >/dev/null 2>"$errfile"; then
  line="$(grep -v -m1 '^Warning: ' "$errfile" || head -1 "$errfile")"
  case "$line" in
    "Error in configuration"*)
      fail "KUBECONFIG $KUBECONFIG: current-context $context cannot be used, kubectl sent no request: $(sed -n 's/^\* //p' "$errfile" | paste -sd ';' | sed 's/;/; /g')" 2 ;;
    "error: unable to read "* | "error: unable to load "* | "error: open "* | "error: read /"* | \
      "error: host must be a URL"* | "Unable to connect to the server: getting credentials: "*)
      fail "KUBECONFIG $KUBECONFIG: current-context $context cannot be used, kubectl sent no request: $(sed 's/^error: //; s/^Unable to connect to the server: //' <<<"$line")" 2 ;;
    # a client certificate and key that do not load: kubectl logs it and goes on without them
    *'"Loading client cert failed" err="'*)
      fail "KUBECONFIG $KUBECONFIG: current-context $context cannot be used: its client-certificate and client-key do not load: $(sed 's/.*"Loading client cert failed" err="\([^"]*\)".*/\1/' <<<"$line")" 2 ;;
    *) fail "KUBECONFIG $KUBECONFIG: the cluster does not answer: $(sed 's/^error: //' <<<"$line")" 2 ;;
  esac
fi
say "cluster: context $context, server $server (KUBECONFIG=$KUBECONFIG)$([ "$DRY_RUN" = true ] && echo ", DRY_RUN: nothing is changed")"
# make run's controller and webhook server are its processes, not Deployments this deletes: one
# still running against this cluster would put back what this removes (fresh eyes: with no CAPI
# Machine of ours to notice it by, the uninstall went through beside a running make run)
# make run holds .local/run.lock with every process it starts (as make clean asks it), not only
# while its pid lives
if [ -e .local/run.lock ] && ! flock -n .local/run.lock true; then
  run_pid="$(cat .local/run.pid 2>/dev/null || echo unknown)"
  # one cluster under two names (localhost, 127.0.0.1) is told by the uid of kube-system, as make
  # certs tells it (fresh eyes: a kubeconfig naming localhost went past the server URL's match)
  uid="$(k get namespace kube-system -o 'jsonpath={.metadata.uid}' 2>/dev/null || true)"
  for local_kubeconfig in .local/kubeconfig .local/ironcore/kubeconfig; do
    [ -f "$local_kubeconfig" ] || continue
    local_server="$(KUBECONFIG="$local_kubeconfig" k config view --minify -o jsonpath='{.clusters[0].cluster.server}' 2>/dev/null || true)"
    local_uid="$(KUBECONFIG="$local_kubeconfig" k get namespace kube-system -o 'jsonpath={.metadata.uid}' 2>/dev/null || true)"
    if [ "$local_server" = "$server" ] || { [ -n "$uid" ] && [ "$uid" = "$local_uid" ]; }; then
      fail "refused, nothing changed: make run (pid $run_pid) runs its controller and webhook server against this cluster ($server, as $local_kubeconfig); stop it first (Ctrl-C, or kill \$(cat .local/run.pid)), then run make uninstall again"
    fi
  done
fi

# one line per CAPI Machine: namespace name deleting(true|false) finalizer-index(-1 none) hook(yes|no)
machine_template='{{range .items}}{{template "m" .}}{{end}}'
machine_line='{{define "m"}}{{.metadata.namespace}} {{.metadata.name}} {{if .metadata.deletionTimestamp}}true{{else}}false{{end}} {{$i := -1}}{{range $j, $f := .metadata.finalizers}}{{if eq $f "'"$FINALIZER"'"}}{{$i = $j}}{{end}}{{end}}{{$i}} {{$h := "no"}}{{range $key, $v := .metadata.annotations}}{{if eq $key "'"$HOOK"'"}}{{$h = "yes"}}{{end}}{{end}}{{$h}}
{{end}}'

# served or not, from discovery; a discovery that failed and does not list it is no answer (skipping
# the Machine step on a failed discovery would leave our finalizer on every Machine)
capi_served=false
if resources="$(k api-resources --api-group=cluster.x-k8s.io -o name 2>&1)"; then discovery=ok; else discovery=failed; fi
if grep -qx "$CAPI_MACHINES" <<<"$resources"; then
  capi_served=true
elif [ "$discovery" = failed ]; then
  fail "cannot tell whether $CAPI_MACHINES is served, nothing changed: $(grep -v '^machines' <<<"$resources" | head -1 | sed 's/^error: //')"
fi
ours=()      # "namespace name" of Machines carrying our finalizer or hook
draining=()  # namespace/name of deleting Machines that still carry our hook
total=0
# read_machines: ours, draining and total from a fresh list of every CAPI Machine; on failure
# returns 1 with kubectl's first error line in list_error (callers say what that stops)
list_error=""
read_machines() {
  local lines ns name deleting idx hook
  if ! lines="$(k get "$CAPI_MACHINES" -A -o go-template="$machine_line$machine_template" 2>"$errfile")"; then
    list_error="$(first_error)"
    return 1
  fi
  ours=()
  draining=()
  total=0
  while read -r ns name deleting idx hook; do
    [ -n "${name:-}" ] || continue
    total=$((total + 1))
    if [ "$idx" != -1 ] || [ "$hook" = yes ]; then ours+=("$ns $name"); fi
    if [ "$deleting" = true ] && [ "$hook" = yes ]; then draining+=("$ns/$name"); fi
  done <<<"$lines"
}
if [ "$capi_served" = true ]; then
  read_machines || fail "cannot list $CAPI_MACHINES, nothing changed: $list_error"
  say "CAPI Machines: $total in all namespaces, ${#ours[@]} with our finalizer or pre-drain hook"
else
  say "CAPI Machines: $CAPI_MACHINES is not served here (the IronCore cluster of a two-cluster install?): no Machine to clean"
fi
# the IronCore cluster of two clusters: a drain shows on its pool only (condition Maintenance), and
# the CAPI cluster's controller runs it through what this run deletes here (our RBAC): its pool
# would keep the taints, and CAPI its node (fresh eyes: uninstalled here mid-drain without a word)
pools_in_drain=()
if [ "$capi_served" != true ]; then
  # as for the CAPI Machines above: a discovery that failed elsewhere (an aggregated API down) but
  # lists the pools is an answer
  if resources="$(k api-resources --api-group=compute.ironcore.dev -o name 2>&1)"; then discovery=ok; else discovery=failed; fi
  if grep -qx "$POOLS" <<<"$resources"; then
    if ! lines="$(k get "$POOLS" -o go-template='{{range .items}}{{$n := .metadata.name}}{{with .status}}{{range .conditions}}{{if eq .type "Maintenance"}}{{$n}} {{.reason}}{{"\n"}}{{end}}{{end}}{{end}}{{end}}' 2>"$errfile")"; then
      fail "cannot list $POOLS, nothing changed: $(first_error)"
    fi
    # Drained is the end of our part (the hook released) and stays on a pool that is kept
    while read -r pool reason; do
      case "${reason:-}" in
        DrainQueued | DrainHeld | Draining | DrainStuck) pools_in_drain+=("$pool ($reason)") ;;
      esac
    done <<<"$lines"
  elif [ "$discovery" = failed ]; then
    fail "cannot tell whether $POOLS is served, nothing changed: $(grep -v '^machinepools' <<<"$resources" | head -1 | sed 's/^error: //')"
  fi
fi

# existing ARRAY entries...: the entries (as "kind name [namespace]") whose object exists and is not
# already being deleted, into ARRAY; a lookup that fails (refused, no answer) stops the run before
# anything changes (fresh eyes: a Forbidden lookup was taken for "nothing left to do")
existing() {
  local -n into="$1"
  local entry kind name ns found
  into=()
  shift
  for entry in "$@"; do
    read -r kind name ns <<<"$entry"
    if ! found="$(k get "$kind" "$name" ${ns:+-n "$ns"} --ignore-not-found \
      -o go-template='{{if not .metadata.deletionTimestamp}}yes{{end}}' 2>&1)"; then
      fail "cannot read $kind/$name${ns:+ (namespace $ns)}, nothing changed: $(head -1 <<<"$found" | sed 's/^error: //')"
    fi
    [ "$found" = yes ] && into+=("$entry")
  done
  return 0
}
describe() { local kind name ns; read -r kind name ns <<<"$1"; echo "$kind/$name${ns:+ (namespace $ns)}"; }
delete_all() { # step-name entries...
  local step="$1" entry kind name ns
  shift
  for entry in "$@"; do
    read -r kind name ns <<<"$entry"
    if [ "$DRY_RUN" = true ]; then
      say "$step: would delete $(describe "$entry")"
    else
      k delete "$kind" "$name" ${ns:+-n "$ns"} --ignore-not-found --wait=false >/dev/null
      say "$step: deleted $(describe "$entry")"
    fi
  done
}

existing webhooks "${WEBHOOKS[@]}"
existing workloads "${WORKLOADS[@]}"
existing rbac "${RBAC[@]}"
existing namespace "namespace $NAMESPACE"
# 1. a drain in progress is refused (only reads so far); after a run that stopped at the second
# read below, no controller Deployment of ours is left to finish it, and the refusal says so
if [ "${#draining[@]}" -gt 0 ]; then
  if [ "$FORCE" != true ]; then
    if [[ " ${workloads[*]} " == *" deployment ironcore-maintenance-controller $NAMESPACE "* ]]; then
      advice="wait for it, or FORCE=true"
    else
      advice="no controller Deployment of ours is here to finish it: unless one of ours runs elsewhere (make run's), install again to let the drain finish, or FORCE=true"
    fi
    refuse "${#draining[@]} CAPI Machine(s) being deleted still carry our pre-drain hook, a drain is in progress: ${draining[*]}; $advice (CAPI then deletes their nodes without our drain)"
  fi
  # (a dry run refused above shows it too: what FORCE=true would do is its plan)
  say "FORCE=true: $([ "$DRY_RUN" = true ] && echo "would remove" || echo removing) our pre-drain hook from ${#draining[@]} CAPI Machine(s) being deleted (${draining[*]}): CAPI deletes their nodes without our drain"
fi
# our CRDs (manifests/crds) convert through our Service: once it is gone every read of the version
# not stored fails (IronCore's v1alpha1 clients), so their conversion is set to None (fresh eyes)
conversions=()
for crd in machines.compute.ironcore.dev machinepools.compute.ironcore.dev; do
  if ! service="$(k get crd "$crd" --ignore-not-found \
    -o go-template='{{with .spec.conversion.webhook}}{{with .clientConfig.service}}{{.namespace}}/{{.name}}{{end}}{{end}}' 2>&1)"; then
    fail "cannot read crd/$crd, nothing changed: $(head -1 <<<"$service" | sed 's/^error: //')"
  fi
  [ "$service" = "$NAMESPACE/ironcore-maintenance-webhook" ] && conversions+=("$crd")
done
leftover=$((${#webhooks[@]} + ${#workloads[@]} + ${#ours[@]} + ${#rbac[@]} + ${#namespace[@]} + ${#conversions[@]}))
if [ "$leftover" -eq 0 ]; then
  say "nothing left to do: no webhook configuration, workload, RBAC or namespace $NAMESPACE of ours, no CRD converting through our Service, no CAPI Machine with our finalizer or hook"
  exit 0
fi
if [ "${#pools_in_drain[@]}" -gt 0 ]; then
  if [ "$FORCE" != true ]; then
    refuse "${#pools_in_drain[@]} MachinePool(s) are in a drain (condition Maintenance): $(joined "${pools_in_drain[@]}"); the CAPI cluster's controller runs it through what this removes here: uninstall the CAPI cluster first (docs/two-clusters.md) or wait for the drain; FORCE=true goes on (where the CAPI cluster is uninstalled already, these conditions are left from it)"
  fi
  say "FORCE=true: $([ "$DRY_RUN" = true ] && echo "would go" || echo "going") on although ${#pools_in_drain[@]} MachinePool(s) are in a drain ($(joined "${pools_in_drain[@]}")): the drain stops there, a tainted pool keeps its maintenance taints"
fi

delete_all "webhooks" "${webhooks[@]}"
for crd in "${conversions[@]}"; do
  if [ "$DRY_RUN" = true ]; then
    say "crds: would set crd/$crd's conversion to None (it calls our Service, which goes)"
  else
    k patch crd "$crd" --type=json \
      -p '[{"op":"replace","path":"/spec/conversion","value":{"strategy":"None"}}]' >/dev/null
    say "crds: set crd/$crd's conversion to None (it called our Service, which goes): both versions stay served, read as stored"
  fi
done
delete_all "workloads" "${workloads[@]}"
# a controller pod still running re-adds our finalizer and hook to the Machines this run cleans
# (fresh eyes): wait until the controller's pods are gone
if [ "$DRY_RUN" != true ] && [ "${#workloads[@]}" -gt 0 ]; then
  say "workloads: waiting up to ${WAIT_TIMEOUT:-120s} for the controller's pods to stop"
  if ! err="$(k wait --for=delete pod -n "$NAMESPACE" \
    -l app.kubernetes.io/name=ironcore-maintenance,app.kubernetes.io/component=controller \
    --timeout="${WAIT_TIMEOUT:-120s}" 2>&1)"; then
    case "$err" in
      *"no matching resources found"*) ;;
      *) fail "the controller's pods did not stop within ${WAIT_TIMEOUT:-120s}: $(head -1 <<<"$err" | sed 's/^error: //'); run make uninstall again" ;;
    esac
  fi
fi
# a CAPI Machine deleted between the check above and the controller's stop started a drain that no
# controller finishes now (fresh eyes): read again, and without FORCE leave those Machines alone
if [ "$DRY_RUN" != true ] && [ "$capi_served" = true ]; then
  checked=" ${draining[*]} "
  read_machines || fail "stopped before touching any CAPI Machine (the webhooks and workloads are deleted): cannot list $CAPI_MACHINES: $list_error; run make uninstall again"
  started=()
  for m in "${draining[@]}"; do [[ "$checked" == *" $m "* ]] || started+=("$m"); done
  if [ "${#started[@]}" -gt 0 ]; then
    if [ "$FORCE" != true ]; then
      fail "stopped before touching any CAPI Machine (the webhooks and workloads are deleted): a drain started while this ran: ${#started[@]} CAPI Machine(s) deleted since the check carry our pre-drain hook: ${started[*]}; no controller of ours runs now, so CAPI keeps their nodes: install again to let the drain finish, or make uninstall FORCE=true (CAPI then deletes their nodes without our drain; their pools keep the maintenance taints)"
    fi
    say "FORCE=true: removing our pre-drain hook from ${#started[@]} more CAPI Machine(s) deleted while this ran (${started[*]}): CAPI deletes their nodes without our drain"
  fi
fi

# a JSON patch that removes our finalizer (tested at its index, so a concurrent change fails the
# patch instead of removing someone else's) and our hook annotation; re-read and retried on failure
patch_machine() {
  local ns="$1" name="$2" attempt line deleting idx hook ops err
  for attempt in 1 2 3 4 5; do
    if ! line="$(k get "$CAPI_MACHINES" "$name" -n "$ns" -o go-template="$machine_line"'{{template "m" .}}' 2>&1)"; then
      case "$line" in *NotFound*|*"not found"*) return 0 ;; esac
      err="$line"
    else
      read -r _ _ deleting idx hook <<<"$line"
      ops=()
      if [ "$idx" != -1 ]; then
        ops+=("{\"op\":\"test\",\"path\":\"/metadata/finalizers/$idx\",\"value\":\"$FINALIZER\"}")
        ops+=("{\"op\":\"remove\",\"path\":\"/metadata/finalizers/$idx\"}")
      fi
      [ "$hook" = yes ] && ops+=("{\"op\":\"remove\",\"path\":\"/metadata/annotations/${HOOK//\//~1}\"}")
      [ "${#ops[@]}" -eq 0 ] && return 0
      if err="$(IFS=,; k patch "$CAPI_MACHINES" "$name" -n "$ns" --type=json -p "[${ops[*]}]" 2>&1)"; then
        return 0
      fi
      case "$err" in *NotFound*|*"not found"*) return 0 ;; esac
    fi
    sleep "$attempt"
  done
  echo "uninstall: CAPI Machine $ns/$name: our finalizer/hook could not be removed after 5 attempts: $(head -1 <<<"$err" | sed 's/^error: //')" >&2
  return 1
}
failed=()
for m in "${ours[@]}"; do
  read -r ns name <<<"$m"
  if [ "$DRY_RUN" = true ]; then
    say "machines: would remove our finalizer and pre-drain hook from CAPI Machine $ns/$name"
  elif patch_machine "$ns" "$name"; then
    say "machines: removed our finalizer and pre-drain hook from CAPI Machine $ns/$name"
  else
    failed+=("$ns/$name")
  fi
done
# re-read: a controller still running elsewhere (make run's, another install's) puts them back
if [ "$DRY_RUN" != true ] && [ "${#ours[@]}" -gt 0 ] && [ "${#failed[@]}" -eq 0 ]; then
  sleep 2
  again=()
  while read -r ns name deleting idx hook; do
    [ -n "${name:-}" ] || continue
    if [ "$idx" != -1 ] || [ "$hook" = yes ]; then again+=("$ns/$name"); fi
  done <<<"$(k get "$CAPI_MACHINES" -A -o go-template="$machine_line$machine_template")"
  if [ "${#again[@]}" -gt 0 ]; then
    fail "stopped before deleting RBAC and namespace $NAMESPACE: our finalizer or hook is back on ${#again[@]} CAPI Machine(s) (${again[*]}): a controller of ours still runs (make run's, or another install's); stop it and run make uninstall again"
  fi
fi
if [ "${#failed[@]}" -gt 0 ]; then
  fail "stopped before deleting RBAC and namespace $NAMESPACE: ${#failed[@]} CAPI Machine(s) still carry our finalizer or hook: ${failed[*]}; run make uninstall again"
fi

delete_all "rbac" "${rbac[@]}"
delete_all "namespace" "${namespace[@]}"
# what this cluster has of those (the CAPI cluster of two clusters has neither)
kept=()
if [ -n "$(k get namespace "$LEASE_NAMESPACE" --ignore-not-found -o name 2>/dev/null || true)" ]; then
  kept+=("namespace $LEASE_NAMESPACE (IronCore's, holds every poollet Lease)")
fi
if [ -n "$(k get crd machines.compute.ironcore.dev machinepools.compute.ironcore.dev --ignore-not-found -o name 2>/dev/null || true)" ]; then
  kept+=("the CRDs (manifests/crds: deleting them deletes every Machine and MachinePool stored in them)")
  kept+=("any maintenance.ironcore.dev taints on MachinePools (a drain cut short by FORCE=true leaves them)")
fi
case "${#kept[@]}" in
  0) ;;
  1) say "left in place: ${kept[0]}" ;;
  2) say "left in place: ${kept[0]} and ${kept[1]}" ;;
  *) say "left in place: ${kept[0]}, ${kept[1]} and ${kept[2]}" ;;
esac
if [ "$DRY_RUN" = true ]; then
  say "DRY_RUN: nothing changed (${#webhooks[@]} webhook configuration(s), ${#conversions[@]} CRD conversion(s), ${#workloads[@]} workload object(s), ${#ours[@]} CAPI Machine(s), ${#rbac[@]} RBAC object(s), ${#namespace[@]} namespace)"
  for reason in "${refusals[@]}"; do
    echo "uninstall: DRY_RUN: a real run would be refused (nothing changed): $reason; with FORCE=true it would go ahead as planned above" >&2
  done
  [ "${#refusals[@]}" -eq 0 ] || exit 1
else
  say "done: ironcore-maintenance is uninstalled from this cluster"
fi
