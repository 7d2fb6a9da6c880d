package dev.ironcore.maintenance.devtools;

import dev.ironcore.maintenance.testkit.Kubectl;
import dev.ironcore.maintenance.testkit.WebhookInstaller;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * Command line around {@link WebhookInstaller}:
 *
 * <pre>
 * InstallManifests --kubeconfig FILE --overlay DIR --base-url URL --ca-bundle PEMFILE [--kubectl BIN]
 *                  [--only-api-group GROUP]
 * </pre>
 *
 * {@code --only-api-group} installs only what a cluster storing that group's resources needs (its
 * CRDs and the webhooks for its resources; see {@code RenderedManifests#onlyForApiGroup}), for CAPI
 * and IronCore in two API servers. kubectl defaults to {@code $CONTROLPLANE_DIR/kubectl} or the one
 * found by {@link Kubectl#locate}. Exit code 0 on success (and for {@code --help}, which prints the
 * usage), 2 on bad arguments, 1 on failure.
 */
public final class InstallManifests {

  private InstallManifests() {}

  private static final String USAGE =
      "usage: InstallManifests --kubeconfig FILE --overlay DIR --base-url URL"
          + " --ca-bundle PEMFILE [--kubectl BIN] [--only-api-group GROUP]";

  public static void main(String[] args) {
    if (Flags.wantsHelp(args)) {
      System.out.println(USAGE);
      return;
    }
    Flags f;
    try {
      f =
          Flags.parse(
              args,
              Set.of(
                  "kubeconfig", "overlay", "base-url", "ca-bundle", "kubectl", "only-api-group"));
      f.required("kubeconfig");
      f.required("overlay");
      f.required("base-url");
      f.required("ca-bundle");
    } catch (IllegalArgumentException e) {
      System.err.println("InstallManifests: " + e.getMessage());
      System.err.println(USAGE);
      System.exit(2);
      return;
    }
    try {
      Path kubeconfig = Path.of(f.required("kubeconfig"));
      String envDir = System.getenv("CONTROLPLANE_DIR");
      Path kubectlBin =
          f.optional("kubectl", null) != null
              ? Path.of(f.optional("kubectl", null))
              : Kubectl.locate(envDir == null ? null : Path.of(envDir));
      Config config = Config.fromKubeconfig(kubeconfig.toAbsolutePath().toFile());
      try (KubernetesClient client = dev.ironcore.maintenance.api.json.JsonMappers.client(config)) {
        new WebhookInstaller(client, new Kubectl(kubectlBin, kubeconfig))
            .install(
                Path.of(f.required("overlay")),
                f.required("base-url"),
                Files.readString(Path.of(f.required("ca-bundle"))),
                f.optional("only-api-group", null));
      }
    } catch (IOException | RuntimeException e) {
      System.err.println("InstallManifests: " + e);
      System.exit(1);
    }
  }
}
