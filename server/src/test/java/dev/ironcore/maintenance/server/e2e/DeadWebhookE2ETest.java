package dev.ironcore.maintenance.server.e2e;

import static dev.ironcore.maintenance.server.e2e.WebhookEnvironment.CAPI;
import static dev.ironcore.maintenance.server.e2e.WebhookEnvironment.HOLD;
import static dev.ironcore.maintenance.server.e2e.WebhookEnvironment.IRONCORE;
import static dev.ironcore.maintenance.server.e2e.WebhookEnvironment.VALIDATING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.testkit.FreePorts;
import dev.ironcore.maintenance.testkit.KubectlResult;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Domain reference §4 "never deny the update that removes a finalizer from an object with a
 * deletionTimestamp", with the webhook server down: copies of our installed webhook configurations
 * that point at a closed loopback port (failurePolicy Fail), limited to one labelled namespace,
 * really fail a CREATE there, yet removing the finalizers of deleting Machines succeeds because
 * their match conditions skip the call. Changing the binding of a deleting IronCore Machine still
 * calls the validating webhook, so it fails closed.
 */
class DeadWebhookE2ETest {
  private static final String LABEL = "e2e.ironcore.dev/dead-webhook";
  private static final String MUTATING =
      "mutatingwebhookconfigurations.admissionregistration.k8s.io";
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String DEAD_MACHINE_VALIDATION =
      "failed calling webhook \"dead.machine.validate.maintenance.ironcore.dev\"";

  private final WebhookEnvironment env = WebhookEnvironment.get();
  private final String ns = env.newNamespace();
  private final String deadName = "dead-" + ns;

  @Test
  void finalizersOfDeletingMachinesCanBeRemovedWhileTheWebhookServerIsDown() {
    env.kubectl("label", "namespace", ns, LABEL + "=" + ns);
    env.apply(capiMachine("node")).orThrow();
    env.apply(ironcoreMachine("vm")).orThrow();
    env.apply(ironcoreMachine("unbound").replace("  machinePoolRef:\n    name: pool-a\n", ""))
        .orThrow();
    env.kubectl("delete", CAPI, "-n", ns, "node", "--wait=false");
    env.kubectl("delete", IRONCORE, "-n", ns, "vm", "--wait=false");
    env.kubectl("delete", IRONCORE, "-n", ns, "unbound", "--wait=false");
    assertThat(env.get(CAPI, ns, "node").at("/metadata/deletionTimestamp").isMissingNode())
        .isFalse();
    assertThat(env.get(IRONCORE, ns, "vm").at("/metadata/deletionTimestamp").isMissingNode())
        .isFalse();

    int closedPort = FreePorts.pick(1).get(0);
    try {
      installDeadCopy(MUTATING, closedPort);
      installDeadCopy(VALIDATING, closedPort);
      awaitDeadWebhooksCalled();

      // a binding change of a deleting Machine still calls the validating webhook: fails closed.
      // Our running server denies it as well, and either error may come back, so an unbound
      // Machine shows the dead call: binding it is allowed by our server, not by a dead one.
      KubectlResult rebound =
          env.cp.kubectl(
              "patch",
              IRONCORE,
              "-n",
              ns,
              "vm",
              "--type",
              "merge",
              "-p",
              "{\"metadata\":{\"finalizers\":null},\"spec\":{\"machinePoolRef\":null}}");
      assertThat(rebound.ok()).isFalse();
      assertThat(rebound.stderr())
          .containsAnyOf(DEAD_MACHINE_VALIDATION, "spec.machinePoolRef.name: Forbidden");
      KubectlResult bound =
          env.cp.kubectl(
              "patch",
              IRONCORE,
              "-n",
              ns,
              "unbound",
              "--type",
              "merge",
              "-p",
              "{\"spec\":{\"machinePoolRef\":{\"name\":\"pool-a\"}}}");
      assertThat(bound.ok()).isFalse();
      assertThat(bound.stderr()).contains(DEAD_MACHINE_VALIDATION);
      assertThat(env.get(IRONCORE, ns, "vm").at("/spec/machinePoolRef/name").asText())
          .isEqualTo("pool-a");

      // finalizer-only updates never reach a webhook
      env.kubectl(
          "patch",
          CAPI,
          "-n",
          ns,
          "node",
          "--type",
          "merge",
          "-p",
          "{\"metadata\":{\"finalizers\":null}}");
      env.kubectl(
          "patch",
          IRONCORE,
          "-n",
          ns,
          "vm",
          "--type",
          "merge",
          "-p",
          "{\"metadata\":{\"finalizers\":null}}");
      env.kubectl(
          "patch",
          IRONCORE,
          "-n",
          ns,
          "unbound",
          "--type",
          "json",
          "-p",
          "[{\"op\":\"remove\",\"path\":\"/metadata/finalizers/0\"}]");
      await()
          .atMost(WAIT)
          .until(
              () ->
                  env.isGone(CAPI, ns, "node")
                      && env.isGone(IRONCORE, ns, "vm")
                      && env.isGone(IRONCORE, ns, "unbound"));
    } finally {
      env.cp.kubectl("delete", MUTATING, deadName, "--ignore-not-found");
      env.cp.kubectl("delete", VALIDATING, deadName, "--ignore-not-found");
    }
  }

