package dev.ironcore.maintenance.controller.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.Test;

/**
 * The Status bodies are those kube-apiserver 1.34 answered a JSON Patch (kubectl patch -v=8): a
 * failed {@code test} of the resourceVersion, and a ValidatingAdmissionPolicy's denial.
 */
class ObjectChangedTest {

  private static KubernetesClientException answered(Status status) {
    return new KubernetesClientException(status);
  }

  /** A JSON Patch whose {@code test} failed: kube-apiserver's generic 422, empty details. */
  private static final Status TEST_FAILED =
      new StatusBuilder()
          .withCode(422)
          .withStatus("Failure")
          .withReason("Invalid")
          .withMessage("the server rejected our request due to an error in our request")
          .withNewDetails()
          .endDetails()
          .build();

  /** A ValidatingAdmissionPolicy with validationActions Deny: names the object, a cause. */
  private static final Status POLICY_DENIED =
      new StatusBuilder()
          .withCode(422)
          .withStatus("Failure")
          .withReason("Invalid")
          .withMessage(
              "machinepools.compute.ironcore.dev \"probe-a\" is forbidden: ValidatingAdmissionPolicy"
                  + " 'lock-pools' with binding 'lock-pools' denied request: pool spec is locked")
          .withNewDetails()
          .withName("probe-a")
          .withGroup("compute.ironcore.dev")
          .withKind("machinepools")
          .addNewCause()
          .withMessage(
              "ValidatingAdmissionPolicy 'lock-pools' with binding 'lock-pools' denied request:"
                  + " pool spec is locked")
          .endCause()
          .endDetails()
          .build();

  /** The object is invalid: schema validation or an admission webhook's denial. */
  private static final Status INVALID_FIELD =
      new StatusBuilder()
          .withCode(422)
          .withReason("Invalid")
          .withMessage(
              "MachinePool.compute.ironcore.dev \"tp3\" is invalid: spec.taints[0].timeAdded:"
                  + " Invalid value: \"yesterday\": spec.taints[0].timeAdded in body must be of"
                  + " type date-time: \"yesterday\"")
          .withNewDetails()
          .withName("tp3")
          .withKind("MachinePool")
          .addNewCause()
          .withReason("FieldValueInvalid")
          .withField("spec.taints[0].timeAdded")
          .withMessage("Invalid value: \"yesterday\": must be of type date-time")
          .endCause()
          .endDetails()
          .build();

  @Test
  void aFailedTestAndAConflictAreStale() {
    assertThat(ObjectChanged.isStale(answered(TEST_FAILED), true)).isTrue();
    assertThat(
            ObjectChanged.isStale(
                answered(new StatusBuilder().withCode(409).withReason("Conflict").build()), false))
        .isTrue();
  }

  @Test
  void anInvalidObjectIsNotStale() {
    assertThat(ObjectChanged.isStale(answered(INVALID_FIELD), true))
        .as("deciding again cannot mend an invalid field: a failure the loop reports")
        .isFalse();
    assertThat(ObjectChanged.isStale(answered(POLICY_DENIED), true)).isFalse();
    Status webhookDenied =
        new StatusBuilder()
            .withCode(422)
            .withStatus("Failure")
            .withMessage(
                "admission webhook \"deny.example.com\" denied the request: pools are frozen")
            .build();
    assertThat(ObjectChanged.isStale(answered(webhookDenied), true))
        .as("a webhook may deny with 422 and no details")
        .isFalse();
  }

  @Test
  void a422ToAnUnguardedPatchOrAnotherCodeIsNotStale() {
    assertThat(ObjectChanged.isStale(answered(TEST_FAILED), false)).isFalse();
    assertThat(
            ObjectChanged.isStale(
                answered(new StatusBuilder().withCode(500).withMessage("boom").build()), true))
        .isFalse();
  }
}
