package dev.ironcore.maintenance.image;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.testkit.ManifestPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The training cluster's CRDs: the shipped ones, but converting without the webhook. */
class AotTrainingTest {
  @Test
  void theShippedCrdsLoseOnlyTheirConversionWebhook() throws Exception {
    Path crd = ManifestPaths.overlay("crds").resolve("compute.ironcore.dev_machines.yaml");
    String shipped = Files.readString(crd);
    assertThat(shipped).contains("strategy: Webhook").contains("path: /convert");

    String training = AotTraining.withoutConversionWebhook(shipped);

    assertThat(training)
        .contains("  conversion:\n    strategy: None\n  versions:\n")
        .doesNotContain("strategy: Webhook")
        .doesNotContain("path: /convert");
    // everything else unchanged: the versions and their schemas
    assertThat(training.substring(training.indexOf("  versions:")))
        .isEqualTo(shipped.substring(shipped.indexOf("  versions:")));
  }
}
