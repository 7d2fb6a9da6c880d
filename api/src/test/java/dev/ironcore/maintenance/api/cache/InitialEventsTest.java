package dev.ironcore.maintenance.api.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachineV1alpha2;
import dev.ironcore.maintenance.api.json.JsonMappers;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** The lines of a streaming list (KEP-3157) as kube-apiserver 1.34 writes them. */
class InitialEventsTest {
  private static final KubernetesSerialization JSON = JsonMappers.kubernetesSerialization();

  @SuppressWarnings("unchecked")
  private static InitialEvents<Machine> events() {
    return new InitialEvents<>(JSON, (Class<Machine>) CachedMachines.of(MachineV1alpha2.class));
  }

  private static String added(String name, String pool) {
    return "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"compute.ironcore.dev/v1alpha2\","
        + "\"kind\":\"Machine\",\"metadata\":{\"name\":\""
        + name
        + "\",\"namespace\":\"ns\",\"resourceVersion\":\"17\","
        + "\"annotations\":{\"team\":\"a\"},"
        + "\"managedFields\":[{\"manager\":\"kubectl\"}]},"
        + "\"spec\":{\"machineClassRef\":{\"name\":\"x3-small\"},"
        + "\"machinePoolRef\":{\"name\":\""
        + pool
        + "\"},\"tolerations\":[{\"key\":\"k\",\"operator\":\"Exists\",\"effect\":\"NoExecute\"}]},"
        + "\"status\":{\"state\":\"Running\"}}}";
  }

  private static String bookmark(String resourceVersion, boolean end) {
    return "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Machine\","
        + "\"apiVersion\":\"compute.ironcore.dev/v1alpha2\",\"metadata\":{\"resourceVersion\":\""
        + resourceVersion
        + "\",\"creationTimestamp\":null"
        + (end ? ",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}" : "")
        + "},\"spec\":{},\"status\":{}}}";
  }

  @Test
  void collectsTheAddedObjectsUntilTheEndBookmarkWhoseResourceVersionIsTheLists() {
    InitialEvents<Machine> events = events();
    assertThat(events.accept(added("vm-1", "pool-a"))).isFalse();
    assertThat(events.accept(bookmark("20", false)))
        .as("a bookmark without the annotation")
        .isFalse();
    assertThat(events.accept("")).isFalse();
    assertThat(events.accept(added("vm-2", "pool-b"))).isFalse();
    assertThat(events.resourceVersion()).isNull();

    assertThat(events.accept(bookmark("42", true))).isTrue();

    assertThat(events.resourceVersion()).isEqualTo("42");
    assertThat(events.items())
        .extracting(m -> m.getMetadata().getName(), Machine::boundPoolName)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("vm-1", "pool-a"),
            org.assertj.core.groups.Tuple.tuple("vm-2", "pool-b"));
    Machine first = events.items().get(0);
    assertThat(first).isInstanceOf(CachedMachines.V1alpha2.class);
    assertThat(first.getMetadata().getManagedFields()).isEmpty();
    assertThat(first.getSpec().getTolerations()).hasSize(1);
    assertThat(CacheTrim.machine(first).getMetadata().getAnnotations())
        .as("the cache keeps no annotation")
        .isNull();
  }

  @Test
  void anErrorEventFailsWithTheApiServersStatus() {
    InitialEvents<Machine> events = events();
    events.accept(added("vm-1", "pool-a"));
    String error =
        "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
            + "\"status\":\"Failure\",\"message\":\"too many requests\",\"code\":429}}";
    assertThatThrownBy(() -> events.accept(error))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the API server ended the streaming list")
        .hasMessageContaining("too many requests");
  }

  @Test
  void aChangeBeforeTheEndBookmarkIsRefused() {
    InitialEvents<Machine> events = events();
    String modified = added("vm-1", "pool-a").replace("\"ADDED\"", "\"MODIFIED\"");
    assertThatThrownBy(() -> events.accept(modified))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("MODIFIED event before the end of the streaming list's initial events");
  }

  @Test
  void onlyLastingRefusalsSwitchAnInformerToPages() {
    assertThat(StreamedList.refused(new KubernetesClientException("gate off", 422, null))).isTrue();
    assertThat(
            StreamedList.refused(
                new CompletionException(new KubernetesClientException("x", 400, null))))
        .isTrue();
    assertThat(StreamedList.refused(new KubernetesClientException("x", 501, null))).isTrue();
    assertThat(StreamedList.refused(new KubernetesClientException("busy", 429, null))).isFalse();
    assertThat(StreamedList.refused(new KubernetesClientException("slow", 408, null))).isFalse();
    assertThat(StreamedList.refused(new KubernetesClientException("down", 503, null))).isFalse();
    // what a paged LIST gets too: not a sign that lists are not streamed
    for (int code : new int[] {401, 403, 404, 410}) {
      assertThat(StreamedList.refused(new KubernetesClientException("no", code, null)))
          .as("%d", code)
          .isFalse();
    }
    assertThat(StreamedList.refused(new IOException("connection reset"))).isFalse();
    assertThat(StreamedList.refused(new IllegalStateException("no end bookmark"))).isFalse();
  }
}
