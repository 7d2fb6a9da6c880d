package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.processStarts;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Taint;
import dev.ironcore.maintenance.api.json.JsonMappers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An object the API server stores but the controller cannot decode (here: {@code spec.tolerations}
 * an object, stored while the CRD's schema briefly allowed it, as after a schema change we do not
 * know) is logged with its key and counted; it never ends a watch, never fails the start-up list,
 * and is never evicted on unknown tolerations.
 */
class UndecodableObjectE2ETest {
  private static final String CRD = "crd/machines.compute.ironcore.dev";

  private ControllerWorld world;
  private ControllerProcess controller;
  private Path log;

  @BeforeEach
  void world() throws Exception {
    world = new ControllerWorld();
    log =
        Files.createDirectories(Path.of("target", "undecodable-tests")).resolve(world.ns + ".log");
  }

  @AfterEach
  void stop() throws Exception {
    if (controller != null) {
      controller.close();
    }
    for (String name : List.of("vm-odd", "vm-odd-2")) {
      world.cp.kubectl(
          "patch",
          "machines.compute.ironcore.dev",
          "-n",
          world.ns,
          name,
          "--type=merge",
          "-p",
          "{\"metadata\":{\"finalizers\":null}}");
    }
  }

  /** JSON pointer of {@code spec.tolerations} in the v1alpha1 schema of the Machine CRD. */
  private String tolerationsSchemaPath() throws Exception {
    JsonNode crd =
        JsonMappers.shared()
            .readTree(world.cp.kubectl("get", CRD, "-o", "json").orThrow().stdout());
    JsonNode versions = crd.at("/spec/versions");
    for (int i = 0; i < versions.size(); i++) {
      if (versions.get(i).path("name").asText().equals("v1alpha1")) {
        return "/spec/versions/"
            + i
            + "/schema/openAPIV3Schema/properties/spec/properties/tolerations";
      }
    }
    throw new IllegalStateException("no v1alpha1 in " + CRD);
  }

  /** Stores a bound Machine whose tolerations are an object, which our Java shape cannot read. */
  private void createUndecodableMachine(String name, String pool) throws Exception {
    String path = tolerationsSchemaPath();
    String original =
        world.cp.kubectl("get", CRD, "-o", "jsonpath={" + jsonPath(path) + "}").orThrow().stdout();
    world
        .cp
        .kubectl(
            "patch",
            CRD,
            "--type=json",
            "-p",
            "[{\"op\":\"replace\",\"path\":\""
                + path
                + "\",\"value\":{\"x-kubernetes-preserve-unknown-fields\":true}}]")
        .orThrow();
    try {
      String json =
          """
          {"apiVersion":"compute.ironcore.dev/v1alpha1","kind":"Machine",
           "metadata":{"name":"%s","namespace":"%s","finalizers":["%s"]},
           "spec":{"machinePoolRef":{"name":"%s"},"tolerations":{"key":"maintenance.ironcore.dev"}}}
          """
              .formatted(name, world.ns, Names.POOLLET_FINALIZER, pool);
      eventually().until(() -> world.cp.kubectlTool().runWithInput(json, "create", "-f", "-").ok());
    } finally {
      world
          .cp
          .kubectl(
              "patch",
              CRD,
              "--type=json",
              "-p",
              "[{\"op\":\"replace\",\"path\":\"" + path + "\",\"value\":" + original + "}]")
          .orThrow();
    }
  }

  private static String jsonPath(String pointer) {
    return pointer.replace('/', '.').replaceAll("\\.(\\d+)", "[$1]");
  }

  private boolean deleting(String machine) {
    return world.machine(machine).getMetadata().getDeletionTimestamp() != null;
  }

  @Test
  void startUpListsItWatchesGoOnAndItIsNeverEvicted() throws Exception {
    String pool = world.poolName("odd");
    world.createPool(pool, List.of(), new Taint("k", null, "NoExecute"));
    createUndecodableMachine("vm-odd", pool);

    controller = ControllerProcess.start(world.cp.kubeconfig(), log, "--resync-period=5s");
    processStarts().until(() -> controller.probe("/readyz") == 200);
    world.createMachine("vm-plain", pool);
    eventually().until(() -> deleting("vm-plain"));

    // an undecodable object arriving by watch does not end the watch
    createUndecodableMachine("vm-odd-2", pool);
    world.createMachine("vm-plain-2", pool);
    eventually().until(() -> deleting("vm-plain-2"));
    // the CRD patches above make the API server close its watches of Machines once (fabric8
    // reconnects from the same resourceVersion), so readiness may flicker; the undecodable object
    // itself must neither fail the watch (a relist after an error) nor stop the informer
    eventually().until(() -> controller.probe("/readyz") == 200);
    String metrics = controller.metrics();
    assertThat(metrics)
        .contains(
            "ironcore_maintenance_informer_relists_total{reason=\"error\",resource=\"machines\"} 0.0")
        .contains("ironcore_maintenance_informer_restarts_total{resource=\"machines\"} 0.0");
    assertThat(deleting("vm-odd")).isFalse();
    assertThat(deleting("vm-odd-2")).isFalse();
    String logText = Files.readString(log);
    assertThat(logText)
        // listed at start (a streamed list) and arriving by watch: the field and what is stored
        .contains(
            "cannot decode Machine.compute.ironcore.dev "
                + world.ns
                + "/vm-odd: spec.tolerations: expected a list, got an object;")
        .contains(
            "cannot decode Machine.compute.ironcore.dev "
                + world.ns
                + "/vm-odd-2: spec.tolerations: expected a list, got an object;");
  }
}
