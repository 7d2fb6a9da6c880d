package dev.ironcore.maintenance.server.e2e;

import static dev.ironcore.maintenance.server.e2e.WebhookEnvironment.HOLD;
import static dev.ironcore.maintenance.server.e2e.WebhookEnvironment.IRONCORE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Objects nested as deep as the API server stores them (its JSON decoder allows 10,000 levels) go
 * through every webhook: admitted, mutated and validated, never "not valid JSON". 9,990 levels is
 * about the deepest spec kubectl and the API server accept (10,000 levels in all).
 */
class DeepObjectWebhookE2ETest {

  private WebhookEnvironment env;
  private String ns;

  @BeforeEach
  void namespace() {
    env = WebhookEnvironment.get();
    ns = env.newNamespace();
  }

  /** {@code {"a":{"a":...1...}}} with {@code depth} objects. */
  static String nested(int depth) {
    return "{\"a\":".repeat(depth - 1) + "{\"a\":1}" + "}".repeat(depth - 1);
  }

  private String deepMachine(String name, int depth) {
    return """
        {"apiVersion":"compute.ironcore.dev/v1alpha1","kind":"Machine",
         "metadata":{"name":"%s","namespace":"%s","finalizers":["%s"]},
         "spec":{"machineClassRef":{"name":"small"},"machinePoolRef":{"name":"pool-a"},
                 "tolerations":[{"key":"k","operator":"Exists","deep":%s}],
                 "deep":%s}}
        """
        .formatted(name, ns, HOLD, nested(depth), nested(depth));
  }

  /** One field of the stored object (kubectl -o jsonpath: a deep object printed whole is huge). */
  private String field(String jsonPath) {
    return env.kubectl("get", IRONCORE, "-n", ns, "deep", "-o", "jsonpath={" + jsonPath + "}")
        .stdout();
  }

  @ParameterizedTest(name = "spec nested {0} levels")
  @ValueSource(ints = {1_000, 9_990})
  void aDeepMachineIsAdmittedAndMutated(int depth) {
    env.cp.kubectlTool().runWithInput(deepMachine("deep", depth), "create", "-f", "-").orThrow();
    assertThat(field(".metadata.finalizers"))
        .isEqualTo("[\"" + HOLD + "\",\"" + Names.POOLLET_FINALIZER + "\"]");
    // an UPDATE: both reviews (old and new object) are deep; validation compares tolerations
    env.kubectl("label", IRONCORE, "-n", ns, "deep", "touched=yes");
    assertThat(field(".metadata.labels.touched")).isEqualTo("yes");
    // readable in the other version (the object is stored as v1alpha2)
    env.kubectl("get", "machines.v1alpha1.compute.ironcore.dev", "-n", ns, "deep", "-o", "name");
  }

  /**
   * One level too deep for a conversion reply (the API server reads 10,000 levels, the reply holds
   * the object 3 levels down): refused, nothing stored, and lists in both versions keep working
   * (fresh eyes: such a Machine was stored and every v1alpha1 list of Machines failed).
   */
  @org.junit.jupiter.api.Test
  void aMachineTooDeepToConvertIsRefusedAndListsKeepWorking() {
    // v1alpha2, the storage version: the API server calls the webhooks without converting it
    // (a v1alpha1 one this deep fails already at the API server, whose ConversionReview to us
    // would be too deep, as does one nesting objects this deep); the object and spec are 2
    // levels, "deep" adds 9,996 arrays
    refusedAndListsWork(
        "[".repeat(9_996) + "]".repeat(9_996),
        "spec: Forbidden: nested 9998 levels deep (the object being level 1)");
  }

  /**
   * Creates a v1alpha2 Machine whose {@code spec.deep} is {@code deep}: refused with {@code
   * message}, nothing stored, and v1alpha1 lists still work.
   */
  private void refusedAndListsWork(String deep, String message) {
    String machine =
        """
        {"apiVersion":"compute.ironcore.dev/v1alpha2","kind":"Machine",
         "metadata":{"name":"too-deep","namespace":"%s"},
         "spec":{"machineClassRef":{"name":"small"},"deep":%s}}
        """
            .formatted(ns, deep);
    var result = env.cp.kubectlTool().runWithInput(machine, "create", "-f", "-");
    assertThat(result.ok()).as(result.stdout()).isFalse();
    assertThat(result.stderr()).contains(message);
    assertThat(env.kubectl("get", IRONCORE, "-n", ns, "--ignore-not-found", "-o", "name").stdout())
        .isBlank();
    env.kubectl("get", "machines.v1alpha1.compute.ironcore.dev", "-A", "-o", "name");
  }

  /**
   * Nested objects: the tree the validators read is 9,994 levels, but the object's {@code
   * managedFields} (left out of that tree) mirror them about four levels deeper, which the reader
   * measures: refused, nothing stored (fresh eyes: such Machines of 9,993 to 9,995 levels were
   * stored and every v1alpha1 list failed).
   */
  @org.junit.jupiter.api.Test
  void aMachineTooDeepThroughItsManagedFieldsIsRefused() {
    refusedAndListsWork(nested(9_992), "metadata.managedFields: Forbidden: nested ");
  }
}
