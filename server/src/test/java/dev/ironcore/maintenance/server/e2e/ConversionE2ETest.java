package dev.ironcore.maintenance.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.testkit.KubectlResult;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Both versions of the compute.ironcore.dev CRDs through a real kube-apiserver that calls our
 * {@code /convert} (v1alpha2 is stored, so every v1alpha1 read and write is converted by us).
 */
class ConversionE2ETest {
  static final String V1_MACHINES = "machines.v1alpha1.compute.ironcore.dev";
  static final String V2_MACHINES = "machines.v1alpha2.compute.ironcore.dev";
  static final String V1_POOLS = "machinepools.v1alpha1.compute.ironcore.dev";
  static final String V2_POOLS = "machinepools.v1alpha2.compute.ironcore.dev";
  static final String ANNOTATION = "maintenance.ironcore.dev/v1alpha2-fields";

  private WebhookEnvironment env;
  private String ns;

  @BeforeEach
  void namespace() {
    env = WebhookEnvironment.get();
    ns = env.newNamespace();
  }

  private String machine(String version, String name, String toleration) {
    return """
        apiVersion: compute.ironcore.dev/%s
        kind: Machine
        metadata:
          name: %s
          namespace: %s
          labels: {app: demo}
          annotations: {note: kept}
        spec:
          machineClassRef: {name: small}
          image: ghcr.io/ironcore-dev/os-images/gardenlinux:1592
          tolerations:
          - %s
        """
        .formatted(version, name, ns, toleration);
  }

  private JsonNode get(String resource, String name) {
    return env.get(resource, ns, name);
  }

  @Test
  void aMachineWrittenInV1alpha2ReadsInV1alpha1WithTheAnnotationAndBackLosslessly() {
    env.apply(
            machine(
                "v1alpha2",
                "vm-2",
                "{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: 9223372036854775807}"))
        .orThrow();

    JsonNode v1 = get(V1_MACHINES, "vm-2");
    assertThat(v1.get("apiVersion").asText()).isEqualTo("compute.ironcore.dev/v1alpha1");
    assertThat(v1.at("/spec/tolerations/0").has("tolerationSeconds")).isFalse();
    assertThat(v1.at("/spec/tolerations/0/key").asText()).isEqualTo("k");
    assertThat(v1.at("/metadata/annotations").get(ANNOTATION).asText())
        .contains("\"tolerationSeconds\":9223372036854775807");
    assertThat(v1.at("/metadata/annotations/note").asText()).isEqualTo("kept");
    assertThat(v1.at("/spec/image").asText()).startsWith("ghcr.io/");

    JsonNode v2 = get(V2_MACHINES, "vm-2");
    assertThat(v2.at("/spec/tolerations/0/tolerationSeconds").asText())
        .isEqualTo("9223372036854775807");
    assertThat(v2.at("/metadata/annotations").has(ANNOTATION)).isFalse();
    assertThat(v2.at("/metadata/labels")).isEqualTo(v1.at("/metadata/labels"));
    assertThat(v2.at("/metadata/uid")).isEqualTo(v1.at("/metadata/uid"));
    assertThat(v2.at("/metadata/resourceVersion")).isEqualTo(v1.at("/metadata/resourceVersion"));
    assertThat(v2.at("/metadata/managedFields").size())
        .isEqualTo(v1.at("/metadata/managedFields").size());

    // a v1alpha1 client's update keeps the field it cannot see
    env.kubectl("label", V1_MACHINES, "-n", ns, "vm-2", "tier=gold");
    JsonNode after = get(V2_MACHINES, "vm-2");
    assertThat(after.at("/metadata/labels/tier").asText()).isEqualTo("gold");
    assertThat(after.at("/spec/tolerations/0/tolerationSeconds").asText())
        .isEqualTo("9223372036854775807");
    assertThat(after.at("/metadata/annotations").has(ANNOTATION)).isFalse();
  }