  /** A CREATE in the namespace and of a labelled pool fails at the dead copies: both are active. */
  private void awaitDeadWebhooksCalled() {
    await("dead mutating webhook called")
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              KubectlResult r = env.apply(ironcoreMachine("probe"), "--dry-run=server");
              return !r.ok()
                  && r.stderr()
                      .contains("failed calling webhook \"dead.machine.maintenance.ironcore.dev\"");
            });
    KubectlResult capi = env.apply(capiMachine("probe"));
    assertThat(capi.ok()).isFalse();
    assertThat(capi.stderr())
        .contains("failed calling webhook \"dead.capi-machine.maintenance.ironcore.dev\"");
    String pool =
        """
                apiVersion: compute.ironcore.dev/v1alpha1
                kind: MachinePool
                metadata:
                  name: %s
                  labels:
                    %s: %s
                """
            .formatted(ns + "-probe", LABEL, ns);
    await("dead validating webhook called")
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              KubectlResult r = env.apply(pool, "--dry-run=server");
              return !r.ok()
                  && r.stderr()
                      .contains(
                          "failed calling webhook \"dead.machinepool.validate.maintenance.ironcore.dev\"");
            });
    assertThat(env.isGone(CAPI, ns, "probe")).isTrue();
  }

  /**
   * Installs a copy of our installed configuration {@code ironcore-maintenance} named {@link
   * #deadName}: same rules and match conditions, webhooks renamed {@code dead.<name>}, {@code
   * failurePolicy: Fail}, URL on {@code closedPort}, only for this namespace (and, for
   * cluster-scoped resources where a namespaceSelector has no effect, objects with its label).
   */
  private void installDeadCopy(String resource, int closedPort) {
    JsonNode installed =
        WebhookEnvironment.json(
            env.kubectl("get", resource, "ironcore-maintenance", "-o", "json").stdout());
    ObjectNode copy = WebhookEnvironment.MAPPER.createObjectNode();
    copy.put("apiVersion", installed.get("apiVersion").asText())
        .put("kind", installed.get("kind").asText());
    copy.putObject("metadata").put("name", deadName);
    copy.set("webhooks", installed.get("webhooks").deepCopy());
    // Mutating webhooks run before validating ones: without the pool's mutating webhook (timeAdded)
    // in the dead copy, a pool probe reaches the dead validating pool webhook, which shows that the
    // validating copy is active too (awaitDeadWebhooksCalled).
    java.util.Iterator<JsonNode> hooks = copy.get("webhooks").iterator();
    while (hooks.hasNext()) {
      if ("machinepool.maintenance.ironcore.dev".equals(hooks.next().path("name").asText())) {
        hooks.remove();
      }
    }
    for (JsonNode node : copy.get("webhooks")) {
      ObjectNode webhook = (ObjectNode) node;
      assertThat(webhook.has("matchConditions"))
          .as("installed webhooks carry matchConditions")
          .isTrue();
      webhook.put("name", "dead." + webhook.get("name").asText());
      webhook.put("failurePolicy", "Fail");
      String path = URI.create(webhook.at("/clientConfig/url").asText()).getPath();
      ((ObjectNode) webhook.get("clientConfig"))
          .put("url", "https://127.0.0.1:" + closedPort + path);
      webhook.putObject("namespaceSelector").putObject("matchLabels").put(LABEL, ns);
      if ("Cluster".equals(webhook.at("/rules/0/scope").asText())) {
        webhook.putObject("objectSelector").putObject("matchLabels").put(LABEL, ns);
      }
    }
    env.cp.kubectlTool().runWithInput(copy.toString(), "create", "-f", "-").orThrow();
  }

  private String capiMachine(String name) {
    return """
                apiVersion: cluster.x-k8s.io/v1beta2
                kind: Machine
                metadata:
                  name: %s
                  namespace: %s
                  finalizers: [%s]
                spec:
                  clusterName: workload
                """
        .formatted(name, ns, HOLD);
  }

  private String ironcoreMachine(String name) {
    return """
                apiVersion: compute.ironcore.dev/v1alpha1
                kind: Machine
                metadata:
                  name: %s
                  namespace: %s
                  finalizers: [%s]
                spec:
                  machineClassRef:
                    name: small
                  machinePoolRef:
                    name: pool-a
                """
        .formatted(name, ns, HOLD);
  }
}
