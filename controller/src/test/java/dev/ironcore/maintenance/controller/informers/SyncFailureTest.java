package dev.ironcore.maintenance.controller.informers;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class SyncFailureTest {
  private static KubernetesClientException answered(int code, String message) {
    return new KubernetesClientException(
        new StatusBuilder().withCode(code).withMessage(message).build());
  }

  @Test
  void anAnswerIsSaidWithItsCodeAndTheApiServersMessage() {
    String conversion =
        "conversion webhook for compute.ironcore.dev/v1alpha1, Kind=Machine failed: cannot"
            + " convert objects[0] (Machine default/old-ann) to compute.ironcore.dev/v1alpha2";
    assertThat(SyncFailure.describe(new CompletionException(answered(500, conversion))))
        .isEqualTo("answered 500: " + conversion);
    assertThat(
            SyncFailure.describe(
                answered(
                    403,
                    "machines.compute.ironcore.dev is forbidden: User \"u\" cannot list resource")))
        .isEqualTo(
            "answered 403 Forbidden: machines.compute.ironcore.dev is forbidden: User \"u\""
                + " cannot list resource");
    assertThat(SyncFailure.describe(answered(401, "Unauthorized")))
        .startsWith("answered 401 Unauthorized (check the kubeconfig's credentials");
    assertThat(SyncFailure.describe(answered(500, null))).isEqualTo("answered 500");
  }

  @Test
  void noAnswerIsSaidByItsInnermostCause() {
    assertThat(
            SyncFailure.describe(
                new KubernetesClientException(
                    "An error has occurred.", new ConnectException("Connection refused"))))
        .isEqualTo("ConnectException: Connection refused");
    assertThat(SyncFailure.describe(new CompletionException(new ConnectException())))
        .isEqualTo("ConnectException");
  }

  @Test
  void theReasonNamesEachInformerThatDidNotListOnOneLine() {
    Map<String, String> notSynced = new LinkedHashMap<>();
    notSynced.put("machines", "list failed: answered 500: conversion webhook failed:\nline two");
    notSynced.put("leases", "no list answer yet");
    assertThat(SyncFailure.timedOut(Duration.ofSeconds(60), notSynced))
        .isEqualTo(
            "caches did not sync within 60 s: informer machines: list failed: answered 500:"
                + " conversion webhook failed: line two; informer leases: no list answer yet");
    assertThat(SyncFailure.timedOut(Duration.ofMillis(1500), Map.of()))
        .isEqualTo(
            "caches did not sync within 1500 ms: every informer listed, but not before the wait"
                + " ended");
  }
}
