package dev.ironcore.maintenance.controller.eviction;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.Fixtures;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LivePoolCheckTest {
  private static final Instant T = Instant.parse("2026-11-29T08:00:00Z");

  private final Map<String, MachinePool> apiServer = new HashMap<>();
  private final AtomicInteger gets = new AtomicInteger();
  private final LivePoolCheck check =
      new LivePoolCheck(
          name -> {
            gets.incrementAndGet();
            return apiServer.get(name);
          });

  private static MachinePool pool(String resourceVersion) {
    MachinePool p = Fixtures.pool("pool-a");
    p.getMetadata().setResourceVersion(resourceVersion);
    return p;
  }

  @Test
  void aCachedPoolTheApiServerConfirmedWithinASecondNeedsNoSecondRead() {
    MachinePool cached = pool("7");
    apiServer.put("pool-a", pool("7"));
    assertThat(check.confirm("pool-a", cached, T)).isSameAs(cached);
    assertThat(check.confirm("pool-a", cached, T.plusMillis(1000))).isSameAs(cached);
    assertThat(gets).hasValue(1);
    // a second later the API server is asked again
    assertThat(check.confirm("pool-a", cached, T.plusMillis(1001))).isSameAs(cached);
    assertThat(gets).hasValue(2);
  }

  /** The cache lags: an operator removed the taint, the watch has not delivered it yet. */
  @Test
  void aLaggingCacheIsReplacedByThePoolAsTheApiServerHasIt() {
    MachinePool cached = pool("7");
    MachinePool now = pool("8");
    apiServer.put("pool-a", now);
    assertThat(check.confirm("pool-a", cached, T)).isSameAs(now);
    // still lagging: read again, not taken as confirmed
    assertThat(check.confirm("pool-a", cached, T.plusMillis(10))).isSameAs(now);
    assertThat(gets).hasValue(2);
    // the cache caught up
    MachinePool caughtUp = pool("8");
    assertThat(check.confirm("pool-a", caughtUp, T.plusMillis(20))).isSameAs(caughtUp);
    assertThat(gets).hasValue(2);
  }

  @Test
  void aPoolGoneFromTheApiServerIsNull() {
    assertThat(check.confirm("pool-a", pool("7"), T)).isNull();
    assertThat(check.confirm("pool-a", pool("7"), T)).isNull();
    assertThat(gets).hasValue(2);
  }

  @Test
  void aClockThatWentBackDoesNotStretchAConfirmation() {
    MachinePool cached = pool("7");
    apiServer.put("pool-a", pool("7"));
    check.confirm("pool-a", cached, T);
    check.confirm("pool-a", cached, T.minusSeconds(30));
    assertThat(gets).hasValue(2);
  }
}
