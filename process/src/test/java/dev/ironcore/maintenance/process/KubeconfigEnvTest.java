package dev.ironcore.maintenance.process;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeconfigEnvTest {
  @TempDir Path dir;

  @Test
  void unsetOrEmptyLeavesTheClientsOwnDiscovery() {
    assertThatCode(() -> KubeconfigEnv.check(Map.of())).doesNotThrowAnyException();
    assertThatCode(() -> KubeconfigEnv.check(Map.of("KUBECONFIG", ""))).doesNotThrowAnyException();
  }

  @Test
  void everyNamedFileMustExist() throws Exception {
    Path present = Files.writeString(dir.resolve("config"), "apiVersion: v1\n");
    assertThatCode(() -> KubeconfigEnv.check(Map.of("KUBECONFIG", present.toString())))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> KubeconfigEnv.check(Map.of("KUBECONFIG", "/nonexistent")))
        .hasMessageStartingWith("KUBECONFIG names /nonexistent, which does not exist");
    assertThatThrownBy(
            () -> KubeconfigEnv.check(Map.of("KUBECONFIG", present + ":" + dir.resolve("gone"))))
        .hasMessageContaining(dir.resolve("gone") + ", which does not exist");
    assertThatThrownBy(() -> KubeconfigEnv.check(Map.of("KUBECONFIG", dir.toString())))
        .hasMessageContaining("is not a readable file");
  }
}
