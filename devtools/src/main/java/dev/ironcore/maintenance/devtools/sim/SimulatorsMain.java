package dev.ironcore.maintenance.devtools.sim;

import dev.ironcore.maintenance.api.client.KubeconfigConverter;
import dev.ironcore.maintenance.controller.Clusters;
import dev.ironcore.maintenance.controller.KubeWriter;
import dev.ironcore.maintenance.process.Cli;
import dev.ironcore.maintenance.process.DurationFlag;
import dev.ironcore.maintenance.process.FlagRange;
import dev.ironcore.maintenance.process.KubeconfigEnv;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * LOCAL USE ONLY: the stand-ins that {@code make run} starts beside the controller, in a process of
 * their own as the real components are: {@code --simulate-poollet} ({@link PoolletSimulator}) and
 * {@code --simulate-capi} ({@link CapiStandIn}). The cluster is found as kubectl finds it. Runs
 * until SIGTERM or Ctrl-C; exit code 2 on bad flags or when neither simulator is asked for.
 */
@Command(
    name = "ironcore-maintenance-simulators",
    mixinStandardHelpOptions = true,
    versionProvider = dev.ironcore.maintenance.process.VersionInfo.Provider.class,
    description =
        "LOCAL USE ONLY: simulate the machinepoollet and Cluster API for a local API server"
            + " without them.")
public final class SimulatorsMain implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(SimulatorsMain.class);

  @Option(
      names = "--simulate-poollet",
      description =
          "Act as the machinepoollet: release a deleting Machine's poollet finalizer after the"
              + " shutdown delay.")
  boolean simulatePoollet;

  @Option(
      names = "--poollet-shutdown-delay",
      defaultValue = "2s",
      converter = DurationFlag.Converter.class,
      description =
          "Simulated VM shutdown time of the poollet simulator (default: ${DEFAULT-VALUE}).")
  Duration poolletShutdownDelay;

  @Option(
      names = "--poollet-lease-duration",
      defaultValue = "40s",
      converter = DurationFlag.Converter.class,
      description =
          "leaseDurationSeconds of the Leases the poollet simulator renews for pools labelled "
              + PoolletHeartbeat.LABEL
              + "=true (default: ${DEFAULT-VALUE}).")
  Duration poolletLeaseDuration;

  @Option(
      names = "--poollet-renew-interval",
      defaultValue = "10s",
      converter = DurationFlag.Converter.class,
      description =
          "How often the poollet simulator renews those Leases and keeps Ready=True (default:"
              + " ${DEFAULT-VALUE}).")
  Duration poolletRenewInterval;

  @Option(
      names = "--simulate-capi",
      description =
          "Act as Cluster API: remove machine.cluster.x-k8s.io from a deleting CAPI Machine once no"
              + " pre-drain hook remains.")
  boolean simulateCapi;

  @Option(
      names = "--ironcore-kubeconfig",
      converter = KubeconfigConverter.class,
      paramLabel = "FILE",
      description =
          "Kubeconfig of the IronCore API (where the poollet simulator watches Machines), as the"
              + " controller's flag; CAPI Machines stay in KUBECONFIG's cluster. Default: one"
              + " cluster for all.")
  Config ironcoreKubeconfig;

  @Option(
      names = "--validate-flags",
      hidden = true,
      description = "Check the flags and exit (used by make run before it starts anything).")
  boolean validateFlagsOnly;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    FlagRange.positive(spec, "--poollet-renew-interval", poolletRenewInterval);
    if (poolletLeaseDuration.toSeconds() < 1) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--poollet-lease-duration must be at least 1s (leaseDurationSeconds), got "
              + DurationFlag.format(poolletLeaseDuration));
    }
    if (!simulatePoollet && !simulateCapi) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "nothing to simulate: give --simulate-poollet and/or --simulate-capi");
    }
    if (validateFlagsOnly) {
      return 0;
    }
    try {
      KubeconfigEnv.check(System.getenv());
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    KubernetesClient client = dev.ironcore.maintenance.api.json.JsonMappers.clientBuilder().build();
    Clusters clusters =
        ironcoreKubeconfig == null
            ? Clusters.single(client)
            : new Clusters(
                client, dev.ironcore.maintenance.api.json.JsonMappers.client(ironcoreKubeconfig));
    List<AutoCloseable> running = start(new KubeWriter(clusters));
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  for (AutoCloseable c : running) {
                    try {
                      c.close();
                    } catch (Exception e) {
                      LOG.debug("close", e);
                    }
                  }
                  clusters.close();
                  stop.countDown();
                },
                "simulators-stop"));
    stop.await();
    return 0;
  }

  /** Starts the simulators asked for; the caller closes them. */
  List<AutoCloseable> start(KubeWriter writer) {
    List<AutoCloseable> running = new ArrayList<>();
    if (simulatePoollet) {
      PoolletSimulator poollet = new PoolletSimulator(writer, poolletShutdownDelay);
      poollet.start();
      running.add(poollet);
      LOG.warn(
          "LOCAL ONLY: poollet simulator on (VM shutdown {} ms)", poolletShutdownDelay.toMillis());
      PoolletHeartbeat heartbeat =
          new PoolletHeartbeat(writer.ironcore(), poolletLeaseDuration, poolletRenewInterval);
      heartbeat.start();
      running.add(heartbeat);
      LOG.warn(
          "LOCAL ONLY: poollet heartbeat on for pools labelled {}=true (Lease {} s, renewed every {} ms)",
          PoolletHeartbeat.LABEL,
          poolletLeaseDuration.toSeconds(),
          poolletRenewInterval.toMillis());
    }
    if (simulateCapi) {
      CapiStandIn capi = new CapiStandIn(writer);
      capi.start();
      running.add(capi);
      LOG.warn("LOCAL ONLY: CAPI stand-in on");
    }
    LOG.info("simulators started");
    return running;
  }

  public static void main(String[] args) {
    System.exit(Cli.of(new SimulatorsMain()).execute(args));
  }
}