  /**
   * The reserved annotation of a v1alpha1 write is validated as the fields it becomes in v1alpha2
   * (a fresh-eyes finding: a string {@code tolerationSeconds} was stored that way, and the
   * controller could not read the Machine, so its pool's drain waited for it forever).
   */
  @Test
  void aV1alpha1WriteCannotStoreThroughTheAnnotationWhatAV1alpha2WriteIsDenied() {
    String toleration = "{key: k, operator: Exists, effect: NoExecute}";
    String recorded =
        "{\"tolerations\":[{\"index\":0,\"entry\":{\"key\":\"k\",\"operator\":\"Exists\","
            + "\"effect\":\"NoExecute\",\"tolerationSeconds\":%s}}]}";
    String bad =
        machine("v1alpha1", "vm-smuggle", toleration)
            .replace(
                "annotations: {note: kept}",
                "annotations:\n    " + ANNOTATION + ": '" + recorded.formatted("\"abc\"") + "'");
    KubectlResult denied = env.apply(bad);
    assertThat(denied.ok()).as(denied.stdout()).isFalse();
    assertThat(denied.stderr()).contains("spec.tolerations[0].tolerationSeconds");
    String fine =
        machine("v1alpha1", "vm-fine", toleration)
            .replace(
                "annotations: {note: kept}",
                "annotations:\n    " + ANNOTATION + ": '" + recorded.formatted("30") + "'");
    env.apply(fine).orThrow();
    assertThat(get(V2_MACHINES, "vm-fine").at("/spec/tolerations/0/tolerationSeconds").asInt())
        .isEqualTo(30);
  }

  /**
   * A v1alpha1 write carrying {@code tolerationSeconds} on the entries themselves (up-conversion
   * keeps them there) whose v1alpha1 form would exceed the annotation limit: refused by our
   * validation, nothing stored (fresh eyes: it was measured as needing no annotation, stored, the
   * client told it failed, and every v1alpha1 list of Machines failed after).
   */
  @Test
  void aV1alpha1WriteTooBigForV1alpha1WithSecondsOnItsEntriesIsRefusedAndNotStored() {
    StringBuilder tolerations = new StringBuilder();
    for (int i = 0; i < 3200; i++) {
      tolerations
          .append(i == 0 ? "" : "\n  - ")
          .append("{key: k")
          .append(i)
          .append(", operator: Exists, effect: NoExecute, tolerationSeconds: 30}");
    }
    KubectlResult denied =
        env.apply(machine("v1alpha1", "vm-too-big", tolerations.toString()), "--server-side");
    assertThat(denied.ok()).as(denied.stdout()).isFalse();
    assertThat(denied.stderr())
        .contains("spec.tolerations: Forbidden: in v1alpha1, which IronCore's clients read")
        .doesNotContain("Too long");
    assertThat(
            env.kubectl(
                    "get", V2_MACHINES, "-n", ns, "vm-too-big", "--ignore-not-found", "-o", "name")
                .stdout())
        .isBlank();
    env.kubectl("get", V1_MACHINES, "-n", ns).orThrow();
  }

