// Command reference-webhook is the yardstick of `make bench`: a controller-runtime admission
// webhook doing the same mutations as our server's /mutate/capi-machine and /mutate/machine, the
// way a kubebuilder project writes them (decode, change the object, marshal,
// admission.PatchResponseFromRaw). It is built and run only by the benchmark, never shipped.
//
//	reference-webhook --port 9443 --cert-dir DIR   (DIR holds tls.crt and tls.key)
package main

import (
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"os"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

const (
	capiFinalizer    = "maintenance.ironcore.dev/machinepool-cleanup"
	preDrainHookKey  = "pre-drain.delete.hook.machine.cluster.x-k8s.io/ironcore-maintenance"
	preDrainHookVal  = "ironcore-maintenance"
	poolletFinalizer = "machinepoollet.ironcore.dev/machine"
)

func main() {
	host := flag.String("bind-address", "127.0.0.1", "address to listen on")
	port := flag.Int("port", 9443, "HTTPS port")
	certDir := flag.String("cert-dir", "", "directory with tls.crt and tls.key")
	flag.Parse()
	ctrl.SetLogger(zap.New())

	server := webhook.NewServer(webhook.Options{Host: *host, Port: *port, CertDir: *certDir})
	server.Register("/mutate/capi-machine", &webhook.Admission{Handler: admission.HandlerFunc(mutateCapiMachine)})
	server.Register("/mutate/machine", &webhook.Admission{Handler: admission.HandlerFunc(mutateMachine)})
	server.Register("/readyz", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	if err := server.Start(ctrl.SetupSignalHandler()); err != nil {
		ctrl.Log.Error(err, "webhook server stopped")
		os.Exit(1)
	}
}

// mutateCapiMachine adds our finalizer and the pre-drain hook annotation to a CAPI Machine that is
// not being deleted.
func mutateCapiMachine(_ context.Context, req admission.Request) admission.Response {
	obj, err := decode(req)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	meta := object(obj, "metadata")
	if meta["deletionTimestamp"] != nil {
		return admission.Allowed("deleting")
	}
	addFinalizer(meta, capiFinalizer)
	annotations := object(meta, "annotations")
	if _, ok := annotations[preDrainHookKey]; !ok {
		annotations[preDrainHookKey] = preDrainHookVal
	}
	return patched(req, obj)
}

// mutateMachine adds the poollet finalizer to an IronCore Machine bound to a pool and not deleting.
func mutateMachine(_ context.Context, req admission.Request) admission.Response {
	obj, err := decode(req)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	meta := object(obj, "metadata")
	pool, _ := object(obj, "spec")["machinePoolRef"].(map[string]any)
	poolName, _ := pool["name"].(string)
	if meta["deletionTimestamp"] != nil || poolName == "" {
		return admission.Allowed("unbound or deleting")
	}
	addFinalizer(meta, poolletFinalizer)
	return patched(req, obj)
}

func decode(req admission.Request) (map[string]any, error) {
	var obj map[string]any
	err := json.Unmarshal(req.Object.Raw, &obj)
	return obj, err
}

func patched(req admission.Request, obj map[string]any) admission.Response {
	raw, err := json.Marshal(obj)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, raw)
}

func object(parent map[string]any, key string) map[string]any {
	child, ok := parent[key].(map[string]any)
	if !ok {
		child = map[string]any{}
		parent[key] = child
	}
	return child
}

func addFinalizer(meta map[string]any, finalizer string) {
	list, _ := meta["finalizers"].([]any)
	for _, f := range list {
		if f == finalizer {
			return
		}
	}
	meta["finalizers"] = append(list, finalizer)
}
