package dev.ironcore.maintenance.api.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.Test;

class RefusedRequestTest {
  private static KubernetesClientException answered(int code, String message) {
    Status status = new StatusBuilder().withCode(code).withMessage(message).build();
    return new KubernetesClientException(status);
  }

  @Test
  void a401SaysWhichCredentialsToCheck() {
    assertThat(RefusedRequest.describe(answered(401, "Unauthorized")))
        .contains(
            "answered 401 Unauthorized (check the kubeconfig's credentials, or in a pod its"
                + " service account token)");
  }

  @Test
  void a403CarriesTheApiServersMessage() {
    assertThat(
            RefusedRequest.describe(
                answered(
                    403,
                    "forbidden: User \"system:anonymous\" cannot get path"
                        + " \"/apis/compute.ironcore.dev\"")))
        .contains(
            "answered 403 Forbidden: User \"system:anonymous\" cannot get path"
                + " \"/apis/compute.ironcore.dev\" (the request carried no credentials)");
    assertThat(
            RefusedRequest.describe(
                answered(
                    403,
                    "machinepools.compute.ironcore.dev is forbidden: User \"u\" cannot list"
                        + " resource \"machinepools\"")))
        .contains(
            "answered 403 Forbidden: machinepools.compute.ironcore.dev is forbidden: User \"u\""
                + " cannot list resource \"machinepools\"");
  }

  @Test
  void anythingElseIsLeftToTheCaller() {
    assertThat(RefusedRequest.describe(answered(500, "boom"))).isEmpty();
    assertThat(RefusedRequest.describe(new KubernetesClientException("no answer"))).isEmpty();
  }
}
