package dev.ironcore.maintenance.testkit;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.Testcontainers;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * k3s in a container (Testcontainers), as a second real API server for the end-to-end suites. The
 * webhook port is picked and exposed to the container before it starts, so the API server reaches a
 * webhook on this machine's loopback at {@code https://host.testcontainers.internal:PORT}. Image:
 * system property {@value #IMAGE_PROPERTY}, default {@value #DEFAULT_IMAGE}.
 */
public final class K3sCluster implements TestCluster {

  /** System property naming the k3s image. */
  public static final String IMAGE_PROPERTY = "k3s.image";

  /** Default k3s image (Kubernetes 1.34 line, as the local control plane). */
  public static final String DEFAULT_IMAGE = "rancher/k3s:v1.34.1-k3s1";

  private final K3sContainer container;
  private final Path kubeconfig;
  private final Kubectl kubectl;
  private final int webhookPort;
  private KubernetesClient client;

  private K3sCluster(K3sContainer container, Path kubeconfig, int webhookPort) {
    this.container = container;
    this.kubeconfig = kubeconfig;
    this.webhookPort = webhookPort;
    this.kubectl = new Kubectl(Kubectl.locate(binDirOrNull()), kubeconfig);
  }

  private static Path binDirOrNull() {
    String dir = System.getProperty(SharedControlPlane.BIN_DIR_PROPERTY);
    return dir == null ? null : Path.of(dir);
  }

  /** Null when a Docker engine answers, else why k3s cannot run here. */
  static String unavailableReason() {
    try {
      return DockerClientFactory.instance().isDockerAvailable()
          ? null
          : "no Docker engine answers (Testcontainers found no working Docker environment)";
    } catch (RuntimeException | LinkageError e) {
      return "no Docker engine: " + e;
    }
  }

  /** Starts the container (stopped by Testcontainers' reaper or the JVM shutdown hook). */
  static K3sCluster start() {
    int port = FreePorts.pick(1).get(0);
    Testcontainers.exposeHostPorts(port);
    K3sContainer container =
        new K3sContainer(DockerImageName.parse(System.getProperty(IMAGE_PROPERTY, DEFAULT_IMAGE)));
    container.start();
    try {
      Path dir = Files.createDirectories(Path.of("target", "k3s"));
      Path kubeconfig = dir.resolve("kubeconfig-" + ProcessHandle.current().pid());
      Files.writeString(kubeconfig, container.getKubeConfigYaml());
      K3sCluster cluster = new K3sCluster(container, kubeconfig, port);
      Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "k3s-stop"));
      return cluster;
    } catch (IOException e) {
      container.stop();
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String description() {
    return "k3s " + container.getDockerImageName() + " at " + container.getHost();
  }

  @Override
  public Path kubeconfig() {
    return kubeconfig;
  }

  @Override
  public synchronized KubernetesClient client() {
    if (client == null) {
      client = newClient();
    }
    return client;
  }

  @Override
  public KubernetesClient newClient() {
    return dev.ironcore.maintenance.api.json.JsonMappers.client(
        Config.fromKubeconfig(container.getKubeConfigYaml()));
  }

  @Override
  public Kubectl kubectlTool() {
    return kubectl;
  }

  @Override
  public String webhookHost() {
    return "host.testcontainers.internal";
  }

  @Override
  public int webhookPort() {
    return webhookPort;
  }
}
