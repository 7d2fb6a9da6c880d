package dev.ironcore.maintenance.server.e2e;

import static dev.ironcore.maintenance.server.e2e.WebhookEnvironment.CAPI;
import static dev.ironcore.maintenance.server.e2e.WebhookEnvironment.HOLD;
import static dev.ironcore.maintenance.server.e2e.WebhookEnvironment.IRONCORE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.testkit.KubectlResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The mutating webhooks through a real kube-apiserver, driven with real kubectl. */
class MutatingWebhookE2ETest {

  private WebhookEnvironment env;
  private String ns;

  @BeforeEach
  void namespace() {
    env = WebhookEnvironment.get();
    ns = env.newNamespace();
  }

  private String capiMachine(String name) {
    return capiMachine(name, true);
  }

  private String capiMachine(String name, boolean userFinalizer) {
    String yaml =
        """
                apiVersion: cluster.x-k8s.io/v1beta2
                kind: Machine
                metadata:
                  name: %s
                  namespace: %s
                  annotations:
                    user.example.com/note: "mine"
                  finalizers:
                    - %s
                spec:
                  clusterName: workload
                  bootstrap:
                    dataSecretName: keep-me
                """
            .formatted(name, ns, HOLD);
    return userFinalizer ? yaml : yaml.replace("  finalizers:\n    - " + HOLD + "\n", "");
  }

  private String ironcoreMachine(String name, String pool) {
    return ironcoreMachine(name, pool, true);
  }

  private String ironcoreMachine(String name, String pool, boolean userFinalizer) {
    String yaml =
        """
                apiVersion: compute.ironcore.dev/v1alpha1
                kind: Machine
                metadata:
                  name: %s
                  namespace: %s
                  finalizers:
                    - %s
                spec:
                  machineClassRef:
                    name: small
                  image: keep-me
                %s"""
            .formatted(
                name, ns, HOLD, pool == null ? "" : "  machinePoolRef:\n    name: " + pool + "\n");
    return userFinalizer ? yaml : yaml.replace("  finalizers:\n    - " + HOLD + "\n", "");
  }

  private static List<String> finalizers(JsonNode object) {
    List<String> list = new ArrayList<>();
    object.at("/metadata/finalizers").forEach(f -> list.add(f.asText()));
    return list;
  }

  private static String hook(JsonNode object) {
    return object.at("/metadata/annotations").path(Names.PRE_DRAIN_HOOK_ANNOTATION).asText(null);
  }

  @Test
  void capiMachineGetsOurFinalizerAndHookAndKeepsTheUsersOwn() {
    env.apply(capiMachine("m1")).orThrow();
    JsonNode m = env.get(CAPI, ns, "m1");
    assertThat(finalizers(m)).containsExactly(HOLD, Names.CLEANUP_FINALIZER);
    assertThat(hook(m)).isEqualTo(Names.PRE_DRAIN_HOOK_VALUE);
    assertThat(m.at("/metadata/annotations/user.example.com~1note").asText()).isEqualTo("mine");
    assertThat(m.at("/spec/bootstrap/dataSecretName").asText()).isEqualTo("keep-me");
  }

  /**
   * Fresh eyes (session 42): annotations just under Kubernetes' 256 KiB went over with the hook the
   * webhook adds, and the API server answered "metadata.annotations: Too long", blaming what the
   * user sent. The webhook now refuses it naming the hook; one byte less is created with the hook.
   */
  @Test
  void aHookThatWouldTakeTheAnnotationsOver256KiBIsRefusedNamingIt() {
    int hook = (Names.PRE_DRAIN_HOOK_ANNOTATION + Names.PRE_DRAIN_HOOK_VALUE).length();
    int room = 256 * 1024 - "user.example.com/note".length() - hook;
    String over = capiMachine("big", false).replace("\"mine\"", "\"" + "x".repeat(room + 1) + "\"");
    KubectlResult refused = env.apply(over, "--server-side");
    assertThat(refused.ok()).isFalse();
    assertThat(refused.stderr())
        .contains(
            "metadata.annotations: Forbidden: the pre-drain hook annotation "
                + Names.PRE_DRAIN_HOOK_ANNOTATION
                + "="
                + Names.PRE_DRAIN_HOOK_VALUE
                + " that ironcore-maintenance adds")
        .contains("use fewer or shorter annotations")
        .doesNotContain("Too long");
    String fits = capiMachine("big", false).replace("\"mine\"", "\"" + "x".repeat(room) + "\"");
    env.apply(fits, "--server-side").orThrow();
    assertThat(hook(env.get(CAPI, ns, "big"))).isEqualTo(Names.PRE_DRAIN_HOOK_VALUE);
  }

