package dev.ironcore.maintenance.controller.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.http.HttpTimeoutException;
import org.junit.jupiter.api.Test;

class ApiFailureTest {
  private static final String URL =
      "https://10.0.0.1:6443/apis/compute.ironcore.dev/v1alpha2/machinepools/p";

  /** As fabric8 reports an answered request: its own text around the API server's Status. */
  private static KubernetesClientException answered(int code, String message) {
    Status status = new StatusBuilder().withCode(code).withMessage(message).build();
    return new KubernetesClientException(
        "Failure executing: PATCH at: "
            + URL
            + ". Message: "
            + message
            + ". Received status: "
            + status
            + ".",
        code,
        status);
  }

  @Test
  void anAnsweredRequestIsTheRequestTheCodeAndTheApiServersMessage() {
    KubernetesClientException e =
        answered(500, "Internal error occurred: failed calling webhook \"w\": connection refused");
    assertThat(ApiFailure.describe(e))
        .isEqualTo(
            "PATCH "
                + URL
                + " answered 500: Internal error occurred: failed calling webhook \"w\":"
                + " connection refused");
    assertThat(ApiFailure.isServerSide(e)).isTrue();
  }

  @Test
  void a429WaitsForItsRetryAfterSecondsOrOneSecondAndNothingElseWaits() {
    KubernetesClientException withDetails =
        new KubernetesClientException(
            "Failure executing: PATCH at: " + URL + ". Message: Too many requests.",
            429,
            new StatusBuilder()
                .withCode(429)
                .withNewDetails()
                .withRetryAfterSeconds(7)
                .endDetails()
                .build());
    assertThat(ApiFailure.retryAfter(withDetails)).isEqualTo(java.time.Duration.ofSeconds(7));
    // kube-apiserver's priority and fairness answers 429 as plain text with Retry-After: 1
    assertThat(ApiFailure.retryAfter(answered(429, "Too many requests, please try again later.")))
        .isEqualTo(java.time.Duration.ofSeconds(1));
    assertThat(ApiFailure.retryAfter(new IllegalStateException("wrapped", answered(429, "x"))))
        .isEqualTo(java.time.Duration.ofSeconds(1));
    assertThat(ApiFailure.isServerSide(withDetails)).isFalse();
    assertThat(ApiFailure.retryAfter(answered(500, "Internal error occurred"))).isNull();
    assertThat(ApiFailure.retryAfter(answered(409, "conflict"))).isNull();
    assertThat(ApiFailure.retryAfter(new IllegalStateException("no API request"))).isNull();
  }

  @Test
  void aWrappedFailureKeepsTheWrappersMessage() {
    var e =
        new IllegalStateException(
            "eviction from MachinePool p failed", answered(403, "machines is forbidden"));
    assertThat(ApiFailure.describe(e))
        .isEqualTo(
            "PATCH "
                + URL
                + " answered 403: machines is forbidden (eviction from MachinePool p failed)");
    assertThat(ApiFailure.isServerSide(e)).as("a refusal, not a failure of the cluster").isFalse();
  }

  @Test
  void noAnswerNamesTheOperationAndTheRootCause() {
    var e =
        new KubernetesClientException(
            "Operation: [patch]  for kind: [MachinePool]  with name: [p]  in namespace: [default] "
                + " failed.",
            new java.io.IOException("wrapped", new HttpTimeoutException("request timed out")));
    assertThat(ApiFailure.describe(e))
        .isEqualTo("patch MachinePool p got no answer: request timed out (HttpTimeoutException)");
    assertThat(ApiFailure.isServerSide(e)).isTrue();
    assertThat(ApiFailure.unanswered(e)).isTrue();
    assertThat(ApiFailure.unanswered(answered(500, "Internal error occurred"))).isFalse();
    assertThat(ApiFailure.unanswered(new IllegalStateException("no API request"))).isFalse();
  }

  @Test
  void noAnswerForANamespacedObjectNamesItsNamespace() {
    var e =
        new KubernetesClientException(
            "Operation: [delete]  for kind: [Machine]  with name: [vm-1]  in namespace: [tenant-a] "
                + " failed.",
            new java.net.ConnectException("Connection refused"));
    assertThat(ApiFailure.describe(e))
        .isEqualTo(
            "delete Machine tenant-a/vm-1 got no answer: Connection refused (ConnectException)");
  }

  @Test
  void fabric8sGenericMessageIsNoAnswer() {
    var e =
        new KubernetesClientException(
            "An error has occurred.",
            new java.util.concurrent.CompletionException(
                new java.net.ConnectException("Connection refused")));
    assertThat(ApiFailure.describe(e))
        .isEqualTo("no answer: Connection refused (ConnectException)");
    assertThat(
            ApiFailure.rootCause(
                new java.util.concurrent.CompletionException(
                    new java.net.http.HttpConnectTimeoutException("HTTP connect timed out"))))
        .isEqualTo("HTTP connect timed out (HttpConnectTimeoutException)");
    assertThat(
            ApiFailure.rootCause(
                new java.io.IOException(new java.nio.channels.ClosedChannelException())))
        .isEqualTo("connection closed (ClosedChannelException)");
  }

  @Test
  void anythingElseIsItsMessageAndSimpleName() {
    var e = new IllegalStateException("pool p cannot be decoded");
    assertThat(ApiFailure.describe(e))
        .isEqualTo("pool p cannot be decoded (IllegalStateException)");
    assertThat(ApiFailure.describe(new NullPointerException())).isEqualTo("NullPointerException");
    assertThat(ApiFailure.isServerSide(e)).isFalse();
  }
}
