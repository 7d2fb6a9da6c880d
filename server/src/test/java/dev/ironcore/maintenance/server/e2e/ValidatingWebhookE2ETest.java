package dev.ironcore.maintenance.server.e2e;

import static dev.ironcore.maintenance.server.e2e.WebhookEnvironment.IRONCORE;
import static dev.ironcore.maintenance.server.e2e.WebhookEnvironment.POOLS;
import static dev.ironcore.maintenance.server.e2e.WebhookEnvironment.VALIDATING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.testkit.KubectlResult;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The validating webhooks through a real kube-apiserver, driven with real kubectl. */
class ValidatingWebhookE2ETest {

  private WebhookEnvironment env;
  private String ns;

  @BeforeEach
  void namespace() {
    env = WebhookEnvironment.get();
    ns = env.newNamespace();
  }

  private String machine(String name, String pool) {
    return """
                apiVersion: compute.ironcore.dev/v1alpha1
                kind: Machine
                metadata:
                  name: %s
                  namespace: %s
                spec:
                  machineClassRef:
                    name: small
                %s"""
        .formatted(name, ns, pool == null ? "" : "  machinePoolRef:\n    name: " + pool + "\n");
  }

  @Test
  void changingMachinePoolRefIsDeniedWithAMessageKubectlPrints() {
    env.apply(machine("m", "pool-a")).orThrow();

    KubectlResult changed =
        env.cp.kubectl(
            "patch",
            IRONCORE,
            "-n",
            ns,
            "m",
            "--type",
            "merge",
            "-p",
            "{\"spec\":{\"machinePoolRef\":{\"name\":\"pool-b\"}}}");
    assertThat(changed.ok()).isFalse();
    assertThat(changed.stderr())
        .contains(
            "The Machine \"m\" is invalid",
            "spec.machinePoolRef.name: Forbidden",
            "\"pool-a\"",
            "\"pool-b\"");

    KubectlResult applied = env.apply(machine("m", "pool-b"));
    assertThat(applied.ok()).isFalse();
    assertThat(applied.stderr()).contains("spec.machinePoolRef.name: Forbidden");

    KubectlResult cleared =
        env.cp.kubectl(
            "patch",
            IRONCORE,
            "-n",
            ns,
            "m",
            "--type",
            "merge",
            "-p",
            "{\"spec\":{\"machinePoolRef\":null}}");
    assertThat(cleared.ok()).isFalse();
    assertThat(cleared.stderr())
        .contains("spec.machinePoolRef.name: Forbidden", "cannot be cleared");

    assertThat(env.get(IRONCORE, ns, "m").at("/spec/machinePoolRef/name").asText())
        .isEqualTo("pool-a");
  }

  /**
   * The tester's case: a bound Machine held by a user finalizer is deleted; rebinding it must be
   * denied as for a live Machine (the controller would see its pool as drained), yet dropping the
   * finalizers must work.
   */
  @Test
  void aDeletingMachineKeepsItsBindingAndCanDropItsFinalizers() {
    env.apply(
            machine("r-hold", "pool-r")
                .replace(
                    "  namespace: " + ns + "\n",
                    "  namespace: " + ns + "\n  finalizers: [e2e.ironcore.dev/hold]\n"))
        .orThrow();
    env.kubectl("delete", IRONCORE, "-n", ns, "r-hold", "--wait=false");
    assertThat(env.get(IRONCORE, ns, "r-hold").at("/metadata/deletionTimestamp").isMissingNode())
        .isFalse();

    KubectlResult changed =
        env.cp.kubectl(
            "patch",
            IRONCORE,
            "-n",
            ns,
            "r-hold",
            "--type=merge",
            "-p",
            "{\"spec\":{\"machinePoolRef\":{\"name\":\"pool-y\"}}}");
    assertThat(changed.ok()).isFalse();
    assertThat(changed.stderr())
        .contains(
            "The Machine \"r-hold\" is invalid",
            "spec.machinePoolRef.name: Forbidden",
            "\"pool-r\"",
            "\"pool-y\"");
    KubectlResult clearedWithFinalizers =
        env.cp.kubectl(
            "patch",
            IRONCORE,
            "-n",
            ns,
            "r-hold",
            "--type=merge",
            "-p",
            "{\"metadata\":{\"finalizers\":null},\"spec\":{\"machinePoolRef\":null}}");
    assertThat(clearedWithFinalizers.ok()).isFalse();
    assertThat(clearedWithFinalizers.stderr())
        .contains("spec.machinePoolRef.name: Forbidden", "cannot be cleared");
    JsonNode kept = env.get(IRONCORE, ns, "r-hold");
    assertThat(kept.at("/spec/machinePoolRef/name").asText()).isEqualTo("pool-r");
    assertThat(kept.at("/metadata/finalizers")).isNotEmpty();

    env.kubectl("label", IRONCORE, "-n", ns, "r-hold", "touched=yes");
    env.kubectl(
        "patch",
        IRONCORE,
        "-n",
        ns,
        "r-hold",
        "--type=merge",
        "-p",
        "{\"metadata\":{\"finalizers\":null}}");
    await().atMost(Duration.ofSeconds(30)).until(() -> env.isGone(IRONCORE, ns, "r-hold"));
  }

