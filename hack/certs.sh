#!/usr/bin/env bash
# make certs / make rotate-certs: runs dev.ironcore.maintenance.certs.install.CertsMain.
#
#   hack/certs.sh ensure   issue or reuse CA + serving pair, write the pair and every caBundle
#   hack/certs.sh rotate   rotate to a new CA + serving pair with overlap
#
# Where: with KUBECONFIG pointing at a cluster (not make run's .local/kubeconfig or
# .local/ironcore/kubeconfig) it acts on that cluster's install (Secret, webhook configurations,
# CRDs; CA kept in CERTS_DIR, default .certs/); otherwise on the running `make run`
# (.local/kubeconfig; the pair as PEM files in .local/certs, which the running webhook server
# reloads). A cluster's CA is kept in .certs/<kubeconfig current-context>/
# (as kubectl config current-context says; several files in KUBECONFIG are merged by kubectl).
# Environment: DRY_RUN=true (plan only), CERTS_DIR, CERTS_NAMESPACE, CERTS_SERVICE, CERTS_SECRET,
# WEBHOOK_CONFIGURATION, CRDS (comma-separated, empty for none), SANS (comma-separated, replaces
# the defaults), KEY_ALGORITHM (ecdsa|rsa), VALIDITY (e.g. 365d), CA_VALIDITY, WAIT_TIMEOUT,
# CERTS_ARGS (more flags, see --help).
set -euo pipefail
# relative paths in KUBECONFIG (a :-list), IRONCORE_KUBECONFIG and CERTS_DIR mean the caller's
# working directory, as for kubectl (with make -C that is the directory make changed to)
absolute() { local p out=() IFS=:; for p in $1; do [ -n "$p" ] && out+=("$(realpath -m -- "$p")"); done; echo "${out[*]}"; }
[ -n "${KUBECONFIG:-}" ] && KUBECONFIG="$(absolute "$KUBECONFIG")" && export KUBECONFIG
[ -n "${IRONCORE_KUBECONFIG:-}" ] && IRONCORE_KUBECONFIG="$(absolute "$IRONCORE_KUBECONFIG")"
[ -n "${CERTS_DIR:-}" ] && CERTS_DIR="$(realpath -m -- "$CERTS_DIR")"
cd "$(dirname "$0")/.."
ROOT="$PWD"
LOCAL="$ROOT/.local"
# $MVN may carry options (MVN="mvn -o"): split into words once
read -r -a MVN_CMD <<<"${MVN:-mvn}"

ARGS=()
case "${1:-}" in
  ensure) ;;
  rotate) ARGS+=(--rotate) ;;
  *) echo "usage: $0 ensure|rotate (flags: CERTS_ARGS=..., e.g. CERTS_ARGS=--help)" >&2; exit 2 ;;
esac
# anything after the action is refused, not dropped (fresh eyes: "hack/certs.sh rotate --help"
# began a real rotation): flags go in CERTS_ARGS, as make passes them
if [ "$#" -gt 1 ]; then
  action="$1"
  shift
  echo "certs: unexpected argument(s) after $0 $action: $*; pass flags in CERTS_ARGS, e.g. CERTS_ARGS='--help' $0 $action" >&2
  exit 2
fi

# kubectl (PATH, else the one make controlplane built) reads kubeconfigs as the user's tools do:
# JSON or YAML, several files in KUBECONFIG merged
KUBECTL="$(command -v kubectl || ls "$HOME"/.cache/ironcore-maintenance/k8s/*/kubectl 2>/dev/null | head -1 || true)"
# make run's own kubeconfigs (.local/kubeconfig, and .local/ironcore/kubeconfig of TWO_CLUSTERS=true)
# mean make run: its serving pair is in files, not a Secret (fresh eyes: KUBECONFIG naming the
# IronCore one took the cluster-install path, which waits for a Secret no server reads)
case "$(realpath -m "${KUBECONFIG:-$LOCAL/kubeconfig}")" in
  "$(realpath -m "$LOCAL/kubeconfig")" | "$(realpath -m "$LOCAL/ironcore/kubeconfig")") make_run_kubeconfig=true ;;
  *) make_run_kubeconfig=false ;;
