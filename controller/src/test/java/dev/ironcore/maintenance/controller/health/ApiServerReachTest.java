package dev.ironcore.maintenance.controller.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** {@link ApiServerReach} driven tick by tick, with probes the test answers. */
class ApiServerReachTest {
  private static final Instant T0 = Instant.parse("2026-12-05T10:00:00Z");
  private Instant now = T0;
  private final List<CompletableFuture<Integer>> probes = new ArrayList<>();
  private final List<CompletableFuture<Integer>> freshProbes = new ArrayList<>();
  private final ApiServerReach reach =
      new ApiServerReach(
          () -> {
            CompletableFuture<Integer> f = new CompletableFuture<>();
            probes.add(f);
            return f;
          },
          () -> {
            CompletableFuture<Integer> f = new CompletableFuture<>();
            freshProbes.add(f);
            return f;
          },
          new Clock() {
            @Override
            public java.time.ZoneId getZone() {
              return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
              return this;
            }

            @Override
            public Instant instant() {
              return now;
            }
          },
          "https://api.example:6443/");

  private CompletableFuture<Integer> last() {
    return probes.get(probes.size() - 1);
  }

  @Test
  void anApiServerThatAlwaysAnswersWasNeverLost() {
    for (int i = 0; i < 5; i++) {
      reach.tick();
      last().complete(200);
    }
    assertThat(probes).hasSize(5);
    assertThat(reach.observedSince()).isEqualTo(Instant.EPOCH);
  }

  @Test
  void aProbeUnansweredForThePatienceLosesTheApiServerUntilTheNextAnswer() {
    reach.tick();
    for (int i = 0; i < ApiServerReach.PATIENCE_TICKS - 1; i++) {
      now = now.plusSeconds(2);
      reach.tick();
    }
    assertThat(probes).as("never two at a time").hasSize(1);
    assertThat(reach.observedSince()).as("still patient").isEqualTo(Instant.EPOCH);
    assertThat(reach.reachable()).isTrue();
    now = now.plusSeconds(2);
    reach.tick();
    assertThat(reach.observedSince()).as("unreachable: now").isEqualTo(now);
    assertThat(reach.reachable()).as("the gauge an operator sees").isFalse();
    now = now.plusSeconds(60);
    assertThat(reach.observedSince()).isEqualTo(now);
    last().complete(200); // the frozen API server answers at last
    assertThat(reach.reachable()).isTrue();
    Instant back = now;
    now = now.plusSeconds(10);
    assertThat(reach.observedSince()).isEqualTo(back);
  }

  @Test
  void failedProbesAnd5xxLoseItOnlyWhenTheyLastAndAnyOtherAnswerIsOne() {
    reach.tick();
    last().completeExceptionally(new IOException("Connection refused"));
    assertThat(reach.observedSince()).as("one failure is no outage").isEqualTo(Instant.EPOCH);
    for (int i = 0; i < ApiServerReach.PATIENCE_TICKS; i++) {
      now = now.plusSeconds(2);
      reach.tick();
      last().complete(503); // etcd not ready
    }
    assertThat(reach.observedSince()).as("lost").isEqualTo(now);
    now = now.plusSeconds(2);
    reach.tick();
    last().complete(403); // an API server that refuses the probe still serves
    Instant back = now;
    now = now.plusSeconds(2);
    assertThat(reach.observedSince()).isEqualTo(back);
  }

  @Test
  void answersBetweenFailuresKeepItReachable() {
    for (int i = 0; i < 10; i++) {
      reach.tick();
      if (i % 3 == 2) {
        last().complete(200);
      } else {
        last().completeExceptionally(new IOException("reset"));
      }
      now = now.plusSeconds(2);
    }
    assertThat(reach.observedSince()).isEqualTo(Instant.EPOCH);
  }