  @Test
  void serverDryRunShowsTheMutationWithoutPersisting() {
    KubectlResult r = env.apply(capiMachine("dry"), "--dry-run=server", "-o", "json").orThrow();
    assertThat(finalizers(WebhookEnvironment.json(r.stdout()))).contains(Names.CLEANUP_FINALIZER);
    assertThat(env.isGone(CAPI, ns, "dry")).isTrue();
  }

  private String resourceVersion(String resource, String name) {
    return env.get(resource, ns, name).at("/metadata/resourceVersion").asText();
  }

  @Test
  void applyingTheSameObjectTwiceChangesNothing() {
    assertThat(env.apply(capiMachine("twice", false)).orThrow().stdout()).contains("created");
    assertThat(env.apply(ironcoreMachine("twice", "pool-a", false)).orThrow().stdout())
        .contains("created");
    String capiVersion = resourceVersion(CAPI, "twice");
    String ironcoreVersion = resourceVersion(IRONCORE, "twice");

    assertThat(env.apply(capiMachine("twice", false)).orThrow().stdout()).contains("unchanged");
    assertThat(env.apply(ironcoreMachine("twice", "pool-a", false)).orThrow().stdout())
        .contains("unchanged");

    assertThat(resourceVersion(CAPI, "twice")).isEqualTo(capiVersion);
    assertThat(resourceVersion(IRONCORE, "twice")).isEqualTo(ironcoreVersion);
    assertThat(finalizers(env.get(CAPI, ns, "twice"))).containsExactly(Names.CLEANUP_FINALIZER);
    assertThat(finalizers(env.get(IRONCORE, ns, "twice"))).containsExactly(Names.POOLLET_FINALIZER);
  }

  /**
   * Server-side apply sends the request every time: the webhook sees an UPDATE and must add
   * nothing.
   */
  @Test
  void serverSideApplyingTwiceChangesNothing() {
    for (boolean userFinalizer : new boolean[] {false, true}) {
      String name = "ssa-" + userFinalizer;
      env.apply(capiMachine(name, userFinalizer), "--server-side").orThrow();
      env.apply(ironcoreMachine(name, "pool-a", userFinalizer), "--server-side").orThrow();
      String capiVersion = resourceVersion(CAPI, name);
      String ironcoreVersion = resourceVersion(IRONCORE, name);

      env.apply(capiMachine(name, userFinalizer), "--server-side").orThrow();
      env.apply(ironcoreMachine(name, "pool-a", userFinalizer), "--server-side").orThrow();

      assertThat(resourceVersion(CAPI, name)).as(name).isEqualTo(capiVersion);
      assertThat(resourceVersion(IRONCORE, name)).as(name).isEqualTo(ironcoreVersion);
      assertThat(finalizers(env.get(CAPI, ns, name))).as(name).endsWith(Names.CLEANUP_FINALIZER);
      assertThat(finalizers(env.get(IRONCORE, ns, name)))
          .as(name)
          .endsWith(Names.POOLLET_FINALIZER);
    }
  }

  /**
   * With a finalizer list in the user's YAML, client-side apply to a custom resource replaces the
   * whole list (JSON merge patch), so kubectl sends a patch and says "configured"; the webhook puts
   * our entry back in the same request and the stored object does not change.
   */
  @Test
  void reapplyingAUserFinalizerListKeepsOursWithoutAWrite() {
    env.apply(capiMachine("list")).orThrow();
    env.apply(ironcoreMachine("list", "pool-a")).orThrow();
    String capiVersion = resourceVersion(CAPI, "list");
    String ironcoreVersion = resourceVersion(IRONCORE, "list");

    env.apply(capiMachine("list")).orThrow();
    env.apply(ironcoreMachine("list", "pool-a")).orThrow();

    JsonNode capi = env.get(CAPI, ns, "list");
    JsonNode ironcore = env.get(IRONCORE, ns, "list");
    assertThat(finalizers(capi)).containsExactly(HOLD, Names.CLEANUP_FINALIZER);
    assertThat(finalizers(ironcore)).containsExactly(HOLD, Names.POOLLET_FINALIZER);
    assertThat(capi.at("/metadata/resourceVersion").asText()).isEqualTo(capiVersion);
    assertThat(ironcore.at("/metadata/resourceVersion").asText()).isEqualTo(ironcoreVersion);
  }