  /**
   * Fresh eyes (session 51): a v1alpha1 manifest that gave a toleration {@code tolerationSeconds}
   * and then no longer did was applied as {@code configured}, read in v1alpha1 and diffed as a
   * toleration for good, while the annotation kept the seconds and the Machine was evicted once
   * they had passed. The apply now removes them, as in v1alpha2; a manifest that keeps them, or
   * changes something else, keeps them; the other toleration's seconds stay.
   */
  @Test
  void aV1alpha1ApplyWhoseManifestDropsTolerationSecondsRemovesThem() {
    String other = "{key: other, operator: Exists, effect: NoExecute, tolerationSeconds: 60}";
    String upWith = "{key: upgrade, operator: Exists, effect: NoExecute, tolerationSeconds: 5}";
    String upWithout = "{key: upgrade, operator: Exists, effect: NoExecute}";
    env.apply(machine("v1alpha1", "vm-applied", upWith + "\n  - " + other)).orThrow();
    // applied again, unchanged, and with another change: the seconds stay
    env.apply(machine("v1alpha1", "vm-applied", upWith + "\n  - " + other)).orThrow();
    env.apply(machine("v1alpha1", "vm-applied", upWith + "\n  - " + other).replace("small", "big"))
        .orThrow();
    JsonNode kept = get(V2_MACHINES, "vm-applied").at("/spec/tolerations");
    assertThat(kept.get(0).get("tolerationSeconds").asLong()).isEqualTo(5);
    assertThat(kept.get(1).get("tolerationSeconds").asLong()).isEqualTo(60);

    KubectlResult applied =
        env.apply(machine("v1alpha1", "vm-applied", upWithout + "\n  - " + other)).orThrow();
    assertThat(applied.stdout()).contains("configured");
    assertThat(applied.stderr())
        .contains(
            "Warning: this v1alpha1 apply stores spec.tolerations as its manifest gives them: 1"
                + " entry loses its tolerationSeconds");
    JsonNode tolerations = get(V2_MACHINES, "vm-applied").at("/spec/tolerations");
    assertThat(tolerations.get(0).has("tolerationSeconds")).as(tolerations.toString()).isFalse();
    assertThat(tolerations.get(1).get("tolerationSeconds").asLong()).isEqualTo(60);
    KubectlResult diff =
        env.cp
            .kubectlTool()
            .runWithInput(
                machine("v1alpha1", "vm-applied", upWithout + "\n  - " + other), "diff", "-f", "-");
    // nothing but the generation, which the other toleration's seconds on its v1alpha1 entry move
    // on every apply (documented in docs/api-versions.md)
    assertThat(
            diff.stdout()
                .lines()
                .filter(l -> l.matches("^[-+] .*"))
                .filter(l -> !l.contains("generation:")))
        .as(diff.stdout())
        .isEmpty();
  }

  /**
   * A v1alpha1 update that drops the annotation (a {@code kubectl replace} or a tool owning the
   * annotation map) drops every {@code tolerationSeconds} with it: allowed, with a warning kubectl
   * prints (fresh eyes: the 30 s toleration silently became one that tolerates for good).
   */
  @Test
  void aV1alpha1UpdateDroppingTheAnnotationIsWarnedAboutTheSecondsItDrops() {
    env.apply(
            machine(
                "v1alpha2",
                "vm-drop",
                "{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: 30}"))
        .orThrow();
    KubectlResult patched =
        env.kubectl(
            "patch",
            V1_MACHINES,
            "-n",
            ns,
            "vm-drop",
            "--type=merge",
            "-p",
            "{\"metadata\":{\"annotations\":{\"" + ANNOTATION + "\":null}}}");
    assertThat(patched.stderr())
        .contains(
            "Warning: this v1alpha1 update removed the annotation "
                + ANNOTATION
                + ", which keeps the tolerationSeconds of spec.tolerations in v1alpha1: 1 entry"
                + " loses its tolerationSeconds (a toleration without them tolerates matching"
                + " NoExecute taints for good)");
    assertThat(get(V2_MACHINES, "vm-drop").at("/spec/tolerations/0").has("tolerationSeconds"))
        .isFalse();
    // an update that keeps the annotation warns of nothing
    env.apply(
            machine(
                "v1alpha2",
                "vm-keep",
                "{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: 30}"))
        .orThrow();
    KubectlResult labelled = env.kubectl("label", V1_MACHINES, "-n", ns, "vm-keep", "extra=yes");
    assertThat(labelled.stderr()).doesNotContain("Warning");
  }