esac
if [ -n "${KUBECONFIG:-}" ] && [ "$make_run_kubeconfig" = false ]; then
  kubeconfig_file="$KUBECONFIG"
  if [[ "$KUBECONFIG" == *:* ]]; then
    if [ -z "$KUBECTL" ]; then
      echo "certs: KUBECONFIG lists several files ($KUBECONFIG); merging them needs kubectl on PATH (or give one file)" >&2
      exit 2
    fi
    found=false
    IFS=: read -ra listed <<<"$KUBECONFIG"
    for f in "${listed[@]}"; do [ -f "$f" ] && found=true; done
    if [ "$found" != true ]; then
      echo "certs: KUBECONFIG $KUBECONFIG: none of these files exists" >&2
      exit 2
    fi
    if ! context_error="$("$KUBECTL" config current-context 2>&1 >/dev/null)"; then
      # kubectl names a file it cannot read (without quoting its content); only "current-context
      # is not set" means that no file sets one
      case "$context_error" in
        *"current-context is not set"*)
          echo "certs: KUBECONFIG $KUBECONFIG: no current-context is set in any of its files" >&2 ;;
        *)
          echo "certs: KUBECONFIG $KUBECONFIG: kubectl cannot read it: $(head -1 <<<"$context_error" | sed 's/^error: //')" >&2 ;;
      esac
      exit 2
    fi
    # one file as kubectl merges them (credentials embedded), open as fd 3 and deleted at once, so
    # nothing stays behind however this ends; the tool reads /dev/fd/3
    merged="$(mktemp "${TMPDIR:-/tmp}/certs-kubeconfig.XXXXXX")"
    if ! "$KUBECTL" config view --flatten --raw >"$merged" 2>/dev/null || [ ! -s "$merged" ]; then
      rm -f "$merged"
      echo "certs: kubectl could not merge KUBECONFIG=$KUBECONFIG: $("$KUBECTL" config view 2>&1 >/dev/null | head -1)" >&2
      exit 2
    fi
    exec 3<"$merged"
    rm -f "$merged"
    kubeconfig_file=/dev/fd/3
  elif [ ! -f "$KUBECONFIG" ]; then
    echo "certs: KUBECONFIG $KUBECONFIG: no such file" >&2
    exit 2
  fi
  # a copy of make run's kubeconfig (or one naming its API server) while make run runs (it holds
  # .local/run.lock) means make run too, whose pair is in files: the cluster-install path would
  # write a Secret nothing reads and then wait in vain for the server to present it (fresh eyes)
  if [ -n "$KUBECTL" ] && [ -e "$LOCAL/run.lock" ] && ! flock -n "$LOCAL/run.lock" true; then
    server="$("$KUBECTL" config view --minify -o 'jsonpath={.clusters[0].cluster.server}' 2>/dev/null || true)"
    # one cluster under two names (localhost, 127.0.0.1): told by the uid of kube-system
    uid="$("$KUBECTL" --request-timeout=10s get namespace kube-system -o 'jsonpath={.metadata.uid}' 2>/dev/null </dev/null || true)"
    for local_kubeconfig in "$LOCAL/kubeconfig" "$LOCAL/ironcore/kubeconfig"; do
      [ -n "$server" ] && [ -f "$local_kubeconfig" ] || continue
      local_server="$("$KUBECTL" --kubeconfig "$local_kubeconfig" config view --minify -o 'jsonpath={.clusters[0].cluster.server}' 2>/dev/null || true)"
      local_uid="$("$KUBECTL" --kubeconfig "$local_kubeconfig" --request-timeout=10s get namespace kube-system -o 'jsonpath={.metadata.uid}' 2>/dev/null </dev/null || true)"
      if [ "$server" = "$local_server" ] || { [ -n "$uid" ] && [ "$uid" = "$local_uid" ]; }; then
        echo "certs: KUBECONFIG $KUBECONFIG talks to make run's API server ($server, as ${local_kubeconfig#"$ROOT"/} does), whose serving pair is in files, not a Secret: run without KUBECONFIG (or with KUBECONFIG=${local_kubeconfig#"$ROOT"/}); nothing changed" >&2
        exit 2
      fi
    done
  fi
  if [ -n "$KUBECTL" ]; then
    context="$("$KUBECTL" config current-context 2>/dev/null || true)"
  else
    context="$( (sed -n 's/^current-context: *//p' "$KUBECONFIG" || true) | tr -d "\"'")"
  fi
  context="$(echo "$context" | tr '/:' '__')"
  CERTS_DIR="${CERTS_DIR:-$ROOT/.certs/${context:-default}}"
  echo "[certs] cluster install (KUBECONFIG=$KUBECONFIG, CA in $CERTS_DIR)"
  ARGS+=(--kubeconfig "$kubeconfig_file" --ca-dir "$CERTS_DIR")
  if [ -n "${IRONCORE_KUBECONFIG:-}" ]; then
    if [ ! -f "$IRONCORE_KUBECONFIG" ]; then
      echo "certs: IRONCORE_KUBECONFIG $IRONCORE_KUBECONFIG: no such file" >&2
      exit 2
    fi
    if [ "$IRONCORE_KUBECONFIG" = "$KUBECONFIG" ]; then
      echo "certs: IRONCORE_KUBECONFIG is KUBECONFIG ($KUBECONFIG): leave it out for one cluster" >&2
      exit 2
    fi
    ARGS+=(--kubeconfig "$IRONCORE_KUBECONFIG")
  fi