  @Test
  void bindingToANameNoPoolCanHaveIsDeniedAndNothingIsStored() {
    KubectlResult r = env.apply(machine("bad-ref", "Pool_A"));
    assertThat(r.ok()).isFalse();
    assertThat(r.stderr())
        .contains("spec.machinePoolRef.name")
        .contains("Invalid value")
        .contains("not a valid MachinePool name");
    assertThat(env.isGone(IRONCORE, ns, "bad-ref")).isTrue();
  }

  @Test
  void bindingAnUnboundMachineAndOtherUpdatesAreAllowed() {
    env.apply(machine("u", null)).orThrow();
    env.apply(machine("u", "pool-a")).orThrow();
    env.kubectl("label", IRONCORE, "-n", ns, "u", "x=y");
    assertThat(env.get(IRONCORE, ns, "u").at("/spec/machinePoolRef/name").asText())
        .isEqualTo("pool-a");
  }

  @Test
  void machinePoolsPassTheirValidatingWebhook() {
    String pool = ns + "-pool";
    env.apply(
            """
                apiVersion: compute.ironcore.dev/v1alpha1
                kind: MachinePool
                metadata:
                  name: %s
                spec:
                  providerID: local://%s
                """
                .formatted(pool, pool))
        .orThrow();
    env.kubectl("label", "machinepools.compute.ironcore.dev", pool, "x=y");
    env.kubectl("delete", "machinepools.compute.ironcore.dev", pool);
  }

  private static final Pattern SHAPE =
      Pattern.compile(
          "\\* \\S+: (Required value|Invalid value|Unsupported value|Duplicate value|Forbidden)");
  private static final String BAD_TAINTS =
      """
            - key: "Bad Key!"
              effect: NoSchedule
            - key: k
              value: "-x"
              effect: Later
            - key: dup
              effect: NoExecute
            - key: dup
              value: other
              effect: NoExecute
            - key: noeffect
              effect: ""
            """;

  private static String pool(String name, String taints) {
    return """
                apiVersion: compute.ironcore.dev/v1alpha1
                kind: MachinePool
                metadata:
                  name: %s
                spec:
                  providerID: local://%s
                  taints:
                %s"""
        .formatted(name, name, taints.indent(4));
  }

  /** The {@code * <field>: <error type>} part of each error line kubectl prints. */
  private static List<String> errorShapes(String stderr) {
    return stderr
        .lines()
        .map(SHAPE::matcher)
        .filter(Matcher::lookingAt)
        .map(m -> m.group())
        .toList();
  }

  @Test
  void invalidTaintsAreAllReportedAtOnceLikeBuiltInValidation() {
    String name = ns + "-bad";
    KubectlResult r = env.apply(pool(name, BAD_TAINTS));
    assertThat(r.ok()).isFalse();
    assertThat(r.stderr())
        .contains(
            "The MachinePool \"" + name + "\" is invalid: \n",
            "\n* spec.taints[0].key: Invalid value: \"Bad Key!\": name part must consist of alphanumeric characters",
            "\n* spec.taints[1].value: Invalid value: \"-x\": a label value must be empty or consist of",
            "\n* spec.taints[1].effect: Unsupported value: \"Later\": supported values: \"NoSchedule\", \"NoExecute\"\n",
            "\n* spec.taints[3]: Duplicate value: {\"key\":\"dup\",\"effect\":\"NoExecute\"}: taints must be unique",
            "\n* spec.taints[4].effect: Required value\n");
    assertThat(errorShapes(r.stderr())).hasSize(5);
    assertThat(env.isGone(POOLS, "", name)).isTrue();

    // the same taints on a core Node: Kubernetes' own validation prints the same kinds at the same
    // fields (it names them metadata.taints[i], a long-standing quirk of its node validation)
    KubectlResult node =
        env.apply(
            """
                apiVersion: v1
                kind: Node
                metadata:
                  name: %s-node
                spec:
                  taints:
                %s"""
                .formatted(ns, BAD_TAINTS.indent(4)));
    assertThat(node.ok()).isFalse();
    String nodeErrors = node.stderr().replace("* metadata.taints[", "* spec.taints[");
    assertThat(errorShapes(r.stderr())).isEqualTo(errorShapes(nodeErrors));
  }

