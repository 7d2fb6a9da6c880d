package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.json.JsonMappers;
import dev.ironcore.maintenance.controller.Clusters;
import dev.ironcore.maintenance.controller.LeadershipGate;
import dev.ironcore.maintenance.controller.RenewalWatchdog;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LeadershipGate} in a client as the controller builds it, against a real kube-apiserver:
 * writes go out only while the replica leads within its renew deadline; reads and the leader
 * election's Lease requests always do. Fresh eyes (session 39): a leader resumed after 27 s of
 * SIGSTOP wrote {@code Evicted} Events before its watchdog ended it.
 */
class LeadershipGateE2ETest {
  private final ControllerWorld world = new ControllerWorld();
  private final LeadershipGate gate = new LeadershipGate();
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final RenewalWatchdog watchdog = new RenewalWatchdog(Duration.ofSeconds(10), nanos::get);
  private final KubernetesClient gated;

  LeadershipGateE2ETest() throws Exception {
    Config config = Config.fromKubeconfig(Files.readString(world.cp.kubeconfig()));
    gated =
        JsonMappers.clientBuilder()
            .withConfig(config)
            .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("leadership", gate))
            .build();
  }

  @AfterEach
  void close() {
    gated.close();
  }

  private void label(KubernetesClient client, String value) {
    client
        .resources(Machine.class)
        .inNamespace(world.ns)
        .withName("vm-1")
        .edit(
            m -> {
              java.util.Map<String, String> labels =
                  m.getMetadata().getLabels() == null
                      ? new java.util.HashMap<>()
                      : new java.util.HashMap<>(m.getMetadata().getLabels());
              labels.put("gate", value);
              m.getMetadata().setLabels(labels);
              return m;
            });
  }

  private String labelOnServer() {
    Machine m = world.machine("vm-1");
    return m.getMetadata().getLabels() == null ? null : m.getMetadata().getLabels().get("gate");
  }

  /** The elector's acquisition of the Lease went through (as its lock, wrapped, reports it). */
  private void acquired() {
    watchdog
        .wrap(
            new io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock() {
              @Override
              public io.fabric8.kubernetes.client.extended.leaderelection.resourcelock
                      .LeaderElectionRecord
                  get(KubernetesClient client) {
                return null;
              }

              @Override
              public void create(
                  KubernetesClient client,
                  io.fabric8.kubernetes.client.extended.leaderelection.resourcelock
                          .LeaderElectionRecord
                      record) {}

              @Override
              public void update(
                  KubernetesClient client,
                  io.fabric8.kubernetes.client.extended.leaderelection.resourcelock
                          .LeaderElectionRecord
                      record) {}

              @Override
              public String identity() {
                return "me";
              }

              @Override
              public String describe() {
                return "test";
              }
            })
        .create(
            null,
            new io.fabric8.kubernetes.client.extended.leaderelection.resourcelock
                .LeaderElectionRecord(
                "me",
                Duration.ofSeconds(15),
                java.time.ZonedDateTime.now(),
                java.time.ZonedDateTime.now(),
                0));
  }

  @Test
  void writesGoOutOnlyWhileLeadingWithinTheRenewDeadline() {
    String pool = world.poolName("gate");
    world.createPool(pool, List.of());
    world.createMachine("vm-1", pool);
    // the loops write through the fail-fast clients derived from these (Clusters.failFast)
    KubernetesClient loops = Clusters.single(gated).failFast().ironcore();

    // before the elector runs: reads pass, writes are refused, the Lease requests pass
    assertThat(gated.resources(Machine.class).inNamespace(world.ns).withName("vm-1").get())
        .isNotNull();
    assertThatThrownBy(() -> label(loops, "before"))
        .hasStackTraceContaining("this replica must not write: not leading (yet)");
    assertThatThrownBy(
            () -> gated.resources(Machine.class).inNamespace(world.ns).withName("vm-1").delete())
        .hasStackTraceContaining("not sent: DELETE ");
    assertThat(world.machine("vm-1")).isNotNull();
    String lease = "gate-" + world.ns;
    gated
        .leases()
        .inNamespace(world.ns)
        .resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withName(lease)
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity("me")
                .endSpec()
                .build())
        .create();

    gate.follow(watchdog);
    watchdog.leading();
    // announced leading, but the acquisition's write has not gone through yet: still nothing
    assertThatThrownBy(() -> label(loops, "announced"))
        .hasStackTraceContaining("this replica must not write: not leading (yet)");
    acquired();
    label(loops, "leading");
    assertThat(labelOnServer()).isEqualTo("leading");

    // paused past the renew deadline (SIGSTOP, a frozen VM): refused at the first write
    nanos.addAndGet(Duration.ofSeconds(27).toNanos());
    assertThatThrownBy(() -> label(loops, "after-pause"))
        .isInstanceOf(RuntimeException.class)
        .hasStackTraceContaining(
            "this replica must not write: the Lease was last renewed 27000 ms ago, longer than"
                + " the renew deadline (10 s): another replica may lead");
    assertThatThrownBy(
            () ->
                loops
                    .v1()
                    .events()
                    .inNamespace(world.ns)
                    .resource(
                        new io.fabric8.kubernetes.api.model.EventBuilder()
                            .withNewMetadata()
                            .withName("gate-event")
                            .endMetadata()
                            .withReason("Evicted")
                            .withNewInvolvedObject()
                            .withKind("Machine")
                            .withName("vm-1")
                            .withNamespace(world.ns)
                            .endInvolvedObject()
                            .build())
                    .create())
        .hasStackTraceContaining("not sent: POST ");
    assertThat(labelOnServer()).isEqualTo("leading");
    assertThat(world.client.v1().events().inNamespace(world.ns).withName("gate-event").get())
        .isNull();
    // the elector's own renewal still goes out
    gated
        .leases()
        .inNamespace(world.ns)
        .withName(lease)
        .edit(l -> new LeaseBuilder(l).editSpec().withLeaseDurationSeconds(15).endSpec().build());
    assertThat(
            world
                .client
                .leases()
                .inNamespace(world.ns)
                .withName(lease)
                .get()
                .getSpec()
                .getLeaseDurationSeconds())
        .isEqualTo(15);
  }
}
