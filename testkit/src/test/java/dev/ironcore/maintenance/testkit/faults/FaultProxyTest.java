package dev.ironcore.maintenance.testkit.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ironcore.maintenance.testkit.LocalControlPlane;
import dev.ironcore.maintenance.testkit.SharedControlPlane;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The fault proxy against the real local API server: forwards, cuts watches, injects errors. */
class FaultProxyTest {
  private static LocalControlPlane cp;
  private static FaultProxy proxy;
  private static KubernetesClient viaProxy;
  private static String ns;

  @BeforeAll
  static void start() throws Exception {
    cp = SharedControlPlane.get();
    proxy =
        FaultProxy.start(
            cp.kubeconfig(), Files.createDirectories(Path.of("target", "fault-proxy")));
    viaProxy =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(Files.readString(proxy.kubeconfig())))
            .build();
    ns = "fp-" + UUID.randomUUID().toString().substring(0, 6);
    cp.client()
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .create();
  }

  @AfterAll
  static void stop() {
    viaProxy.close();
    proxy.close();
  }

  private static ConfigMap configMap(String name) {
    return new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().build();
  }

  @Test
  void forwardsAsTheAdminAndAWatchSurvivesCuts() {
    long before = proxy.counters().requests();
    viaProxy.configMaps().inNamespace(ns).resource(configMap("a")).create();
    assertThat(cp.client().configMaps().inNamespace(ns).withName("a").get()).isNotNull();
    assertThat(proxy.counters().requests()).isGreaterThan(before);

    Set<String> seen = ConcurrentHashMap.newKeySet();
    long watchesBefore = proxy.counters().watchesOpened();
    try (var w =
        viaProxy
            .configMaps()
            .inNamespace(ns)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, ConfigMap cm) {
                    seen.add(action + " " + cm.getMetadata().getName());
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                })) {
      await().atMost(Duration.ofSeconds(30)).until(() -> proxy.openWatches() >= 1);
      assertThat(proxy.counters().watchesOpened()).isGreaterThan(watchesBefore);
      long cutsBefore = proxy.counters().watchesCut();
      assertThat(proxy.cutWatches()).isGreaterThanOrEqualTo(1);
      assertThat(proxy.counters().watchesCut()).isGreaterThan(cutsBefore);
      // the client reconnects and keeps receiving events
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> proxy.counters().watchesOpened() >= watchesBefore + 2);
      cp.client().configMaps().inNamespace(ns).resource(configMap("b")).create();
      await().atMost(Duration.ofSeconds(30)).until(() -> seen.contains("ADDED b"));

      // cutAll closes every connection with a request in flight, the watch's included
      await().atMost(Duration.ofSeconds(30)).until(() -> proxy.openWatches() >= 1);
      long connectionsBefore = proxy.counters().connectionsCut();
      assertThat(proxy.cutAll()).isGreaterThanOrEqualTo(1);
      assertThat(proxy.counters().connectionsCut()).isGreaterThan(connectionsBefore);
      cp.client().configMaps().inNamespace(ns).resource(configMap("c")).create();
      await().atMost(Duration.ofSeconds(30)).until(() -> seen.contains("ADDED c"));
    }
  }

  @Test
  void aWatchWithoutEventsStartsAtOnce() throws Exception {
    HttpRequest watch =
        HttpRequest.newBuilder(
                URI.create(proxy.url() + "/api/v1/namespaces/" + ns + "/secrets?watch=true"))
            .build();
    var response = rawClient().sendAsync(watch, HttpResponse.BodyHandlers.ofInputStream());
    try {
      await().atMost(Duration.ofSeconds(20)).until(response::isDone);
      assertThat(response.get().statusCode()).isEqualTo(200);
      await().atMost(Duration.ofSeconds(10)).until(() -> proxy.openWatches() >= 1);
      // and its first body byte (whitespace of the JSON stream), so a client counts it as started
      var first =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> {
                try {
                  return response.get().body().read();
                } catch (Exception e) {
                  return -2;
                }
              });
      await().atMost(Duration.ofSeconds(10)).until(first::isDone);
      assertThat(first.get()).isEqualTo((int) ' ');
    } finally {
      response.thenAccept(r -> closeQuietly(r.body()));
    }
  }

  private static void closeQuietly(java.io.InputStream in) {
    try {
      in.close();
    } catch (java.io.IOException e) {
      // the test is over
    }
  }

  @Test
  void answersKubernetesErrorsForAWhile() throws Exception {
    HttpClient http = rawClient();
    HttpRequest get =
        HttpRequest.newBuilder(URI.create(proxy.url() + "/api/v1/namespaces/" + ns)).build();

    proxy.failWith(429, Duration.ofSeconds(30));
    HttpResponse<String> r = http.send(get, HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(429);
    assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(r.body())
        .contains("\"kind\":\"Status\"", "\"reason\":\"TooManyRequests\"", "\"code\":429");
    assertThat(proxy.counters().tooManyRequests()).isGreaterThanOrEqualTo(1);

    proxy.failWith(500, Duration.ofSeconds(30));
    r = http.send(get, HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(500);
    assertThat(r.body()).contains("\"reason\":\"InternalError\"");
    assertThat(proxy.counters().internalErrors()).isGreaterThanOrEqualTo(1);

    proxy.stopFailing();
    assertThat(proxy.failing()).isFalse();
    r = http.send(get, HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).contains("\"name\":\"" + ns + "\"");

    // a fraction of the requests
    proxy.failWith(500, Duration.ofSeconds(60), 0.5);
    int failed = 0;
    for (int i = 0; i < 40; i++) {
      failed += http.send(get, HttpResponse.BodyHandlers.discarding()).statusCode() == 500 ? 1 : 0;
    }
    proxy.stopFailing();
    assertThat(failed).as("500s of 40 requests at 50%").isBetween(5, 35);

    // a short plan ends by itself
    proxy.failWith(500, Duration.ofMillis(200));
    await().atMost(Duration.ofSeconds(10)).until(() -> !proxy.failing());
    assertThat(http.send(get, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
  }

  /**
   * A plain JDK client that trusts any certificate (the proxy's own CA is not in question here).
   */
  private static HttpClient rawClient() throws Exception {
    SSLContext trustAll = SSLContext.getInstance("TLS");
    trustAll.init(
        null,
        new javax.net.ssl.TrustManager[] {
          new javax.net.ssl.X509TrustManager() {
            @Override
            public void checkClientTrusted(java.security.cert.X509Certificate[] c, String a) {}

            @Override
            public void checkServerTrusted(java.security.cert.X509Certificate[] c, String a) {}

            @Override
            public java.security.cert.X509Certificate[] getAcceptedIssuers() {
              return new java.security.cert.X509Certificate[0];
            }
          }
        },
        null);
    return HttpClient.newBuilder().sslContext(trustAll).build();
  }
}