  @Test
  void invalidTolerationsAreAllReportedAtOnceLikeBuiltInValidation() {
    KubectlResult r =
        env.apply(
            machine("bad", "pool-a")
                + """
                  tolerations:
                    - key: "Bad Key!"
                      operator: Exists
                    - operator: Equal
                      value: v
                    - key: k
                      operator: Exists
                      value: v
                    - key: k
                      operator: In
                    - key: k
                      effect: Later
                    - key: k
                      effect: NoSchedule
                      tolerationSeconds: 30
                """);
    assertThat(r.ok()).isFalse();
    assertThat(r.stderr())
        .contains(
            "The Machine \"bad\" is invalid: \n",
            "\n* spec.tolerations[0].key: Invalid value: \"Bad Key!\": name part must consist",
            "\n* spec.tolerations[1].operator: Invalid value: \"Equal\": must be Exists when key is empty",
            "\n* spec.tolerations[2].value: Invalid value: \"v\": must be empty when operator is Exists\n",
            "\n* spec.tolerations[3].operator: Unsupported value: \"In\": supported values: \"Equal\", \"Exists\"\n",
            "\n* spec.tolerations[4].effect: Unsupported value: \"Later\": supported values: \"NoSchedule\", \"NoExecute\"\n",
            "\n* spec.tolerations[5].effect: Invalid value: \"NoSchedule\": must be NoExecute when tolerationSeconds is set");
    assertThat(errorShapes(r.stderr())).hasSize(6);
    assertThat(env.isGone(IRONCORE, ns, "bad")).isTrue();
  }

  @Test
  void validTaintsAndTolerationsAreAcceptedAndAnUpdateIsValidatedToo() {
    String name = ns + "-good";
    env.apply(
            pool(
                name,
                """
                - key: maintenance.ironcore.dev
                  effect: NoSchedule
                - key: maintenance.ironcore.dev
                  effect: NoExecute
                - key: example.com/zone
                  value: a_1.b
                  effect: NoSchedule
                """))
        .orThrow();
    env.apply(
            machine("good", name)
                + """
                  tolerations:
                    - key: maintenance.ironcore.dev
                      operator: Exists
                      effect: NoExecute
                      tolerationSeconds: 30
                    - key: example.com/zone
                      value: a_1.b
                    - operator: Exists
                """)
        .orThrow();
    try {
      KubectlResult update =
          env.cp.kubectl(
              "patch",
              POOLS,
              name,
              "--type",
              "json",
              "-p",
              "[{\"op\":\"add\",\"path\":\"/spec/taints/-\",\"value\":{\"key\":\"k\",\"effect\":\"Sometimes\"}}]");
      assertThat(update.ok()).isFalse();
      assertThat(update.stderr())
          .contains(
              "The MachinePool \""
                  + name
                  + "\" is invalid: spec.taints[3].effect:"
                  + " Unsupported value: \"Sometimes\"");
      assertThat(env.get(POOLS, "", name).at("/spec/taints")).hasSize(3);
    } finally {
      env.kubectl("delete", POOLS, name);
    }
  }