  /**
   * The loops' back-off waits for nothing once the API server answers again: listeners hear the
   * first good answer after a failed probe, a 5xx, or a silence long enough to count as
   * unreachable, however short the trouble; never a good answer after a good or merely slow one,
   * and at most once per {@link ApiServerReach#LISTENERS_AT_MOST_EVERY}. A listener that throws
   * does not keep the next one from running.
   */
  @Test
  void listenersHearTheFirstGoodAnswerAfterAFailureA5xxOrALoss() throws Exception {
    List<Instant> heard = new ArrayList<>();
    reach.onAnswerAgain(
        () -> {
          throw new IllegalStateException("a listener's bug");
        });
    AutoCloseable counting = reach.onAnswerAgain(() -> heard.add(now));
    reach.tick();
    last().complete(200);
    now = now.plusSeconds(2);
    reach.tick();
    last().complete(401); // refuses the probe: it answers
    now = now.plusSeconds(2);
    reach.tick();
    now = now.plusSeconds(2);
    reach.tick(); // the probe is still in flight: slow, not lost
    last().complete(200);
    assertThat(heard).as("answers only").isEmpty();

    now = now.plusSeconds(2);
    reach.tick();
    last().completeExceptionally(new IOException("Connection refused"));
    now = now.plusSeconds(2);
    reach.tick();
    assertThat(heard).isEmpty();
    last().complete(200);
    assertThat(heard).as("after a failed probe, before any loss").containsExactly(now);

    now = now.plusSeconds(2);
    reach.tick();
    last().complete(503);
    now = now.plusSeconds(2);
    reach.tick();
    last().complete(200);
    assertThat(heard).as("within 10 s of the last run: not again").hasSize(1);

    now = now.plusSeconds(10);
    reach.tick();
    last().complete(503);
    now = now.plusSeconds(2);
    reach.tick();
    last().complete(200);
    assertThat(heard).as("after a 5xx").hasSize(2);

    now = now.plusSeconds(10);
    reach.tick();
    for (int i = 0; i < ApiServerReach.PATIENCE_TICKS; i++) {
      now = now.plusSeconds(2);
      reach.tick();
    }
    assertThat(reach.reachable()).isFalse();
    last().complete(200); // a frozen API server answers at last
    assertThat(heard).as("after a loss without a failed probe").hasSize(3);

    counting.close();
    now = now.plusSeconds(10);
    reach.tick();
    last().completeExceptionally(new IOException("reset"));
    now = now.plusSeconds(2);
    reach.tick();
    last().complete(200);
    assertThat(heard).as("removed").hasSize(3);
  }

  @Test
  void aSlowAnswerWithinThePatienceIsNoLoss() {
    reach.tick();
    now = now.plusSeconds(2);
    reach.tick();
    last().complete(200);
    assertThat(reach.observedSince()).isEqualTo(Instant.EPOCH);
  }

  /**
   * Connections that went silent without a reset (fresh eyes, session 47: nothing reconnected 4
   * minutes after the network came back): past {@link ApiServerReach#STALL_TICKS} ticks of silence,
   * a probe over a new connection; answered, and this process's probe silent {@link
   * ApiServerReach#CONFIRM_TICKS} ticks longer, the connections are stalled (healthz fails) until
   * they answer again. A new connection unanswered too (the API server is down), nothing stalls.
   */
  @Test
  void connectionsThatStaySilentWhileANewOneIsAnsweredAreStalled() {
    int ticks = 0;
    while (freshProbes.isEmpty() && ticks < 100) {
      reach.tick();
      ticks++;
    }
    assertThat(ticks)
        .as("fresh probes after the stall ticks")
        .isEqualTo(ApiServerReach.STALL_TICKS + 2);
    assertThat(reach.reachable()).isFalse();
    freshProbes.get(0).completeExceptionally(new IOException("connect timed out"));
    reach.tick();
    assertThat(reach.stalled()).as("down for every connection: an outage").isFalse();
    assertThat(freshProbes).hasSize(2);
    freshProbes.get(1).complete(503);
    reach.tick();
    assertThat(reach.stalled()).as("a 5xx is no answer").isFalse();
    freshProbes.get(2).complete(200);
    for (int i = 0; i < ApiServerReach.CONFIRM_TICKS - 1; i++) {
      reach.tick();
      assertThat(reach.stalled()).as("confirming, tick %d", i).isFalse();
    }
    reach.tick();
    assertThat(reach.stalled()).isTrue();
    reach.tick();
    assertThat(freshProbes).as("no further fresh probe once stalled").hasSize(3);
    assertThat(probes).as("the process's own probe still in flight").hasSize(1);
    probes.get(0).complete(503);
    assertThat(reach.stalled()).as("any answer, a 5xx too, ends the stall").isFalse();
    assertThat(reach.reachable()).as("a 5xx is not reachable").isFalse();
  }

  /**
   * An API server coming back answers the new connection and then ours: within the confirmation
   * ticks no stall (review, session 47: a false ERROR and /healthz 503 on a restart).
   */
  @Test
  void anApiServerComingBackIsNoStall() {
    while (freshProbes.isEmpty()) {
      reach.tick();
    }
    freshProbes.get(0).complete(200);
    reach.tick();
    last().complete(200);
    for (int i = 0; i < 5; i++) {
      reach.tick();
      last().complete(200);
    }
    assertThat(reach.stalled()).isFalse();
    assertThat(reach.reachable()).isTrue();
  }

  /**
   * A refused connection is no silence (the JDK connects anew for the next request): no probe over
   * a new connection, no stall.
   */
  @Test
  void refusedConnectionsAreNoStall() {
    for (int i = 0; i < 3 * ApiServerReach.STALL_TICKS; i++) {
      reach.tick();
      last().completeExceptionally(new java.net.ConnectException("Connection refused"));
    }
    assertThat(reach.reachable()).isFalse();
    assertThat(freshProbes).isEmpty();
    assertThat(reach.stalled()).isFalse();
  }
}
