package dev.ironcore.maintenance.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.testkit.TestClusters;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * An Event the real API server refuses for good is not retried, as client-go's recorder drops it:
 * here a namespace being deleted (403, NamespaceTerminating; this API server runs no namespace
 * controller, so the namespace stays Terminating) and one that does not exist (404).
 */
class EventRecorderRefusalTest {
  private final KubernetesClient client = TestClusters.shared().client();

  private static ConfigMap object(String ns) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName("cm")
        .withUid(UUID.randomUUID().toString())
        .endMetadata()
        .build();
  }

  @Test
  void anEventRefusedForGoodIsNotRetried() {
    String terminating = "ev-" + UUID.randomUUID().toString().substring(0, 8);
    client
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(terminating).endMetadata().build())
        .create();
    client.namespaces().withName(terminating).delete();
    EventRetries retries = new EventRetries(Duration.ofMillis(100));
    EventRecorder recorder =
        new EventRecorder(
            Clusters.single(client), Clock.systemUTC(), EventRecorder.DEFAULT_WINDOW, retries);
    recorder.record(object(terminating), "Normal", "Refused", "in a namespace being deleted");
    recorder.record(object(terminating + "-none"), "Normal", "Refused", "in no namespace");
    assertThat(retries.pending()).as("nothing waits for a retry").isZero();

    recorder.record(object("default"), "Normal", "Written", "in default");
    assertThat(client.v1().events().inNamespace("default").list().getItems())
        .anyMatch(
            e -> "Written".equals(e.getReason()) && "cm".equals(e.getInvolvedObject().getName()));
  }
}
