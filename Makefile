# ironcore-maintenance: webhooks and MachinePool drain controller.
#   make run     local control plane + webhook server + controller + drain demo, Ctrl-C stops everything
#   make test    builds the control-plane binaries if missing, then runs all tests
#   make certs / make rotate-certs   webhook CA + serving certificate (make run's install, or KUBECONFIG=...)
#   make uninstall   KUBECONFIG=... removes our install (never CRDs or IronCore's lease namespace)
SHELL := /bin/bash
MVN ?= mvn
# make run DEMO=false / make run CONTROLLER_ARGS='--machine-pool-lifecycle-grace-period=20s'
# make run SIMULATOR_ARGS='--poollet-shutdown-delay=5s' (devtools' local poollet/CAPI simulators)
# make run WEBHOOK_ARGS='--zap-log-level=debug' (more webhook server flags, after the defaults)
# make run CAPI_MACHINE_SELECTOR='role=ironcore' (webhook server and controller alike)
# make run TWO_CLUSTERS=true (CAPI Machines in one local API server, the IronCore API in another)
DEMO ?= true
CONTROLLER_ARGS ?=
SIMULATOR_ARGS ?=
WEBHOOK_ARGS ?=
CAPI_MACHINE_SELECTOR ?=
TWO_CLUSTERS ?= false
export DEMO CONTROLLER_ARGS SIMULATOR_ARGS WEBHOOK_ARGS CAPI_MACHINE_SELECTOR TWO_CLUSTERS

# make image IMAGE=registry/name:tag PUSH=true (default: OCI tarball image/target/jib-image.tar)
IMAGE ?= ironcore-maintenance:latest
PUSH ?= false
export IMAGE PUSH

.PHONY: controlplane build test run image bench clean certs rotate-certs uninstall help

controlplane: ## etcd, kube-apiserver, kubectl into ~/.cache/ironcore-maintenance (Go module proxy)
	hack/build-controlplane.sh

build: ## compile and install all modules, no tests
	$(MVN) -q -B -DskipTests install

test: ## all unit and integration tests against a real local kube-apiserver (+ k3s when Docker runs)
	@if docker info >/dev/null 2>&1; then echo "k3s variant: on (Docker engine answers)"; \
	else echo "k3s variant: skipped: no Docker engine answers ('docker info' failed); end-to-end suites run against the local kube-apiserver only"; fi
	bin_dir="$$(hack/build-controlplane.sh)" && \
	  $(MVN) -B verify -Dcontrolplane.dir="$$bin_dir" $$(docker info >/dev/null 2>&1 && echo -Pk3s)

run: ## local control plane, webhooks installed, webhook server on https://127.0.0.1:9443
	hack/run-local.sh

image: ## ONE image for both processes (Jib, no Docker): OCI tarball, or PUSH=true to IMAGE; one-line reason when it cannot
	hack/image.sh

certs: ## issue or reuse the webhook CA and serving pair; write the pair (Secret or make run's files) and every caBundle
	hack/certs.sh ensure

rotate-certs: ## rotate the webhook CA and serving pair with overlap (no failed calls); DRY_RUN=true prints the plan
	hack/certs.sh rotate

uninstall: ## KUBECONFIG=... required: webhooks, workloads, our finalizer/hook on CAPI Machines, RBAC, namespace; DRY_RUN=true plans, FORCE=true past a drain
	hack/uninstall.sh

bench: ## webhook vs Go reference (h2load, TLS), controller at fleet scale, JMH; writes bench/results/<date>-<machine>.md
	hack/bench.sh

clean: ## remove the build output (every module's target/, as mvn clean) and .local (refused while a make run of this checkout owns it)
	@if [ -e .local/run.lock ] && ! flock -n .local/run.lock true; then \
	  echo "make clean: a make run of this checkout is running (pid $$(cat .local/run.pid 2>/dev/null || echo unknown)) and owns .local; stop it first" >&2; \
	  exit 1; \
	fi
	rm -rf .local target */target third-party/*/target

help: ## this list
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## /  \1\t/' | expand -t 16
