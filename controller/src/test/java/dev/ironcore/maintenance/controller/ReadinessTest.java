package dev.ironcore.maintenance.controller;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReadinessTest {

  @Test
  void withoutLeaderElectionReadyOnceSynced() {
    Readiness r = new Readiness(null);
    assertThat(r.ready()).isFalse();
    r.observedLeader("someone");
    assertThat(r.ready()).as("no leader election: a Lease means nothing").isFalse();
    r.synced();
    assertThat(r.ready()).isTrue();
    assertThat(r.describe()).isEqualTo("ok");
  }

  @Test
  void aStandbyIsReadyOnceItSawAnotherHolder() {
    Readiness r = new Readiness("b");
    assertThat(r.ready()).as("has not looked at the Lease yet").isFalse();
    r.observedLeader("a");
    assertThat(r.ready()).isTrue();
    assertThat(r.describe()).isEqualTo("ok: standby, the Lease is held by a");
  }

  @Test
  void theNewLeaderIsNotReadyUntilItsCachesSynced() {
    Readiness r = new Readiness("b");
    r.observedLeader("a");
    r.observedLeader("b");
    assertThat(r.ready()).as("saw itself as holder, about to lead").isFalse();
    r.leading();
    assertThat(r.ready()).isFalse();
    assertThat(r.describe()).isEqualTo("leading, caches not synced yet");
    r.synced();
    assertThat(r.ready()).isTrue();
  }
}