  /**
   * The tester's pool: stored with invalid taints while the validating webhooks were absent
   * (IronCore validates none of this). Later updates are validated by entry value: entries the pool
   * already had pass wherever they move, new and changed entries are checked.
   */
  @Test
  void anUpdateOfAPoolWithLegacyInvalidTaintsIsCheckedByEntryNotByIndex() {
    String name = ns + "-legacy";
    String legacy =
        pool(
            name,
            """
                - key: bad key
                  effect: NoSchedule
                - key: k
                  effect: Weird
                """);
    createWithoutValidatingWebhooks(legacy);
    try {
      KubectlResult removed =
          patchTaints(name, "[{\"op\":\"remove\",\"path\":\"/spec/taints/0\"}]");
      assertThat(removed.ok()).as(removed.stderr()).isTrue();
      KubectlResult inserted =
          patchTaints(
              name,
              "[{\"op\":\"add\",\"path\":\"/spec/taints/0\",\"value\":{\"key\":\"ok\",\"effect\":\"NoSchedule\"}}]");
      assertThat(inserted.ok()).as(inserted.stderr()).isTrue();
      assertThat(env.get(POOLS, "", name).at("/spec/taints/1/effect").asText()).isEqualTo("Weird");

      KubectlResult changed =
          patchTaints(
              name,
              "[{\"op\":\"replace\",\"path\":\"/spec/taints/1/effect\",\"value\":\"Weirder\"}]");
      assertThat(changed.ok()).isFalse();
      assertThat(changed.stderr())
          .contains(
              "The MachinePool \""
                  + name
                  + "\" is invalid: spec.taints[1].effect:"
                  + " Unsupported value: \"Weirder\"");
      KubectlResult added =
          patchTaints(
              name,
              "[{\"op\":\"add\",\"path\":\"/spec/taints/0\",\"value\":{\"key\":\"x/\",\"effect\":\"NoSchedule\"}}]");
      assertThat(added.ok()).isFalse();
      assertThat(added.stderr())
          .contains("is invalid: spec.taints[0].key: Invalid value: \"x/\"")
          .doesNotContain("Weird");
      KubectlResult copied =
          patchTaints(
              name,
              "[{\"op\":\"add\",\"path\":\"/spec/taints/-\",\"value\":{\"key\":\"ok\",\"effect\":\"NoSchedule\"}}]");
      assertThat(copied.ok()).isFalse();
      assertThat(copied.stderr()).contains("is invalid: spec.taints[2]: Duplicate value");
      env.kubectl("label", POOLS, name, "touched=yes");
    } finally {
      env.kubectl("delete", POOLS, name, "--wait=false");
    }
  }

  /**
   * v1alpha1 keeps a taint's unknown members, so a v1alpha1 write could store a {@code timeAdded}
   * that is no date-time, after which the API server refused every v1alpha2 write of the pool's
   * taints (the controller's maintenance taint included): denied now, and one stored before is
   * mended by the next v1alpha2 write.
   */
  @Test
  void aTimeAddedThatIsNoDateTimeIsDeniedInV1alpha1AndMendedWhereStored() {
    String name = ns + "-time";
    String bad =
        pool(
            name,
            """
                - key: a
                  effect: NoExecute
                  timeAdded: yesterday
                """);
    KubectlResult denied = env.apply(bad);
    assertThat(denied.ok()).isFalse();
    assertThat(denied.stderr())
        .contains(
            "spec.taints[0].timeAdded: Invalid value: \"yesterday\": must be an RFC 3339"
                + " date-time");
    KubectlResult annotated =
        env.apply(
            pool(name, "- key: a\n  effect: NoExecute\n")
                .replace(
                    "  name: " + name + "\n",
                    "  name: "
                        + name
                        + "\n  annotations:\n    maintenance.ironcore.dev/v1alpha2-fields:"
                        + " '{\"taints\":[{\"index\":0,\"entry\":{\"key\":\"a\",\"effect\":\"NoExecute\",\"timeAdded\":\"yesterday\"}}]}'\n"));
    assertThat(annotated.ok()).as("the annotation is validated as the field it becomes").isFalse();
    assertThat(annotated.stderr()).contains("spec.taints[0].timeAdded: Invalid value");

    createWithoutValidatingWebhooks(bad);
    try {
      assertThat(env.get(POOLS, "", name).at("/spec/taints/0/timeAdded").asText())
          .isEqualTo("yesterday");
      KubectlResult added =
          env.cp.kubectl(
              "patch",
              ConversionE2ETest.V2_POOLS,
              name,
              "--type=json",
              "-p",
              "[{\"op\":\"add\",\"path\":\"/spec/taints/-\",\"value\":{\"key\":\"b\",\"effect\":\"NoExecute\"}}]");
      assertThat(added.ok()).as(added.stderr()).isTrue();
      JsonNode taints = env.get(ConversionE2ETest.V2_POOLS, "", name).at("/spec/taints");
      assertThat(java.time.OffsetDateTime.parse(taints.at("/0/timeAdded").asText()))
          .as("mended to the time of the write")
          .isNotNull();
      assertThat(taints.at("/1/key").asText()).isEqualTo("b");
    } finally {
      env.kubectl("delete", POOLS, name, "--wait=false");
    }
  }