  /**
   * Twins (tolerations equal in v1alpha1, one with seconds) keep their seconds where they were when
   * a v1alpha1 JSON patch inserts a toleration in front of them (fresh eyes, session 46: the 10 s
   * moved onto the first twin, which decides, and the Machine was evicted after its pool's taint);
   * removing the plain twin in front is warned about (it left one toleration for good without a
   * word).
   */
  @Test
  void twinTolerationsKeepTheirSecondsThroughAV1alpha1PatchInFrontOfThem() {
    String up = "{key: up, operator: Exists, effect: NoExecute}";
    env.apply(
            machine(
                "v1alpha2",
                "vm-twins",
                up + "\n  - {key: up, operator: Exists, effect: NoExecute, tolerationSeconds: 10}"))
        .orThrow();
    KubectlResult inserted =
        env.kubectl(
            "patch",
            V1_MACHINES,
            "-n",
            ns,
            "vm-twins",
            "--type=json",
            "-p",
            "[{\"op\":\"add\",\"path\":\"/spec/tolerations/0\",\"value\":"
                + "{\"key\":\"other\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}}]");
    assertThat(inserted.exitCode()).as(inserted.stderr()).isZero();
    assertThat(inserted.stderr()).doesNotContain("Warning");
    JsonNode tolerations = get(V2_MACHINES, "vm-twins").at("/spec/tolerations");
    assertThat(tolerations.findValuesAsText("key")).containsExactly("other", "up", "up");
    assertThat(tolerations.get(1).has("tolerationSeconds"))
        .as("the first twin, as before")
        .isFalse();
    assertThat(tolerations.get(2).get("tolerationSeconds").asLong()).isEqualTo(10);

    KubectlResult removed =
        env.kubectl(
            "patch",
            V1_MACHINES,
            "-n",
            ns,
            "vm-twins",
            "--type=json",
            "-p",
            "[{\"op\":\"remove\",\"path\":\"/spec/tolerations/1\"}]");
    assertThat(removed.exitCode()).as(removed.stderr()).isZero();
    assertThat(removed.stderr()).contains("1 entry loses its tolerationSeconds");
    assertThat(get(V2_MACHINES, "vm-twins").at("/spec/tolerations").findValues("tolerationSeconds"))
        .isEmpty();
  }

  @Test
  void aMachineWrittenInV1alpha1ReadsInV1alpha2() {
    env.apply(machine("v1alpha1", "vm-1", "{key: k, operator: Exists, effect: NoSchedule}"))
        .orThrow();
    JsonNode v2 = get(V2_MACHINES, "vm-1");
    assertThat(v2.get("apiVersion").asText()).isEqualTo("compute.ironcore.dev/v1alpha2");
    assertThat(v2.at("/spec/tolerations/0/effect").asText()).isEqualTo("NoSchedule");
    assertThat(v2.at("/metadata/annotations/note").asText()).isEqualTo("kept");
    assertThat(get(V1_MACHINES, "vm-1").at("/metadata/annotations").has(ANNOTATION)).isFalse();
  }

  @Test
  void listsInBothVersionsHoldObjectsWrittenInBothWithPrinterColumns() {
    env.apply(machine("v1alpha1", "a", "{key: k, operator: Exists}")).orThrow();
    env.apply(
            machine(
                "v1alpha2",
                "b",
                "{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: 5}"))
        .orThrow();
    for (String version : List.of("v1alpha1", "v1alpha2")) {
      JsonNode list =
          WebhookEnvironment.json(
              env.kubectl(
                      "get",
                      "machines." + version + ".compute.ironcore.dev",
                      "-n",
                      ns,
                      "-o",
                      "json")
                  .stdout());
      assertThat(list.get("items")).hasSize(2);
      list.get("items")
          .forEach(
              item ->
                  assertThat(item.get("apiVersion").asText())
                      .isEqualTo("compute.ironcore.dev/" + version));
      String table =
          env.kubectl("get", "machines." + version + ".compute.ironcore.dev", "-n", ns).stdout();
      assertThat(table).contains("POOL", "CLASS", "STATE", "AGE").contains("small");
    }
    JsonNode v1b =
        WebhookEnvironment.json(env.kubectl("get", V1_MACHINES, "-n", ns, "-o", "json").stdout());
    assertThat(v1b.toString()).contains(ANNOTATION);
  }

  /**
   * IronCore's field selectors work in both versions (fresh eyes, session 44: v1alpha1 refused
   * {@code spec.machinePoolRef.name}, by which IronCore's machinepoollet lists its pool's
   * Machines).
   */
  @Test
  void ironCoresFieldSelectorsWorkInBothVersions() {
    for (String name : List.of("on-a", "on-b")) {
      env.apply(
              """
              apiVersion: compute.ironcore.dev/v1alpha1
              kind: Machine
              metadata: {name: %s, namespace: %s}
              spec: {machineClassRef: {name: %s}, machinePoolRef: {name: pool-%s}}
              """
                  .formatted(name, ns, name.equals("on-a") ? "small" : "large", name.substring(3)))
          .orThrow();
    }
    for (String resource : List.of(V1_MACHINES, V2_MACHINES)) {
      for (String[] selector :
          List.of(
              new String[] {"spec.machinePoolRef.name=pool-a", "on-a"},
              new String[] {"spec.machineClassRef.name=large", "on-b"})) {
        assertThat(
                env.kubectl(
                        "get", resource, "-n", ns, "--field-selector", selector[0], "-o", "name")
                    .orThrow()
                    .stdout()
                    .strip())
            .as(resource + " " + selector[0])
            .isEqualTo("machine.compute.ironcore.dev/" + selector[1]);
      }
    }
  }

