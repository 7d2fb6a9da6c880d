package dev.ironcore.maintenance.controller.e2e;

import dev.ironcore.maintenance.controller.ControllerApp;
import dev.ironcore.maintenance.controller.ControllerOptions;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base of the end-to-end tests that run the controller in this JVM: a fresh world and controller
 * per test.
 */
abstract class InProcessController {
  protected ControllerWorld world;
  protected ControllerApp controller;

  /** The controller's meters (a Prometheus registry: {@code scrape()} as exported). */
  protected final dev.ironcore.maintenance.controller.metrics.ControllerMetrics metrics =
      dev.ironcore.maintenance.controller.metrics.ControllerMetrics.inMemory();

  /** The controller's meters as {@code /metrics} exports them (Prometheus text). */
  protected final String scrape() {
    return ((io.micrometer.prometheusmetrics.PrometheusMeterRegistry) metrics.registry()).scrape();
  }

  /** The controller's options; by default a 5 s resync. */
  protected ControllerOptions options() {
    return ControllerOptions.defaults().withResyncPeriod(Duration.ofSeconds(5));
  }

  /** Settings beyond {@link #options()}; by default none. */
  protected ControllerApp configure(ControllerApp app) {
    return app;
  }

  /** Runs after the world exists and before the controller starts. */
  protected void prepare() {}

  /** The controller's client; by default a new one of the world's cluster. */
  protected io.fabric8.kubernetes.client.KubernetesClient client() {
    return world.cp.newClient();
  }

  @BeforeEach
  final void startController() throws Exception {
    world = new ControllerWorld();
    prepare();
    controller = configure(new ControllerApp(client(), options(), metrics)).start();
  }

  @AfterEach
  final void stopController() {
    if (controller != null) {
      controller.close();
    }
  }
}
