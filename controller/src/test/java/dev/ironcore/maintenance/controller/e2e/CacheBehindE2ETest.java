package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.hasHook;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.json.JsonMappers;
import dev.ironcore.maintenance.controller.drain.DrainReconciler;
import dev.ironcore.maintenance.testkit.faults.SilentTcpProxy;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The MachinePools' watch loses its connection without a reset ({@link SilentTcpProxy#silenceIdle}:
 * idle for 3 s, as by a NAT idle timeout) while the CAPI Machines' watch and the client's HTTP/2
 * connection stay busy: a drain whose pool the cache does not know reads the pool from the API
 * server, finds it, and leaves the pre-drain hook in place; the pass is retried every second until
 * the cache catches up (the informer is replaced after {@code SupervisedInformer.SILENT_WATCH}:
 * {@code InformerRecoveryE2ETest}), and the same "cache was behind" line is logged once at INFO,
 * then at debug (fresh eyes: it was logged every second for minutes). The same holds for our
 * finalizer once CAPI is done: it stays while the cache misses the pool.
 */
class CacheBehindE2ETest extends InProcessController {
  private SilentTcpProxy proxy;
  private KubernetesClient proxied;
  private final ScheduledExecutorService busy = Executors.newSingleThreadScheduledExecutor();

  @Override
  protected void prepare() {
    try {
      proxy = world.proxy();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  protected KubernetesClient client() {
    try {
      Path kubeconfig = world.kubeconfigVia(proxy, Path.of("target", "cache-behind"));
      proxied = JsonMappers.client(Config.fromKubeconfig(Files.readString(kubeconfig)));
      return proxied;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Runnable restore = () -> {};

  @AfterEach
  void stopProxy() throws IOException {
    restore.run();
    busy.shutdownNow();
    proxy.close();
  }

  @Test
  void aDrainOnAPoolTheCacheMissesKeepsItsHookAndLogsTheLagOnceAtInfo() throws Exception {
    ListAppender<ILoggingEvent> log = drainLog();
    String pool = poolTheCacheMisses();
    world.createCapiMachine("node", pool, Map.of());
    eventually().until(() -> hasHook(world.capiMachine("node")));
    world.deleteCapiMachine("node");
    String line = "drain " + world.ns + "/node: cache was behind, pool " + pool + " exists";
    // the pass is retried every second
    eventually().until(() -> lines(log, line, Level.DEBUG) >= 3);
    assertThat(lines(log, line, Level.INFO)).as("logged once at INFO").isEqualTo(1);
    assertThat(hasHook(world.capiMachine("node"))).as("the hook stays").isTrue();
    assertThat(world.pool(pool)).isNotNull();
    assertThat(proxy.silenced()).as("a watch was silenced").isPositive();
  }

  /**
   * Code review (session 51): once the hook is gone and CAPI is done, a pool the cache missed read
   * as "gone": our finalizer went, the CAPI Machine with it, and the pool stayed for good (tainted,
   * {@code Drained}, later {@code Ready=Unknown}). The API server's pool keeps the finalizer until
   * the cache catches up and the pool is deleted.
   */
  @Test
  void aPoolTheCacheMissesKeepsOurFinalizerAfterCapiIsDone() throws Exception {
    ListAppender<ILoggingEvent> log = drainLog();
    String pool = poolTheCacheMisses();
    world.createCapiMachine("node", pool, Map.of());
    eventually()
        .until(
            () ->
                hasHook(world.capiMachine("node"))
                    && world
                        .capiMachine("node")
                        .getMetadata()
                        .getFinalizers()
                        .contains(Names.CLEANUP_FINALIZER));
    world.deleteCapiMachine("node");
    String line = "drain " + world.ns + "/node: cache was behind, pool " + pool + " exists";
    eventually().until(() -> lines(log, line, Level.INFO) == 1);
    // the state a drain that ended leaves (the hook released), then CAPI is done with the node
    world.removeAnnotation(
        world.client.resources(CapiMachine.class).inNamespace(world.ns).withName("node"),
        Names.PRE_DRAIN_HOOK_ANNOTATION);
    world.capiFinishes("node");
    // only the passes after CAPI is done: the hook's passes logged the same line before
    int from = log.list.size();
    eventually()
        .until(
            () ->
                List.copyOf(log.list).subList(from, log.list.size()).stream()
                        .filter(e -> e.getFormattedMessage().equals(line))
                        .count()
                    >= 3);
    assertThat(controller.cache().pool(pool)).as("the cache still misses the pool").isNull();
    CapiMachine node = world.capiMachine("node");
    assertThat(node).as("our finalizer keeps the CAPI Machine").isNotNull();
    assertThat(node.getMetadata().getFinalizers()).containsExactly(Names.CLEANUP_FINALIZER);
    assertThat(world.pool(pool)).isNotNull();
  }

  /**
   * Keeps the CAPI Machines' watch and the client's HTTP/2 connection busy, silences every idle
   * connection (the MachinePools' watch among them) and creates pools until one is missing from the
   * cache.
   *
   * @return the name of a pool the API server has and the cache does not
   */
  private String poolTheCacheMisses() throws InterruptedException {
    world.createCapiMachine("busy", world.poolName("none"), Map.of());
    eventually().until(() -> controller.isReady() && hasHook(world.capiMachine("busy")));
    int[] tick = {0};
    busy.scheduleWithFixedDelay(
        () -> {
          // CAPI Machine events keep that watch's connection busy; a read keeps the HTTP/2 one
          world
              .client
              .resources(CapiMachine.class)
              .inNamespace(world.ns)
              .withName("busy")
              .patch(
                  PatchContext.of(PatchType.JSON_MERGE),
                  "{\"metadata\":{\"labels\":{\"tick\":\"" + tick[0]++ + "\"}}}");
          proxied.namespaces().withName(world.ns).get();
        },
        0,
        500,
        TimeUnit.MILLISECONDS);
    proxy.silenceIdle(Duration.ofSeconds(3));
    for (int attempt = 0; ; attempt++) {
      assertThat(attempt).as("the MachinePools' watch was never silenced").isLessThan(5);
      Thread.sleep(4000); // the MachinePools' watch is idle: its next bytes are dropped
      String candidate = world.poolName("behind-" + attempt);
      world.createPool(candidate, List.of());
      Thread.sleep(2000);
      // a bookmark within the last 3 s kept that connection alive: try again
      if (controller.cache().pool(candidate) == null) {
        return candidate;
      }
    }
  }

  /** DrainReconciler's log, from DEBUG on, until the test ends. */
  private ListAppender<ILoggingEvent> drainLog() {
    Logger logger = (Logger) LoggerFactory.getLogger(DrainReconciler.class);
    Level level = logger.getLevel();
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    logger.addAppender(log);
    logger.setLevel(Level.DEBUG);
    restore =
        () -> {
          logger.detachAppender(log);
          logger.setLevel(level);
        };
    return log;
  }

  private static long lines(ListAppender<ILoggingEvent> log, String line, Level level) {
    return List.copyOf(log.list).stream()
        .filter(e -> e.getLevel() == level && e.getFormattedMessage().equals(line))
        .count();
  }
}