  @Test
  void aV1alpha1WatchSeesAnObjectWrittenInV1alpha2() throws Exception {
    List<GenericKubernetesResource> seen = new CopyOnWriteArrayList<>();
    try (Watch watch =
        env.cp
            .client()
            .genericKubernetesResources("compute.ironcore.dev/v1alpha1", "Machine")
            .inNamespace(ns)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, GenericKubernetesResource resource) {
                    seen.add(resource);
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                })) {
      env.apply(
              machine(
                  "v1alpha2",
                  "w",
                  "{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: 7}"))
          .orThrow();
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                assertThat(seen).isNotEmpty();
                GenericKubernetesResource r = seen.get(0);
                assertThat(r.getApiVersion()).isEqualTo("compute.ironcore.dev/v1alpha1");
                assertThat(r.getMetadata().getAnnotations().get(ANNOTATION))
                    .contains("\"tolerationSeconds\":7");
              });
    }
  }

  @Test
  void serverSideApplyInBothVersions() {
    String v2 =
        machine(
            "v1alpha2",
            "ssa",
            "{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: 30}");
    env.cp
        .kubectlTool()
        .runWithInput(v2, "apply", "--server-side", "--field-manager=v2-applier", "-f", "-")
        .orThrow();
    String v1 =
        """
        apiVersion: compute.ironcore.dev/v1alpha1
        kind: Machine
        metadata:
          name: ssa
          namespace: %s
        spec:
          power: "On"
        """
            .formatted(ns);
    env.cp
        .kubectlTool()
        .runWithInput(v1, "apply", "--server-side", "--field-manager=v1-applier", "-f", "-")
        .orThrow();
    JsonNode read = get(V2_MACHINES, "ssa");
    assertThat(read.at("/spec/power").asText()).isEqualTo("On");
    assertThat(read.at("/spec/tolerations/0/tolerationSeconds").asInt()).isEqualTo(30);
    assertThat(read.at("/metadata/annotations").has(ANNOTATION)).isFalse();
    // re-applying the v1alpha2 manifest with a new value changes it
    env.cp
        .kubectlTool()
        .runWithInput(
            v2.replace("tolerationSeconds: 30", "tolerationSeconds: 60"),
            "apply",
            "--server-side",
            "--field-manager=v2-applier",
            "-f",
            "-")
        .orThrow();
    assertThat(get(V2_MACHINES, "ssa").at("/spec/tolerations/0/tolerationSeconds").asInt())
        .isEqualTo(60);
  }

  @Test
  void kubectlExplainKnowsBothVersions() {
    KubectlResult v2 =
        env.kubectl(
            "explain",
            "machines.spec.tolerations.tolerationSeconds",
            "--api-version=compute.ironcore.dev/v1alpha2");
    assertThat(v2.stdout()).contains("tolerationSeconds", "integer");
    assertThat(
            env.kubectl(
                    "explain",
                    "machinepools.spec.taints",
                    "--api-version=compute.ironcore.dev/v1alpha2")
                .stdout())
        .contains("timeAdded");
    KubectlResult v1 =
        env.kubectl(
            "explain", "machinepools.spec.taints", "--api-version=compute.ironcore.dev/v1alpha1");
    assertThat(v1.stdout()).contains("effect").doesNotContain("timeAdded");
  }

  /**
   * A v1alpha1 pool of 5,000 NoExecute taints fits v1alpha1 as sent; the {@code timeAdded} the
   * mutating webhook sets would not. The API server converts the patched object back to v1alpha1
   * before any validating webhook, and answered its own 500 ({@code Too long}); now the mutating
   * webhook refuses with the validating rule's message. Nothing stored.
   */
  @Test
  void aV1alpha1PoolThatOnlyTheTimesMakeTooBigIsRefusedByTheMutatingWebhook() {
    String pool = "too-many-times-" + ns;
    StringBuilder taints = new StringBuilder();
    for (int i = 0; i < 5000; i++) {
      taints.append(i == 0 ? "" : ", ").append("{key: k").append(i).append(", effect: NoExecute}");
    }
    KubectlResult denied =
        env.apply(
            """
            apiVersion: compute.ironcore.dev/v1alpha1
            kind: MachinePool
            metadata: {name: %s}
            spec:
              providerID: x
              taints: [%s]
            """
                .formatted(pool, taints),
            "--server-side");
    assertThat(denied.ok()).as(denied.stdout()).isFalse();
    assertThat(denied.stderr())
        .contains("spec.taints: Forbidden: in v1alpha1, which IronCore's clients read")
        .contains("timeAdded")
        .doesNotContain("Too long")
        .doesNotContain("Internal error");
    assertThat(env.kubectl("get", V2_POOLS, pool, "--ignore-not-found", "-o", "name").stdout())
        .isBlank();
  }

  @Test
  void newNoExecuteTaintsGetTimeAddedFromEitherVersionAndKeepIt() {
    String pool = "conv-pool-" + ns;
    env.apply(
            """
            apiVersion: compute.ironcore.dev/v1alpha1
            kind: MachinePool
            metadata: {name: %s}
            spec:
              providerID: x
              taints: [{key: a, effect: NoExecute}, {key: b, effect: NoSchedule}]
            """
                .formatted(pool))
        .orThrow();
    JsonNode v2 = env.get(V2_POOLS, "", pool);
    String timeAdded = v2.at("/spec/taints/0/timeAdded").asText();
    assertThat(timeAdded).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
    assertThat(v2.at("/spec/taints/1").has("timeAdded")).isFalse();
    JsonNode v1 = env.get(V1_POOLS, "", pool);
    assertThat(v1.at("/spec/taints/0").has("timeAdded")).isFalse();
    assertThat(v1.at("/metadata/annotations").get(ANNOTATION).asText()).contains(timeAdded);

    env.kubectl(
        "patch",
        V2_POOLS,
        pool,
        "--type=json",
        "-p",
        "[{\"op\":\"add\",\"path\":\"/spec/taints/-\",\"value\":{\"key\":\"c\",\"effect\":\"NoExecute\"}}]");
    JsonNode later = env.get(V2_POOLS, "", pool);
    assertThat(later.at("/spec/taints/0/timeAdded").asText()).isEqualTo(timeAdded);
    assertThat(later.at("/spec/taints/2/timeAdded").asText()).isNotEmpty();
    env.kubectl("delete", V2_POOLS, pool, "--wait=false");
  }

  /**
   * Fresh eyes (session 40): a manifest that carries the {@code timeAdded} its taint had (as
   * kubectl apply users copy it), applied again after the taint was removed, brought the old time
   * back, and Machines tolerating the taint for 120 s were evicted at once. The taint added back
   * counts from that write, and kubectl says so.
   */
  @Test
  void aTaintAppliedBackWithItsOldTimeAddedCountsFromTheWrite() {
    String pool = "readd-pool-" + ns;
    String old =
        java.time.Instant.now()
            .minusSeconds(600)
            .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
            .toString();
    String manifest =
        """
        apiVersion: compute.ironcore.dev/v1alpha2
        kind: MachinePool
        metadata: {name: %s}
        spec:
          providerID: x
          taints: %s
        """;
    env.apply(manifest.formatted(pool, "[]")).orThrow();
    java.time.Instant before =
        java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    KubectlResult readded =
        env.apply(
            manifest.formatted(
                pool, "[{key: upgrade, effect: NoExecute, timeAdded: \"" + old + "\"}]"));
    readded.orThrow();
    assertThat(readded.stderr())
        .contains(
            "Warning: spec.taints[0] (upgrade:NoExecute) timeAdded "
                + old
                + " lies before this write, so it is set to ");
    java.time.Instant stored =
        java.time.Instant.parse(
            env.get(V2_POOLS, "", pool).at("/spec/taints/0/timeAdded").asText());
    assertThat(stored).isAfterOrEqualTo(before);
    env.kubectl("delete", V2_POOLS, pool, "--wait=false");
  }

  @Test
  void validationDeniesInV1alpha2WithTheSameFieldPaths() {
    KubectlResult denied =
        env.apply(
            machine(
                "v1alpha2",
                "bad",
                "{key: k, operator: Exists, effect: NoSchedule, tolerationSeconds: 5}"));
    assertThat(denied.ok()).isFalse();
    assertThat(denied.stderr())
        .contains("The Machine \"bad\" is invalid")
        .contains("spec.tolerations[0].effect");
    KubectlResult v1 = env.apply(machine("v1alpha1", "bad", "{key: k, operator: Sometimes}"));
    KubectlResult v2 = env.apply(machine("v1alpha2", "bad", "{key: k, operator: Sometimes}"));
    assertThat(v1.ok()).isFalse();
    assertThat(v2.ok()).isFalse();
    assertThat(v1.stderr()).contains("spec.tolerations[0].operator: Unsupported value");
    assertThat(v2.stderr()).contains("spec.tolerations[0].operator: Unsupported value");
  }

  /**
   * A Machine whose v1alpha1 form would carry more than 256 KiB of annotations (3,200 tolerations
   * with seconds): the API server refused the converted object on every v1alpha1 read, so one such
   * Machine broke every v1alpha1 list and watch of the cluster (fresh eyes: the poollet's watch
   * stopped). Refused at admission now; v1alpha1 lists keep working.
   */
  /** 3,200 NoExecute tolerations with seconds: over 256 KiB in the v1alpha1 annotation. */
  private static String manyTimedTolerations() {
    StringBuilder tolerations = new StringBuilder();
    for (int i = 0; i < 3200; i++) {
      tolerations.append(
          "{\"key\":\"k"
              + i
              + "\",\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":60},");
    }
    return "[" + tolerations.substring(0, tolerations.length() - 1) + "]";
  }

  @Test
  void aMachineTooBigForV1alpha1IsRefusedAndV1alpha1ListsKeepWorking() {
    String big =
        "{\"apiVersion\":\"compute.ironcore.dev/v1alpha2\",\"kind\":\"Machine\","
            + "\"metadata\":{\"name\":\"too-big\",\"namespace\":\""
            + ns
            + "\"},\"spec\":{\"machineClassRef\":{\"name\":\"small\"},\"tolerations\":"
            + manyTimedTolerations()
            + "}}";
    KubectlResult denied = env.cp.kubectlTool().runWithInput(big, "create", "-f", "-");
    assertThat(denied.ok()).as(denied.stdout()).isFalse();
    assertThat(denied.stderr())
        .contains("spec.tolerations: Forbidden: in v1alpha1, which IronCore's clients read")
        .contains("more than the 262144 Kubernetes allows");
    env.apply(
            machine(
                "v1alpha2",
                "small-one",
                "{key: k, operator: Exists, tolerationSeconds: 5, effect: NoExecute}"))
        .orThrow();
    assertThat(env.kubectl("get", V1_MACHINES, "-n", ns, "-o", "name").stdout())
        .isEqualTo("machine.compute.ironcore.dev/small-one\n");
  }

  /** A JSON patch in v1alpha1 appending {@code toleration} (JSON) to Machine {@code name}. */
  private KubectlResult addV1alpha1Toleration(String name, String toleration) {
    return env.cp.kubectl(
        "patch",
        V1_MACHINES,
        "-n",
        ns,
        name,
        "--type=json",
        "-p",
        "[{\"op\":\"add\",\"path\":\"/spec/tolerations/-\",\"value\":" + toleration + "}]");
  }

  /**
   * A v1alpha1 write to a Machine being deleted cannot store a value the v1alpha2 schema refuses,
   * on an entry or through the annotation (fresh eyes, session 44: {@code tolerationSeconds: "abc"}
   * was stored, the controller could not decode the Machine and the API server dropped its managed
   * fields); the rest of the tolerations' syntax is still not judged then.
   */
  @Test
  void aDeletingMachineTakesNoV1alpha1ValueTheV1alpha2SchemaRefuses() {
    env.apply(
            machine("v1alpha2", "going", "{key: k, operator: Exists, effect: NoExecute}")
                .replace(
                    "  labels: {app: demo}\n",
                    "  labels: {app: demo}\n  finalizers: [e2e.ironcore.dev/hold]\n"))
        .orThrow();
    env.kubectl("delete", V2_MACHINES, "-n", ns, "going", "--wait=false").orThrow();
    KubectlResult onEntry =
        addV1alpha1Toleration(
            "going",
            "{\"key\":\"x\",\"operator\":\"Exists\",\"effect\":\"NoExecute\","
                + "\"tolerationSeconds\":\"abc\"}");
    assertThat(onEntry.ok()).as(onEntry.stdout()).isFalse();
    assertThat(onEntry.stderr())
        .contains("spec.tolerations[1].tolerationSeconds: Invalid value: \"abc\"")
        .contains("int64");
    KubectlResult inAnnotation =
        env.cp.kubectl(
            "annotate",
            V1_MACHINES,
            "-n",
            ns,
            "going",
            ANNOTATION
                + "={\"tolerations\":[{\"index\":0,\"entry\":{\"key\":\"k\",\"operator\":\"Exists\","
                + "\"effect\":\"NoExecute\",\"tolerationSeconds\":1.5}}]}");
    assertThat(inAnnotation.ok()).as(inAnnotation.stdout()).isFalse();
    assertThat(inAnnotation.stderr()).contains("spec.tolerations[0].tolerationSeconds: Invalid");
    // syntax is not judged while deleting: a key no live Machine may carry is taken
    addV1alpha1Toleration("going", "{\"key\":\"-bad-\",\"operator\":\"Exists\"}").orThrow();
    assertThat(get(V2_MACHINES, "going").at("/spec/tolerations").size()).isEqualTo(2);
    env.kubectl(
            "patch",
            V1_MACHINES,
            "-n",
            ns,
            "going",
            "--type=merge",
            "-p",
            "{\"metadata\":{\"finalizers\":null}}")
        .orThrow();
    await().atMost(Duration.ofSeconds(30)).until(() -> env.isGone(V2_MACHINES, ns, "going"));
  }

  /**
   * The same growth on a Machine being deleted (held by a finalizer, as every bound Machine is by
   * the poollet's while it shuts down): the validating webhook is called for a deleting object's
   * spec change too (fresh eyes: its match condition skipped every update of a deleting object),
   * while a finalizer-only update still never reaches it.
   */
  @Test
  void aDeletingMachineCannotGrowTooBigForV1alpha1() throws Exception {
    env.apply(
            machine("v1alpha2", "held", "{key: k, operator: Exists, effect: NoExecute}")
                .replace(
                    "  labels: {app: demo}\n",
                    "  labels: {app: demo}\n  finalizers: [e2e.ironcore.dev/hold]\n"))
        .orThrow();
    env.kubectl("delete", V2_MACHINES, "-n", ns, "held", "--wait=false");
    java.nio.file.Path patch = java.nio.file.Files.createTempFile("tolerations", ".json");
    try {
      java.nio.file.Files.writeString(
          patch, "{\"spec\":{\"tolerations\":" + manyTimedTolerations() + "}}");
      KubectlResult denied =
          env.cp.kubectl(
              "patch", V2_MACHINES, "-n", ns, "held", "--type=merge", "--patch-file=" + patch);
      assertThat(denied.ok()).as(denied.stdout()).isFalse();
      assertThat(denied.stderr()).contains("spec.tolerations: Forbidden: in v1alpha1");
    } finally {
      java.nio.file.Files.deleteIfExists(patch);
    }
    env.kubectl("get", V1_MACHINES, "-n", ns, "-o", "name");
    env.kubectl(
        "patch",
        V2_MACHINES,
        "-n",
        ns,
        "held",
        "--type=merge",
        "-p",
        "{\"metadata\":{\"finalizers\":null}}");
    await().atMost(Duration.ofSeconds(30)).until(() -> env.isGone(V2_MACHINES, ns, "held"));
  }
}
