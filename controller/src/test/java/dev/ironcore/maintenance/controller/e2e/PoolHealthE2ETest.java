package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Condition;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.ControllerOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The health loop with the grace period shrunk to 1 s; the test plays the machinepoollet renewing
 * its Lease.
 */
class PoolHealthE2ETest extends InProcessController {
  private static final Duration GRACE = Duration.ofSeconds(1);
  private final ScheduledExecutorService poollet = Executors.newSingleThreadScheduledExecutor();

  @Override
  protected ControllerOptions options() {
    return ControllerOptions.defaults().withGracePeriod(GRACE);
  }

  @Override
  protected void prepare() {
    PoolAgent.createLeaseNamespace(world);
  }

  @AfterEach
  void stopPoollet() {
    poollet.shutdownNow();
  }

  private void markReady(String pool) {
    PoolAgent.markReady(world, pool);
  }

  private void renewLease(String pool) {
    PoolAgent.renewLease(world, pool);
  }

  /** The {@code PoolUnknown} Events on {@code pool}. */
  private java.util.stream.Stream<io.fabric8.kubernetes.api.model.Event> poolUnknownEvents(
      String pool) {
    return world.client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> pool.equals(e.getInvolvedObject().getName()))
        .filter(e -> "PoolUnknown".equals(e.getReason()));
  }

  private static Condition ready(MachinePool p) {
    return PoolAgent.ready(p);
  }

  @Test
  void aPoolWhoseLeaseStopsMovingIsMarkedUnknownOnce() throws Exception {
    String pool = world.poolName("healthy");
    world.createPool(pool, List.of());
    markReady(pool);
    renewLease(pool);
    var renewing =
        poollet.scheduleAtFixedRate(() -> renewLease(pool), 200, 200, TimeUnit.MILLISECONDS);

    // while the Lease moves, the pool stays Ready=True for several grace periods
    eventually()
        .during(Duration.ofSeconds(4))
        .atMost(Duration.ofSeconds(6))
        .until(() -> "True".equals(ready(world.pool(pool)).getStatus()));

    renewing.cancel(false);
    eventually().until(() -> "Unknown".equals(ready(world.pool(pool)).getStatus()));
    Condition unknown = ready(world.pool(pool));
    assertThat(unknown.getReason()).isEqualTo("MachinePoolStatusUnknown");
    assertThat(unknown.getMessage())
        .isEqualTo("machinepoollet stopped posting machine pool status.");
    assertThat(world.pool(pool).getStatus().getState())
        .as("other status fields kept")
        .isEqualTo("Ready");

    String rv = world.pool(pool).getMetadata().getResourceVersion();
    eventually()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(() -> rv.equals(world.pool(pool).getMetadata().getResourceVersion()));

    // the Warning Event follows the condition (written by the recorder's thread once no other
    // pool has gone Unknown for 1 s, EventHold.MAX_HOLD at most), once, with the condition's time
    Instant transition = Instant.parse(unknown.getLastTransitionTime());
    eventually()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(poolUnknownEvents(pool))
                    .singleElement()
                    .satisfies(
                        e -> {
                          assertThat(e.getType()).isEqualTo("Warning");
                          assertThat(e.getCount()).isOne();
                          assertThat(e.getMessage())
                              .contains("Ready=Unknown")
                              .contains(
                                  "Lease "
                                      + Names.LEASE_NAMESPACE
                                      + "/"
                                      + pool
                                      + " last renewed at ");
                          assertThat(
                                  Duration.between(transition, Instant.parse(e.getFirstTimestamp()))
                                      .abs())
                              .isLessThanOrEqualTo(Duration.ofSeconds(1));
                        }));
  }

  @Test
  void aPoolThatNeverReportedIsMarkedUnknownAfterTheGracePeriod() {
    String pool = world.poolName("silent");
    world.createPool(pool, List.of());
    eventually().until(() -> ready(world.pool(pool)) != null);
    assertThat(ready(world.pool(pool)).getStatus()).isEqualTo("Unknown");
    assertThat(ready(world.pool(pool)).getLastTransitionTime()).isNotNull();
    // stopped right away, while its PoolUnknown Event is likely still held (1 s): a clean stop
    // writes it before the controller is gone
    controller.close();
    assertThat(poolUnknownEvents(pool))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.getMessage())
                    .startsWith("no Lease renewal or Ready change within the grace period (1 s); ")
                    .contains(
                        "Lease "
                            + Names.LEASE_NAMESPACE
                            + "/"
                            + pool
                            + " does not exist (deleted, or never created)"));
  }

  /**
   * An agent alive but renewing less often than the grace period (here every 2.5 s against 1 s):
   * its pool goes Unknown between renewals, and the PoolUnknown Event says the agent renewed every
   * 2.5 s or more (fresh eyes: a short grace period made healthy pools flap with no hint why; a
   * first hint from the Lease's leaseDurationSeconds was wrong, as agents renew well within it);
   * the flaps count on that one Event instead of one Event each.
   */
  @Test
  void theUnknownEventNamesAnAgentThatRenewsLessOftenThanTheGracePeriod() {
    String pool = world.poolName("slow-agent");
    world.createPool(pool, List.of());
    markReady(pool);
    renewLease(pool);
    // as a poollet does: each heartbeat renews the Lease and posts Ready=True again
    var renewing =
        poollet.scheduleAtFixedRate(
            () -> {
              try {
                renewLease(pool);
                markReady(pool);
              } catch (RuntimeException conflict) {
                // the controller wrote the pool meanwhile: the next heartbeat posts it
              }
            },
            2500,
            2500,
            TimeUnit.MILLISECONDS);
    try {
      // every flap with the hint has the same message: counted on one Event, not one Event each
      eventually()
          .atMost(Duration.ofSeconds(40))
          .untilAsserted(
              () ->
                  assertThat(
                          poolUnknownEvents(pool)
                              .filter(e -> e.getMessage().contains("renew interval"))
                              .toList())
                      .singleElement()
                      .satisfies(
                          e -> {
                            assertThat(e.getMessage())
                                .contains(
                                    "its agent renewed Lease ironcore-machinepool-lease/"
                                        + pool
                                        + " about every 2.5 s")
                                .contains(
                                    "set --machine-pool-lifecycle-grace-period above its renew"
                                        + " interval");
                            assertThat(e.getCount()).isGreaterThanOrEqualTo(2);
                          }));
      // and counted for alerting (fresh eyes, session 42: a flapping pool was never Unknown long
      // enough for an alert on the Ready=Unknown gauge)
      assertThat(scrape())
          .containsPattern("(?m)^ironcore_maintenance_pools_renewing_slower_than_grace [1-9]");
      // an agent that stops for good is not flapping: no longer counted once its interval and the
      // grace period have passed without a change (fresh eyes: it was, until the pool was deleted)
      renewing.cancel(false);
      eventually()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () ->
                  assertThat(scrape())
                      .contains("ironcore_maintenance_pools_renewing_slower_than_grace 0.0"));
    } finally {
      renewing.cancel(false);
    }
  }

  /**
   * The controller's Lease cache stops following the API server (its informer is killed again and
   * again for 4 s, four grace periods, while the supervisor backs off) while the poollet keeps
   * renewing: the health loop reaches its deadlines on a cache that lags, and must ask the API
   * server before it writes Unknown (fresh eyes: a paused controller, or one whose Lease watch
   * stalled, set every healthy pool Unknown).
   */
  @Test
  void aPoolWhoseLeaseIsRenewedIsNotMarkedUnknownWhileTheLeaseCacheLags() {
    String pool = world.poolName("lagging");
    world.createPool(pool, List.of());
    markReady(pool);
    renewLease(pool);
    poollet.scheduleAtFixedRate(() -> renewLease(pool), 200, 200, TimeUnit.MILLISECONDS);
    eventually().until(() -> controller.isReady());
    var leases =
        controller.cache().informers().stream()
            .filter(i -> i.resource().equals("leases"))
            .findFirst()
            .orElseThrow();

    long end = System.nanoTime() + Duration.ofSeconds(4).toNanos();
    int kills = 0;
    while (System.nanoTime() < end) {
      if (leases.up()) {
        leases.kill();
        kills++;
      }
      assertThat(ready(world.pool(pool)).getStatus()).as("after %d kills", kills).isEqualTo("True");
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }
    eventually()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(4))
        .until(() -> "True".equals(ready(world.pool(pool)).getStatus()));
    assertThat(poolUnknownEvents(pool)).isEmpty();
  }
}
