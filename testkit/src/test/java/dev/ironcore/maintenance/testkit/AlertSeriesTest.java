package dev.ironcore.maintenance.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class AlertSeriesTest {
  @Test
  void readsEachAlertsSelectorsWithTheirLabels() {
    assertThat(AlertSeries.of("ironcore-maintenance"))
        .contains(
            new AlertSeries.Selector(
                "IronCoreMaintenanceMachinePoolsUnknown",
                "ironcore_maintenance_pools",
                Map.of("ready", "Unknown")),
            new AlertSeries.Selector(
                "IronCoreMaintenanceControllerTwoLeaders",
                "leader_election_master_status",
                Map.of("name", "ironcore-maintenance-controller")))
        .noneMatch(s -> s.metric().equals("up"));
    assertThat(AlertSeries.of("ironcore-maintenance-webhook"))
        .contains(
            new AlertSeries.Selector(
                "IronCoreMaintenanceWebhookErrors",
                "ironcore_maintenance_admission_decisions_total",
                Map.of("decision", "errored")));
  }

  @Test
  void aSelectorMatchesASampleWithAtLeastItsLabels() {
    AlertSeries.Selector unknown =
        new AlertSeries.Selector("A", "ironcore_maintenance_pools", Map.of("ready", "Unknown"));
    assertThat(
            unknown.matches(
                "# TYPE ironcore_maintenance_pools gauge\n"
                    + "ironcore_maintenance_pools{maintenance=\"None\",ready=\"Unknown\"} 0.0\n"))
        .isTrue();
    assertThat(
            unknown.matches(
                "ironcore_maintenance_pools{maintenance=\"None\",ready=\"True\"} 3.0\n"))
        .isFalse();
    assertThat(unknown.matches("# HELP ironcore_maintenance_pools{ready=\"Unknown\"} x\n"))
        .isFalse();
    assertThat(unknown.matches("ironcore_maintenance_pools_total{ready=\"Unknown\"} 1.0\n"))
        .isFalse();
    assertThat(
            new AlertSeries.Selector("B", "ironcore_maintenance_drains_stuck", Map.of())
                .matches("ironcore_maintenance_drains_stuck 0.0\n"))
        .isTrue();
  }

  @Test
  void anUnknownRuleIsAnError() {
    assertThatThrownBy(() -> AlertSeries.of("nope"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no PrometheusRule nope");
  }
}
