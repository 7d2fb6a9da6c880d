package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.hasHook;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.toleratesMaintenance;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

/**
 * Where the API server serves (and stores) compute.ironcore.dev v1alpha2, every request of the
 * controller for MachinePools and Machines is in v1alpha2, so none needs the conversion webhook: in
 * v1alpha1 the eviction's DELETE, the drain's pool reads, taint and condition writes and the pool's
 * DELETE failed or hung while {@code /convert} was unreachable, and the drain stalled with it.
 * Every request the controller's client sends is recorded by a fabric8 interceptor.
 */
class ComputeVersionE2ETest extends InProcessController {
  private final Queue<String> requests = new ConcurrentLinkedQueue<>();

  @Override
  protected KubernetesClient client() {
    Config config;
    try {
      config = Config.fromKubeconfig(Files.readString(world.cp.kubeconfig()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Interceptor recorder =
        new Interceptor() {
          @Override
          public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
            requests.add(request.method() + " " + request.uri().getPath());
          }
        };
    return dev.ironcore.maintenance.api.json.JsonMappers.clientBuilder()
        .withConfig(config)
        .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("record", recorder))
        .build();
  }

  @Test
  void aWholeDrainReadsAndWritesComputeObjectsInV1alpha2Only() {
    String pool = world.poolName("v2-only");
    world.createPool(pool, List.of());
    world.createMachine("vm-1", pool);
    world.createMachine("vm-tolerant", pool, toleratesMaintenance());
    world.createCapiMachine("node-v2", pool, Map.of());
    eventually().until(() -> hasHook(world.capiMachine("node-v2")));

    world.deleteCapiMachine("node-v2");
    eventually().until(() -> world.machine("vm-1").getMetadata().getDeletionTimestamp() != null);
    world.poolletReleases("vm-1");
    eventually().until(() -> !hasHook(world.capiMachine("node-v2")));
    world.capiFinishes("node-v2");
    eventually().until(() -> world.pool(pool) == null && world.capiMachine("node-v2") == null);

    List<String> compute =
        requests.stream().filter(r -> r.contains("/apis/compute.ironcore.dev/")).toList();
    assertThat(compute)
        .as("the controller's compute.ironcore.dev requests")
        .noneMatch(r -> r.contains("/compute.ironcore.dev/v1alpha1/"))
        .anyMatch(r -> r.startsWith("DELETE ") && r.endsWith("/machines/vm-1"))
        .anyMatch(r -> r.startsWith("PATCH ") && r.endsWith("/machinepools/" + pool))
        .anyMatch(r -> r.startsWith("DELETE ") && r.endsWith("/machinepools/" + pool));
  }
}
