package dev.ironcore.maintenance.devtools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.testkit.ManifestPaths;
import dev.ironcore.maintenance.testkit.RenderedManifests;
import dev.ironcore.maintenance.testkit.SharedControlPlane;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * hack/uninstall.sh names the objects it deletes; they must be exactly the webhook configurations,
 * workloads and RBAC that manifests/default (and the two-cluster overlays) install, so a renamed or
 * added object is not left behind by {@code make uninstall} (review, session 41).
 */
class UninstallNamesTest {
  private static final Set<String> KINDS =
      Set.of(
          "mutatingwebhookconfiguration",
          "validatingwebhookconfiguration",
          "deployment",
          "service",
          "poddisruptionbudget",
          "clusterrole",
          "clusterrolebinding",
          "role",
          "rolebinding");

  private static Set<String> installed(String overlay) {
    Set<String> out = new TreeSet<>();
    for (GenericKubernetesResource r :
        RenderedManifests.render(
            SharedControlPlane.get().kubectlTool(), ManifestPaths.overlay(overlay))) {
      String kind = r.getKind().toLowerCase(Locale.ROOT);
      if (KINDS.contains(kind)) {
        String ns = r.getMetadata().getNamespace();
        out.add(kind + " " + r.getMetadata().getName() + (ns == null ? "" : " " + ns));
      }
    }
    return out;
  }

  @Test
  void theScriptDeletesExactlyWhatTheManifestsInstall() throws Exception {
    Path repo = ManifestPaths.overlay("default").getParent().getParent();
    String script = Files.readString(repo.resolve("hack/uninstall.sh"));
    Set<String> named = new TreeSet<>();
    Matcher m =
        Pattern.compile("^\\s*\"([a-z]+) ([a-z0-9.-]+)(?: \\$([A-Z_]+))?\"\\s*$", Pattern.MULTILINE)
            .matcher(script);
    while (m.find()) {
      String ns =
          m.group(3) == null
              ? ""
              : " "
                  + switch (m.group(3)) {
                    case "NAMESPACE" -> "ironcore-maintenance-system";
                    case "LEASE_NAMESPACE" -> "ironcore-machinepool-lease";
                    default -> throw new AssertionError("unknown variable " + m.group(3));
                  };
      named.add(m.group(1) + " " + m.group(2) + ns);
    }
    Set<String> installed = new TreeSet<>();
    for (String overlay : List.of("default", "two-clusters/capi", "two-clusters/ironcore")) {
      installed.addAll(installed(overlay));
    }
    assertThat(named).as("objects hack/uninstall.sh deletes").isEqualTo(installed);
  }
}