  /**
   * A webhook configuration that sends MachinePools to the Machine path (a misconfiguration, our
   * own configuration copied with the wrong rules; only pools labelled for this test): the API
   * server fails the write with a message naming the path and both kinds, instead of the path
   * judging a MachinePool by Machine rules and allowing it.
   */
  @Test
  void aMachinePoolSentToTheMachinePathIsRefusedNamingBothKinds() {
    JsonNode installed =
        WebhookEnvironment.json(
            env.kubectl("get", VALIDATING, "ironcore-maintenance", "-o", "json").stdout());
    ObjectNode hook = null;
    for (JsonNode h : installed.path("webhooks")) {
      if (h.at("/clientConfig/service/path")
          .asText(h.at("/clientConfig/url").asText())
          .endsWith("/validate/machine")) {
        hook = h.deepCopy();
      }
    }
    assertThat(hook).as("the Machine webhook in %s", installed).isNotNull();
    hook.put("name", "misrouted.e2e.ironcore.dev");
    hook.remove("matchConditions");
    hook.remove("namespaceSelector");
    hook.putObject("objectSelector")
        .putObject("matchLabels")
        .put("e2e.ironcore.dev/misrouted", "yes");
    ObjectNode rule = hook.putArray("rules").addObject();
    rule.putArray("apiGroups").add("compute.ironcore.dev");
    rule.putArray("apiVersions").add("*");
    rule.putArray("operations").add("CREATE");
    rule.putArray("resources").add("machinepools");
    rule.put("scope", "*");
    ObjectNode config = WebhookEnvironment.MAPPER.createObjectNode();
    config.put("apiVersion", "admissionregistration.k8s.io/v1");
    config.put("kind", "ValidatingWebhookConfiguration");
    config.putObject("metadata").put("name", "e2e-misrouted");
    config.putArray("webhooks").add(hook);
    String pool = "misrouted-" + ns;
    String yaml =
        """
            apiVersion: compute.ironcore.dev/v1alpha2
            kind: MachinePool
            metadata:
              name: %s
              labels:
                e2e.ironcore.dev/misrouted: "yes"
            """
            .formatted(pool);
    env.cp.kubectlTool().runWithInput(config.toString(), "create", "-f", "-").orThrow();
    try {
      KubectlResult[] refused = new KubectlResult[1];
      await("the misrouted webhook called")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(250))
          .until(
              () -> {
                refused[0] = env.apply(yaml, "--dry-run=server");
                return !refused[0].ok();
              });
      assertThat(refused[0].stderr())
          .contains(
              "admission webhook \"misrouted.e2e.ironcore.dev\" denied the request:"
                  + " /validate/machine judges Machine.compute.ironcore.dev only, got"
                  + " MachinePool.compute.ironcore.dev: the webhook configuration's rules send this"
                  + " path a resource it does not judge");
    } finally {
      env.kubectl("delete", VALIDATING, "e2e-misrouted");
    }
  }

  private KubectlResult patchTaints(String pool, String jsonPatch) {
    return env.cp.kubectl("patch", POOLS, pool, "--type=json", "-p", jsonPatch);
  }

  /**
   * Creates {@code yaml} (which our webhooks would deny) with our validating webhook configuration
   * deleted for the moment, and restores it before returning, waiting until the API server calls it
   * again.
   */
  private void createWithoutValidatingWebhooks(String yaml) {
    JsonNode installed =
        WebhookEnvironment.json(
            env.kubectl("get", VALIDATING, "ironcore-maintenance", "-o", "json").stdout());
    ObjectNode copy = installed.deepCopy();
    ObjectNode metadata =
        WebhookEnvironment.MAPPER.createObjectNode().put("name", "ironcore-maintenance");
    copy.set("metadata", metadata);
    try {
      env.kubectl("delete", VALIDATING, "ironcore-maintenance");
      await("validating webhooks gone")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(250))
          .until(() -> env.apply(yaml).ok());
    } finally {
      if (env.isGone(VALIDATING, "", "ironcore-maintenance")) {
        env.cp.kubectlTool().runWithInput(copy.toString(), "create", "-f", "-").orThrow();
      }
    }
    await("validating webhooks back")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              KubectlResult r =
                  env.apply(yaml.replace("name: ", "name: probe-"), "--dry-run=server");
              return !r.ok() && r.stderr().contains("is invalid");
            });
  }
}
