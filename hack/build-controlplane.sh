#!/usr/bin/env bash
# Builds etcd, kube-apiserver and kubectl from their Go modules (Go module proxy only; no Docker,
# no binary downloads) into a cache directory outside git, reusing binaries already there.
#
#   hack/build-controlplane.sh            # builds what is missing, prints the binary directory
#   hack/build-controlplane.sh --dir      # prints the binary directory only
#
# Environment: K8S_VERSION (default 1.34.4), ETCD_VERSION (default 3.6.16),
#              CONTROLPLANE_CACHE (default ~/.cache/ironcore-maintenance).
# Layout: $CONTROLPLANE_CACHE/k8s/<K8S_VERSION>-linux-amd64/{etcd,kube-apiserver,kubectl},
# which is the layout io.fabric8:kube-api-test reads in offline mode.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.34.4}"
ETCD_VERSION="${ETCD_VERSION:-3.6.16}"
CACHE="${CONTROLPLANE_CACHE:-$HOME/.cache/ironcore-maintenance}"
BIN_DIR="$CACHE/k8s/${K8S_VERSION}-linux-amd64"
WORK="$CACHE/build"
# --dir: only print where the binaries are (or would be built), build nothing
if [ "${1:-}" = "--dir" ]; then echo "$BIN_DIR"; exit 0; fi
mkdir -p "$BIN_DIR" "$WORK"

log() { echo "[controlplane] $*" >&2; }

staging_minor="0.${K8S_VERSION#*.}"   # 1.34.4 -> 0.34.4
major="${K8S_VERSION%%.*}"
minor="${K8S_VERSION#*.}"; minor="${minor%%.*}"

build_kube() {
  local mod="$WORK/kube-$K8S_VERSION"
  mkdir -p "$mod"
  if [ ! -f "$mod/go.mod" ]; then
    log "preparing Go module for k8s.io/kubernetes v$K8S_VERSION"
    (cd "$mod" && go mod init local/kubebuild >/dev/null 2>&1 && \
      go mod download -json "k8s.io/kubernetes@v$K8S_VERSION" >/dev/null)
    local gomod
    gomod="$(cd "$mod" && go env GOMODCACHE)/cache/download/k8s.io/kubernetes/@v/v$K8S_VERSION.mod"
    {
      echo "require k8s.io/kubernetes v$K8S_VERSION"
      grep -E '^\s+k8s.io/[^ ]+ => ./staging/' "$gomod" | awk -v v="v$staging_minor" '{print "replace " $1 " => " $1 " " v}'
    } >> "$mod/go.mod"
    cat > "$mod/tools.go" <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
    (cd "$mod" && go mod tidy >&2)
  fi
  local ldflags="-s -w -X k8s.io/component-base/version.gitVersion=v$K8S_VERSION -X k8s.io/component-base/version.gitMajor=$major -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/client-go/pkg/version.gitVersion=v$K8S_VERSION"
  for cmd in kube-apiserver kubectl; do
    if [ ! -x "$BIN_DIR/$cmd" ]; then
      local hint=""
      [ "$cmd" = kube-apiserver ] && hint=" (takes ~5-10 min on 2 cores)"
      log "building $cmd v$K8S_VERSION$hint"
      local t0=$SECONDS
      (cd "$mod" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$BIN_DIR/$cmd.tmp" "k8s.io/kubernetes/cmd/$cmd")
      mv "$BIN_DIR/$cmd.tmp" "$BIN_DIR/$cmd"
      log "built $cmd in $((SECONDS - t0)) s"
    fi
  done
}

build_etcd() {
  [ -x "$BIN_DIR/etcd" ] && return
  local mod="$WORK/etcd-$ETCD_VERSION"
  mkdir -p "$mod"
  if [ ! -f "$mod/go.mod" ]; then
    log "preparing Go module for go.etcd.io/etcd/server/v3 v$ETCD_VERSION"
    cat > "$mod/main.go" <<'GO'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
    (cd "$mod" && go mod init local/etcdbuild >/dev/null 2>&1 && \
      go get "go.etcd.io/etcd/server/v3@v$ETCD_VERSION" >&2 && go mod tidy >&2)
  fi
  log "building etcd v$ETCD_VERSION"
  local t0=$SECONDS
  (cd "$mod" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$BIN_DIR/etcd.tmp" .)
  mv "$BIN_DIR/etcd.tmp" "$BIN_DIR/etcd"
  log "built etcd in $((SECONDS - t0)) s"
}

build_etcd
build_kube
echo "$BIN_DIR"