elif [ -f "$LOCAL/kubeconfig" ]; then
  if [ -n "${IRONCORE_KUBECONFIG:-}" ]; then
    echo "certs: IRONCORE_KUBECONFIG is for a cluster install (with KUBECONFIG); for make run leave it out (a TWO_CLUSTERS=true make run's IronCore API server is found by itself)" >&2
    exit 2
  fi
  echo "[certs] local install of make run ($LOCAL/kubeconfig, serving pair in $LOCAL/certs)"
  ARGS+=(--kubeconfig "$LOCAL/kubeconfig" --ca-dir "${CERTS_DIR:-$LOCAL/certs}" --serving-files "$LOCAL/certs")
  # make run TWO_CLUSTERS=true: the IronCore API server has the compute.ironcore.dev webhooks
  if grep -q -- "--ironcore-kubeconfig" "$LOCAL/controller.sh" 2>/dev/null; then
    echo "[certs] and the IronCore API of make run TWO_CLUSTERS=true ($LOCAL/ironcore/kubeconfig)"
    ARGS+=(--kubeconfig "$LOCAL/ironcore/kubeconfig")
  fi
else
  echo "certs: no cluster: set KUBECONFIG=... for a cluster install, or start make run first" >&2
  exit 1
fi
[ -n "${CERTS_NAMESPACE:-}" ] && ARGS+=(--namespace "$CERTS_NAMESPACE")
[ -n "${CERTS_SERVICE:-}" ] && ARGS+=(--service "$CERTS_SERVICE")
[ -n "${CERTS_SECRET:-}" ] && ARGS+=(--secret "$CERTS_SECRET")
[ -n "${WEBHOOK_CONFIGURATION:-}" ] && ARGS+=(--webhook-configuration "$WEBHOOK_CONFIGURATION")
[ -n "${CRDS+set}" ] && ARGS+=("--crds=$CRDS")
if [ -n "${SANS:-}" ]; then
  IFS=',' read -ra san_list <<<"$SANS"
  for s in "${san_list[@]}"; do ARGS+=(--san "$s"); done
fi
[ -n "${KEY_ALGORITHM:-}" ] && ARGS+=(--key-algorithm "$KEY_ALGORITHM")
[ -n "${VALIDITY:-}" ] && ARGS+=(--validity "$VALIDITY")
[ -n "${CA_VALIDITY:-}" ] && ARGS+=(--ca-validity "$CA_VALIDITY")
[ -n "${WAIT_TIMEOUT:-}" ] && ARGS+=(--wait-timeout "$WAIT_TIMEOUT")
# shellcheck disable=SC2206 # CERTS_ARGS is a list of flags
[ -n "${CERTS_ARGS:-}" ] && ARGS+=($CERTS_ARGS)

# Compile the certs module and what it needs of ours (process: logging), no install into ~/.m2, and
# run it from target/classes (the reactor resolves our modules there; certs writes the file last).
cp_file="$ROOT/certs/target/certs-classpath.txt"
if ! out="$("${MVN_CMD[@]}" -q -B -pl certs -am compile dependency:build-classpath -Dmdep.outputFile="$cp_file" 2>&1)"; then
  echo "$out" >&2
  echo "certs: the Maven build failed (MVN='${MVN:-mvn}'); its output is above" >&2
  exit 1
fi
exec java -Dironcore.maintenance.log.level=WARN -cp "$ROOT/certs/target/classes:$(cat "$cp_file")" \
  dev.ironcore.maintenance.certs.install.CertsMain "${ARGS[@]}"
