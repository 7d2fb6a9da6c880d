package dev.ironcore.maintenance.controller.informers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ironcore.maintenance.api.cache.CachedMachines;
import dev.ironcore.maintenance.api.cache.StreamedList;
import dev.ironcore.maintenance.api.compute.LocalRef;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachineSpec;
import dev.ironcore.maintenance.api.compute.MachineV1alpha2;
import dev.ironcore.maintenance.server.testing.CrdsWithConversion;
import dev.ironcore.maintenance.testkit.LocalControlPlane;
import dev.ironcore.maintenance.testkit.SharedControlPlane;
import dev.ironcore.maintenance.testkit.TestCluster;
import dev.ironcore.maintenance.testkit.TestClusters;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * {@link StreamedList} against a real kube-apiserver: the list comes as one stream (more objects
 * than one page holds, in one answer), the informer's watch goes on from the end bookmark, and an
 * API server with the {@code WatchList} feature gate off gets paged LISTs.
 */
class StreamedListTest {
  private static final long PAGE = 2;
  private static final int MACHINES = 5;

  @SuppressWarnings("unchecked")
  private static final Class<Machine> CACHED =
      (Class<Machine>) CachedMachines.of(MachineV1alpha2.class);

  private static StreamedList<Machine> lister(KubernetesClient client, String ns) {
    return StreamedList.lister(client, CACHED, client.resources(CACHED).inNamespace(ns), PAGE);
  }

  /** What the informer's Reflector asks first: a LIST with the page size as limit. */
  private static KubernetesResourceList<Machine> firstList(StreamedList<Machine> lister)
      throws Exception {
    return lister
        .submitList(new ListOptionsBuilder().withLimit(PAGE).build())
        .get(30, TimeUnit.SECONDS);
  }

  private static SharedIndexInformer<Machine> informer(KubernetesClient client, String ns) {
    return StreamedList.informer(client, CACHED, client.resources(CACHED).inNamespace(ns), PAGE, 0);
  }

  private static String namespaceWithMachines(KubernetesClient client) {
    String ns = "stream-" + UUID.randomUUID().toString().substring(0, 6);
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .create();
    IntStream.rangeClosed(1, MACHINES).forEach(i -> create(client, ns, "vm-" + i));
    return ns;
  }

  private static void create(KubernetesClient client, String ns, String name) {
    Machine m = new Machine();
    m.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(ns).build());
    MachineSpec spec = new MachineSpec();
    spec.setMachineClassRef(new LocalRef("x3-small"));
    spec.setMachinePoolRef(new LocalRef("pool-" + name));
    m.setSpec(spec);
    client.resources(Machine.class).resource(m).create();
  }

  @Test
  void listsEveryObjectInOneStreamAndTheInformerWatchesOnFromItsBookmark() throws Exception {
    TestCluster cp = TestClusters.shared();
    CrdsWithConversion.install(cp);
    KubernetesClient client = cp.client();
    String ns = namespaceWithMachines(client);

    StreamedList<Machine> lister = lister(client, ns);
    KubernetesResourceList<Machine> list = firstList(lister);
    assertThat(list.getItems())
        .as("all %d Machines in one answer, though a page holds %d", MACHINES, PAGE)
        .hasSize(MACHINES)
        .allSatisfy(m -> assertThat(m).isInstanceOf(CachedMachines.V1alpha2.class))
        .extracting(Machine::boundPoolName)
        .containsExactlyInAnyOrder("pool-vm-1", "pool-vm-2", "pool-vm-3", "pool-vm-4", "pool-vm-5");
    assertThat(list.getMetadata().getContinue()).isNull();
    assertThat(Long.parseLong(list.getMetadata().getResourceVersion())).isPositive();
    assertThat(lister.pagedOnly()).isFalse();

    SharedIndexInformer<Machine> informer = informer(client, ns);
    try {
      informer.start().toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertThat(informer.getStore().list()).hasSize(MACHINES);
      create(client, ns, "vm-new");
      client.resources(Machine.class).inNamespace(ns).withName("vm-1").delete();
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(informer.getStore().listKeys())
                      .contains(ns + "/vm-new")
                      .doesNotContain(ns + "/vm-1")
                      .hasSize(MACHINES));
    } finally {
      informer.stop();
    }
  }

  @Test
  void anApiServerThatDoesNotStreamListsGetsPages() throws Exception {
    try (LocalControlPlane cp =
        LocalControlPlane.start(
            SharedControlPlane.binDir(),
            Path.of("target", "controlplane", ProcessHandle.current().pid() + "-no-watch-list"),
            List.of("--feature-gates=WatchList=false"))) {
      CrdsWithConversion.install(cp);
      KubernetesClient client = cp.client();
      String ns = namespaceWithMachines(client);

      StreamedList<Machine> lister = lister(client, ns);
      KubernetesResourceList<Machine> page = firstList(lister);
      assertThat(page.getItems()).as("the first page").hasSize((int) PAGE);
      assertThat(page.getMetadata().getContinue()).isNotEmpty();
      assertThat(lister.pagedOnly()).as("refused (422): pages from now on").isTrue();

      SharedIndexInformer<Machine> informer = informer(client, ns);
      try {
        informer.start().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertThat(informer.getStore().list())
            .extracting(m -> m.getMetadata().getName())
            .containsExactlyInAnyOrder("vm-1", "vm-2", "vm-3", "vm-4", "vm-5");
      } finally {
        informer.stop();
      }
    }
  }
}
