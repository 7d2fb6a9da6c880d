package dev.ironcore.maintenance.bench;

import java.nio.charset.StandardCharsets;

/** Realistic AdmissionReview bodies as the kube-apiserver sends them (admission.k8s.io/v1). */
final class Reviews {
  private Reviews() {}

  /** CREATE of a CAPI Machine with a typical spec and managedFields, about 2.5 KB. */
  static byte[] capiMachineCreate() {
    return """
            {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
             "uid":"705ab4f5-6393-11e8-b7cc-42010a800002",
             "kind":{"group":"cluster.x-k8s.io","version":"v1beta2","kind":"Machine"},
             "resource":{"group":"cluster.x-k8s.io","version":"v1beta2","resource":"machines"},
             "requestKind":{"group":"cluster.x-k8s.io","version":"v1beta2","kind":"Machine"},
             "requestResource":{"group":"cluster.x-k8s.io","version":"v1beta2","resource":"machines"},
             "name":"worker-7f9c-abcde","namespace":"capi-system","operation":"CREATE",
             "userInfo":{"username":"system:serviceaccount:capi-system:capi-controller-manager","groups":["system:serviceaccounts","system:authenticated"]},
             "object":{"apiVersion":"cluster.x-k8s.io/v1beta2","kind":"Machine",
              "metadata":{"name":"worker-7f9c-abcde","namespace":"capi-system",
               "labels":{"cluster.x-k8s.io/cluster-name":"prod","cluster.x-k8s.io/deployment-name":"worker","cluster.x-k8s.io/set-name":"worker-7f9c","machine-template-hash":"123456789"},
               "annotations":{"controlplane.cluster.x-k8s.io/remediation-for":"{}","cluster.x-k8s.io/cloned-from-name":"worker-template"},
               "ownerReferences":[{"apiVersion":"cluster.x-k8s.io/v1beta2","kind":"MachineSet","name":"worker-7f9c","uid":"b1c1a0e4-0000-4000-8000-000000000001","controller":true,"blockOwnerDeletion":true}],
               "finalizers":["machine.cluster.x-k8s.io"],
               "managedFields":[{"manager":"manager","operation":"Update","apiVersion":"cluster.x-k8s.io/v1beta2","time":"2026-11-29T08:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{}}}}]},
              "spec":{"clusterName":"prod","bootstrap":{"configRef":{"apiGroup":"bootstrap.cluster.x-k8s.io","kind":"KubeadmConfig","name":"worker-7f9c-abcde"}},
               "infrastructureRef":{"apiGroup":"infrastructure.cluster.x-k8s.io","kind":"IronCoreMachine","name":"worker-7f9c-abcde"},
               "version":"v1.34.4","failureDomain":"zone-a","deletion":{"nodeDrainTimeoutSeconds":600}}},
             "oldObject":null,"dryRun":false,"options":{"apiVersion":"meta.k8s.io/v1","kind":"CreateOptions"}}}
            """
        .getBytes(StandardCharsets.UTF_8);
  }
}