  @Test
  void boundIronCoreMachineGetsThePoolletFinalizerAndUnboundDoesNot() {
    env.apply(ironcoreMachine("bound", "pool-a")).orThrow();
    env.apply(ironcoreMachine("unbound", null)).orThrow();
    JsonNode bound = env.get(IRONCORE, ns, "bound");
    assertThat(finalizers(bound)).containsExactly(HOLD, Names.POOLLET_FINALIZER);
    assertThat(bound.at("/spec/image").asText()).isEqualTo("keep-me");
    assertThat(finalizers(env.get(IRONCORE, ns, "unbound"))).containsExactly(HOLD);
  }

  @Test
  void bindingLaterAddsThePoolletFinalizer() {
    env.apply(ironcoreMachine("late", null)).orThrow();
    assertThat(finalizers(env.get(IRONCORE, ns, "late"))).containsExactly(HOLD);

    env.kubectl(
        "patch",
        IRONCORE,
        "-n",
        ns,
        "late",
        "--type",
        "merge",
        "-p",
        "{\"spec\":{\"machinePoolRef\":{\"name\":\"pool-a\"}}}");
    assertThat(finalizers(env.get(IRONCORE, ns, "late")))
        .containsExactly(HOLD, Names.POOLLET_FINALIZER);

    env.apply(ironcoreMachine("late2", null)).orThrow();
    env.apply(ironcoreMachine("late2", "pool-b")).orThrow();
    assertThat(finalizers(env.get(IRONCORE, ns, "late2")))
        .containsExactly(HOLD, Names.POOLLET_FINALIZER);
  }

  @Test
  void deletingCapiMachineNeverGetsOurFinalizerOrHookBack() {
    env.apply(capiMachine("del")).orThrow();
    env.kubectl("delete", CAPI, "-n", ns, "del", "--wait=false");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> !env.get(CAPI, ns, "del").at("/metadata/deletionTimestamp").isMissingNode());

    // what our controller does at the end of a drain: drop hook and finalizer
    env.kubectl(
        "patch",
        CAPI,
        "-n",
        ns,
        "del",
        "--type",
        "merge",
        "-p",
        "{\"metadata\":{\"finalizers\":[\""
            + HOLD
            + "\"],\"annotations\":{\""
            + Names.PRE_DRAIN_HOOK_ANNOTATION
            + "\":null}}}");
    JsonNode released = env.get(CAPI, ns, "del");
    assertThat(finalizers(released)).containsExactly(HOLD);
    assertThat(hook(released)).isNull();

    // any later update while deleting must not bring them back
    env.kubectl("label", CAPI, "-n", ns, "del", "touched=yes");
    env.kubectl("annotate", CAPI, "-n", ns, "del", "user.example.com/note=changed", "--overwrite");
    JsonNode touched = env.get(CAPI, ns, "del");
    assertThat(finalizers(touched)).containsExactly(HOLD);
    assertThat(hook(touched)).isNull();
    assertThat(touched.at("/metadata/labels/touched").asText()).isEqualTo("yes");

    env.kubectl(
        "patch",
        CAPI,
        "-n",
        ns,
        "del",
        "--type",
        "json",
        "-p",
        "[{\"op\":\"test\",\"path\":\"/metadata/finalizers/0\",\"value\":\""
            + HOLD
            + "\"},"
            + "{\"op\":\"remove\",\"path\":\"/metadata/finalizers/0\"}]");
    await().atMost(Duration.ofSeconds(30)).until(() -> env.isGone(CAPI, ns, "del"));
  }

  @Test
  void deletingIronCoreMachineNeverGetsThePoolletFinalizerBack() {
    env.apply(ironcoreMachine("del", "pool-a")).orThrow();
    env.kubectl("delete", IRONCORE, "-n", ns, "del", "--wait=false");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> !env.get(IRONCORE, ns, "del").at("/metadata/deletionTimestamp").isMissingNode());

    // the poollet releases its finalizer; validation must allow it on a deleting object
    env.kubectl(
        "patch",
        IRONCORE,
        "-n",
        ns,
        "del",
        "--type",
        "merge",
        "-p",
        "{\"metadata\":{\"finalizers\":[\"" + HOLD + "\"]}}");
    assertThat(finalizers(env.get(IRONCORE, ns, "del"))).containsExactly(HOLD);

    env.kubectl("label", IRONCORE, "-n", ns, "del", "touched=yes");
    assertThat(finalizers(env.get(IRONCORE, ns, "del"))).containsExactly(HOLD);

    env.kubectl(
        "patch",
        IRONCORE,
        "-n",
        ns,
        "del",
        "--type",
        "merge",
        "-p",
        "{\"metadata\":{\"finalizers\":null}}");
    await().atMost(Duration.ofSeconds(30)).until(() -> env.isGone(IRONCORE, ns, "del"));
  }
}
