package dev.ironcore.maintenance.controller.e2e;

import static dev.ironcore.maintenance.controller.e2e.ControllerWorld.hasHook;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ironcore.maintenance.controller.LeaderElection;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two controller processes with {@code --leader-elect}, identities from {@code POD_NAME} as in a
 * Deployment: the standby passes its readiness probe; killing the leader mid-drain hands the Lease
 * over and the drain completes with every step done once; a rollout (start a new replica, then stop
 * the old one) completes.
 */
class LeaderElectionE2ETest {
  private static final Duration LEASE_DURATION = Duration.ofSeconds(15);
  private final HttpClient http = HttpClient.newHttpClient();
  private final List<ControllerProcess> processes = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (ControllerProcess p : processes) {
      p.close();
    }
  }

  private ControllerProcess start(ControllerWorld world, Path log, String podName)
      throws Exception {
    ControllerProcess p =
        ControllerProcess.start(
            world.cp.kubeconfig(),
            log,
            Map.of("POD_NAME", podName),
            "--leader-elect",
            "--leader-election-namespace=" + world.ns,
            "--resync-period=5s",
            "--log-format=json");
    processes.add(p);
    return p;
  }

  private HttpResponse<String> readyz(ControllerProcess p) {
    try {
      return http.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p.healthPort() + "/readyz"))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      return null;
    }
  }

  private boolean ready(ControllerProcess p) {
    HttpResponse<String> r = readyz(p);
    return r != null && r.statusCode() == 200;
  }

  private static boolean logSays(Path log, String text) throws Exception {
    return Files.exists(log) && Files.readString(log).contains(text);
  }

  private static Lease lease(ControllerWorld world) {
    return world.client.leases().inNamespace(world.ns).withName(LeaderElection.LEASE_NAME).get();
  }

  /** The JSON log lines of the given logs (other lines, e.g. JVM warnings, are skipped). */
  private static List<JsonNode> jsonLines(Path... logs) throws Exception {
    ObjectMapper json = dev.ironcore.maintenance.api.json.JsonMappers.shared();
    List<JsonNode> lines = new ArrayList<>();
    for (Path log : logs) {
      for (String line : Files.readAllLines(log)) {
        if (line.startsWith("{")) {
          lines.add(json.readTree(line));
        }
      }
    }
    return lines;
  }

  private static long count(List<JsonNode> lines, String name, String msgPart) {
    return lines.stream()
        .filter(l -> name.equals(l.path("name").asText()))
        .filter(l -> l.path("msg").asText().contains(msgPart))
        .count();
  }

  @Test
  void theStandbyIsReadyAndTakesOverADrainInProgressDoingEachStepOnce() throws Exception {
    ControllerWorld world = new ControllerWorld();
    Path dir = Files.createDirectories(Path.of("target", "leader-election"));
    Path logA = dir.resolve(world.ns + "-a.log");
    Path logB = dir.resolve(world.ns + "-b.log");

    ControllerProcess a = start(world, logA, "pod-a");
    await().atMost(Duration.ofSeconds(60)).until(() -> logSays(logA, "controller started"));
    ControllerProcess b = start(world, logB, "pod-b");
    await().atMost(Duration.ofSeconds(60)).until(() -> ready(b));
    assertThat(readyz(b).body()).contains("standby, the Lease is held by pod-a");
    assertThat(ready(a)).isTrue();
    assertThat(lease(world).getSpec().getHolderIdentity()).isEqualTo("pod-a");
    // client-go's gauge, so that an alert sees a controller nobody runs (fresh eyes, session 39)
    assertThat(a.metrics())
        .containsPattern(
            "(?m)^leader_election_master_status\\{name=\"ironcore-maintenance-controller\",?} 1\\.0$");
    assertThat(b.metrics())
        .containsPattern(
            "(?m)^leader_election_master_status\\{name=\"ironcore-maintenance-controller\",?} 0\\.0$")
        // the standby probes the API server too: with one API server for the pools and the Lease,
        // a leader that cannot reach it exits, and only a standby's gauge says why (session 40)
        .containsPattern("(?m)^ironcore_maintenance_api_server_reachable 1\\.0$");

    // a drain in progress: two Machines evicted, their VMs not yet off (the test is the poollet)
    String pool = world.poolName("ha");
    world.createPool(pool, List.of());
    world.createMachine("vm-1", pool);
    world.createMachine("vm-2", pool);
    world.createCapiMachine("node", pool, Map.of());
    await().atMost(Duration.ofSeconds(30)).until(() -> hasHook(world.capiMachine("node")));
    world.deleteCapiMachine("node");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                world.machine("vm-1").getMetadata().getDeletionTimestamp() != null
                    && world.machine("vm-2").getMetadata().getDeletionTimestamp() != null);
    // the Evicted events are written right after the DELETEs: wait for them before the kill
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                world.client.v1().events().inNamespace(world.ns).list().getItems().stream()
                        .filter(e -> "Evicted".equals(e.getReason()))
                        .count()
                    >= 2);
    assertThat(Files.readString(logB))
        .as("the standby does not run the loops")
        .doesNotContain("controller started");

    ZonedDateTime lastRenewByA = lease(world).getSpec().getRenewTime();
    a.kill();
    await().atMost(Duration.ofSeconds(90)).until(() -> logSays(logB, "controller started"));
    Lease taken = lease(world);
    assertThat(taken.getSpec().getHolderIdentity()).isEqualTo("pod-b");
    Duration handover = Duration.between(lastRenewByA, taken.getSpec().getAcquireTime());
    System.out.printf(
        "leader election: pod-b acquired the Lease %d ms after pod-a's last renewal"
            + " (lease duration %d s)%n",
        handover.toMillis(), LEASE_DURATION.toSeconds());
    // expiry of the Lease plus one retry period (2 s) of the standby, with slack for a busy machine
    assertThat(handover).isLessThan(LEASE_DURATION.plusSeconds(10));
    await().atMost(Duration.ofSeconds(30)).until(() -> ready(b));

    world.poolletReleases("vm-1");
    world.poolletReleases("vm-2");
    await().atMost(Duration.ofSeconds(60)).until(() -> !hasHook(world.capiMachine("node")));
    world.capiFinishes("node");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> world.pool(pool) == null && world.capiMachine("node") == null);

    List<Event> evicted =
        world.client.v1().events().inNamespace(world.ns).list().getItems().stream()
            .filter(e -> "Evicted".equals(e.getReason()))
            .toList();
    for (String vm : List.of("vm-1", "vm-2")) {
      assertThat(evicted)
          .as("one Evicted event for %s", vm)
          .filteredOn(e -> vm.equals(e.getInvolvedObject().getName()))
          .singleElement()
          .satisfies(e -> assertThat(e.getCount()).isIn(null, 1));
    }
    // the log line of a write follows its answer: the pool can be gone before its line is written
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions() // a line half-written
        .until(
            () -> {
              List<JsonNode> written = jsonLines(logA, logB);
              return count(written, "node", "deleted pool") > 0
                  && count(written, "node", "removed finalizer") > 0;
            });
    List<JsonNode> lines = jsonLines(logA, logB);
    assertThat(count(lines, "node", "added taints")).as("taints added once").isEqualTo(1);
    assertThat(count(lines, "vm-1", "evicted machine")).isEqualTo(1);
    assertThat(count(lines, "vm-2", "evicted machine")).isEqualTo(1);
    assertThat(count(lines, "node", "removed pre-drain hook")).as("hook removed once").isEqualTo(1);
    assertThat(count(lines, "node", "deleted pool")).as("pool deleted once").isEqualTo(1);
    assertThat(count(lines, "node", "removed finalizer")).isEqualTo(1);
    assertThat(lines)
        .as("action lines carry the object")
        .filteredOn(l -> l.path("msg").asText().contains("added taints"))
        .singleElement()
        .satisfies(
            l -> {
              assertThat(l.path("kind").asText()).isEqualTo("Machine.cluster.x-k8s.io");
              assertThat(l.path("namespace").asText()).isEqualTo(world.ns);
              assertThat(l.path("level").asText()).isEqualTo("INFO");
              assertThat(l.path("logger").asText()).endsWith("DrainReconciler");
            });
  }

  @Test
  void aRolloutStartsTheNewReplicaThenStopsTheOldOne() throws Exception {
    ControllerWorld world = new ControllerWorld();
    Path dir = Files.createDirectories(Path.of("target", "leader-election"));
    Path logOld = dir.resolve(world.ns + "-old.log");
    Path logNew = dir.resolve(world.ns + "-new.log");

    ControllerProcess old = start(world, logOld, "pod-old");
    await().atMost(Duration.ofSeconds(60)).until(() -> ready(old));
    // maxUnavailable 0: the new pod must turn Ready while the old one still leads
    ControllerProcess fresh = start(world, logNew, "pod-new");
    await().atMost(Duration.ofSeconds(60)).until(() -> ready(fresh));
    // then the old pod gets SIGTERM: it releases the Lease, the new one leads
    old.terminate();
    await().atMost(Duration.ofSeconds(60)).until(() -> logSays(logNew, "controller started"));
    assertThat(lease(world).getSpec().getHolderIdentity()).isEqualTo("pod-new");
    world.createCapiMachine("after-rollout", null, Map.of());
    await().atMost(Duration.ofSeconds(30)).until(() -> hasHook(world.capiMachine("after-rollout")));
  }

  /**
   * Fresh eyes (session 39): a leader paused (SIGSTOP) past the Lease's expiry, while another
   * replica took over and the pool's taint was removed, wrote {@code Evicted} Events on resume for
   * Machines whose tolerationSeconds had passed meanwhile (by its stale cache), in the 250 ms
   * before its watchdog ended it; only that race kept the DELETEs from going out. Now every write
   * waits on the replica's leadership ({@code LeadershipGate}): the resumed replica writes nothing
   * and exits.
   */
  @Test
  void aLeaderResumedAfterAPauseLongerThanTheLeaseWritesNothing() throws Exception {
    ControllerWorld world = new ControllerWorld();
    Path dir = Files.createDirectories(Path.of("target", "leader-election"));
    ControllerProcess paused = start(world, dir.resolve(world.ns + "-paused.log"), "pod-paused");
    await().atMost(Duration.ofSeconds(60)).until(() -> ready(paused));
    ControllerProcess successor =
        start(world, dir.resolve(world.ns + "-successor.log"), "pod-successor");
    await().atMost(Duration.ofSeconds(60)).until(() -> ready(successor));
    assertThat(lease(world).getSpec().getHolderIdentity()).isEqualTo("pod-paused");

    String pool = world.poolName("paused");
    dev.ironcore.maintenance.api.compute.Taint taint =
        new dev.ironcore.maintenance.api.compute.Taint("example.com/gate", null, "NoExecute");
    java.time.Instant tainted =
        java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    taint.setTimeAdded(tainted.toString());
    world.createPool(pool, List.of(), taint);
    List<String> machines = List.of("vm-p1", "vm-p2", "vm-p3");
    for (String name : machines) {
      dev.ironcore.maintenance.api.compute.Toleration t =
          new dev.ironcore.maintenance.api.compute.Toleration(
              "example.com/gate", "Exists", null, "NoExecute");
      t.setTolerationSeconds(20L);
      world.createMachine(name, pool, t);
    }
    Thread.sleep(3_000); // the leader has seen them: each is due for eviction 20 s after the taint
    paused.pause();
    try {
      world.kubectlPatchPool(pool, "[{\"op\":\"remove\",\"path\":\"/spec/taints\"}]");
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> "pod-successor".equals(lease(world).getSpec().getHolderIdentity()));
      // past the tolerationSeconds, which the paused replica's cache still counts against the taint
      long wait = Duration.between(java.time.Instant.now(), tainted.plusSeconds(22)).toMillis();
      if (wait > 0) {
        Thread.sleep(wait);
      }
    } finally {
      paused.resume();
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> !paused.alive());
    assertThat(paused.exitCode()).isEqualTo(1);
    for (String name : machines) {
      assertThat(world.machine(name).getMetadata().getDeletionTimestamp()).as(name).isNull();
    }
    assertThat(
            world.client.v1().events().inNamespace(world.ns).list().getItems().stream()
                .filter(e -> "Evicted".equals(e.getReason()))
                .map(e -> e.getInvolvedObject().getName() + " by " + e.getReportingInstance())
                .toList())
        .as("no eviction announced for Machines whose taint is gone")
        .isEmpty();
  }
}
