package dev.ironcore.maintenance.controller;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * An Event whose create gets no answer (an API server down: nothing listens on its port) is said at
 * WARN once; its repeats while the API server stays down only at DEBUG (an outage of seconds logged
 * every Event 8 times, 60 WARN lines in 7 s).
 */
class EventRecorderOutageLogTest {

  @Test
  void anEventThatKeepsFailingForLackOfAnAnswerIsWarnedOnce() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort();
    }
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    Logger logger = (Logger) LoggerFactory.getLogger(EventRecorder.class);
    Level level = logger.getLevel();
    logger.setLevel(Level.DEBUG);
    logger.addAppender(log);
    try (KubernetesClient down =
        dev.ironcore.maintenance.api.json.JsonMappers.clientBuilder()
            .withConfig(
                new io.fabric8.kubernetes.client.ConfigBuilder()
                    .withMasterUrl("https://127.0.0.1:" + closedPort)
                    .withTrustCerts(true)
                    .withRequestRetryBackoffLimit(0)
                    .build())
            .build()) {
      EventRetries retries = new EventRetries(Duration.ofHours(1)); // none runs in this test
      EventRecorder recorder =
          new EventRecorder(
              Clusters.single(down), Clock.systemUTC(), EventRecorder.DEFAULT_WINDOW, retries);
      var machine =
          new ConfigMapBuilder()
              .withNewMetadata()
              .withNamespace("default")
              .withName("vm-1")
              .withUid("u-1")
              .endMetadata()
              .build();
      for (int attempt = 0; attempt < 3; attempt++) {
        assertThat(recorder.recordOnce(machine, "Normal", "Evicted", "Evicting")).isFalse();
      }
      assertThat(recorder.recordOnce(machine, "Warning", "EvictionFailed", "other")).isFalse();
    } finally {
      logger.detachAppender(log);
      logger.setLevel(level);
    }
    assertThat(
            log.list.stream()
                .filter(e -> e.getFormattedMessage().startsWith("could not record event"))
                .map(e -> e.getLevel() + " " + e.getFormattedMessage().split(" \\(")[0]))
        .containsExactly(
            "WARN could not record event Evicted on default/vm-1",
            "DEBUG could not record event Evicted on default/vm-1",
            "DEBUG could not record event Evicted on default/vm-1",
            "WARN could not record event EvictionFailed on default/vm-1");
  }
}
