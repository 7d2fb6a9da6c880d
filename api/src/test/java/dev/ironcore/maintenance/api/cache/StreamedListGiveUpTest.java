package dev.ironcore.maintenance.api.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachineV1alpha2;
import dev.ironcore.maintenance.api.json.JsonMappers;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.internal.BaseOperation;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A stream whose connection stays open without a byte (a partition: a fault a real API server does
 * not produce, hence a stand-in server on loopback) does not hold the list: after the give-up time
 * that one list is a paged LIST, and streaming is tried again next time.
 */
class StreamedListGiveUpTest {
  private static final String LIST =
      "{\"apiVersion\":\"compute.ironcore.dev/v1alpha2\",\"kind\":\"MachineList\","
          + "\"metadata\":{\"resourceVersion\":\"42\"},\"items\":[{\"apiVersion\":"
          + "\"compute.ironcore.dev/v1alpha2\",\"kind\":\"Machine\",\"metadata\":{\"name\":\"vm-1\","
          + "\"namespace\":\"ns\",\"resourceVersion\":\"41\"},\"spec\":{\"machinePoolRef\":"
          + "{\"name\":\"pool-a\"}}}]}";

  @Test
  @SuppressWarnings("unchecked")
  void aStreamThatNeverAnswersGivesWayToAPagedList() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.createContext(
        "/",
        exchange -> {
          boolean watch = exchange.getRequestURI().getQuery().contains("watch=true");
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          if (watch) {
            exchange.sendResponseHeaders(200, 0); // chunked, then silence
            exchange.getResponseBody().flush();
            try {
              release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            exchange.close();
            return;
          }
          byte[] body = LIST.getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    Class<Machine> cached = (Class<Machine>) CachedMachines.of(MachineV1alpha2.class);
    try (KubernetesClient client =
        JsonMappers.client(
            new ConfigBuilder()
                .withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort())
                .build())) {
      StreamedList<Machine> lister =
          new StreamedList<>(
              (BaseOperation<Machine, KubernetesResourceList<Machine>, ?>)
                  client.resources(cached).inAnyNamespace().withLimit(500L),
              client.getHttpClient(),
              client.getHttpClient(),
              cached,
              Duration.ofSeconds(2),
              WatchHeartbeat.ignored());
      long start = System.nanoTime();
      KubernetesResourceList<Machine> list =
          lister
              .submitList(new ListOptionsBuilder().withLimit(500L).build())
              .get(30, TimeUnit.SECONDS);
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isGreaterThanOrEqualTo(Duration.ofSeconds(2));
      assertThat(list.getItems()).extracting(Machine::boundPoolName).containsExactly("pool-a");
      assertThat(list.getMetadata().getResourceVersion()).isEqualTo("42");
      assertThat(lister.pagedOnly()).as("not a refusal: the next list streams again").isFalse();
    } finally {
      release.countDown();
      server.stop(0);
    }
  }
}
