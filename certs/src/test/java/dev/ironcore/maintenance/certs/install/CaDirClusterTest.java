package dev.ironcore.maintenance.certs.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CaDirClusterTest {
  @TempDir Path dir;

  /**
   * Fresh eyes (session 41): two clusters whose contexts share a name shared .certs/<context>, and
   * the second one's make certs moved its webhooks onto the first one's CA without a word.
   */
  @Test
  void aCaDirectoryRecordedForOneClusterIsRefusedForAnother() throws Exception {
    Path ca = Files.createDirectories(dir.resolve("kubernetes-admin@kubernetes"));
    assertThat(CaDirCluster.mismatch(ca, List.of("uid-a"))).as("no record yet").isEmpty();
    CaDirCluster.record(ca, List.of("uid-a"));
    assertThat(Files.readString(ca.resolve(CaDirCluster.FILE))).isEqualTo("uid-a\n");
    assertThat(CaDirCluster.mismatch(ca, List.of("uid-a"))).isEmpty();
    assertThat(CaDirCluster.mismatch(ca, List.of("uid-b")))
        .contains(
            "the CA in "
                + ca
                + " was made for another cluster (namespace kube-system uid uid-a; this one:"
                + " uid-b): kubeconfigs of different clusters whose current contexts have one"
                + " name share .certs/<context>; give this cluster a CA directory of its own"
                + " (CERTS_DIR=)");
    CaDirCluster.record(ca, List.of("uid-b"));
    assertThat(Files.readString(ca.resolve(CaDirCluster.FILE)))
        .as("a record is never replaced")
        .isEqualTo("uid-a\n");
  }

  @Test
  void twoClustersAreOneRecordInAnyOrderAndAMissingDirectoryIsLeftAlone() throws Exception {
    Path ca = Files.createDirectories(dir.resolve("two"));
    CaDirCluster.record(ca, List.of("uid-z", "uid-a"));
    assertThat(CaDirCluster.mismatch(ca, List.of("uid-a", "uid-z"))).isEmpty();
    // fresh eyes (session 43): a later run without the IronCore cluster's kubeconfig was told to
    // give this cluster a CA directory of its own
    assertThat(CaDirCluster.mismatch(ca, List.of("uid-a")))
        .contains(
            "the CA in "
                + ca
                + " was made for the two clusters of a two-cluster install (namespace kube-system"
                + " uid uid-a, uid-z), this one among them: give the other cluster's kubeconfig"
                + " too, as when it was made (IRONCORE_KUBECONFIG=, docs/two-clusters.md)");
    Path one = Files.createDirectories(dir.resolve("one"));
    CaDirCluster.record(one, List.of("uid-a"));
    assertThat(CaDirCluster.mismatch(one, List.of("uid-z", "uid-a")))
        .contains(
            "the CA in "
                + one
                + " was made for this cluster alone (namespace kube-system uid uid-a; this run's"
                + " two clusters: uid-a, uid-z): a two-cluster install gets a CA directory of its"
                + " own (CERTS_DIR=), or run without IRONCORE_KUBECONFIG for this cluster alone");
    assertThat(CaDirCluster.mismatch(one, List.of("uid-z", "uid-b")))
        .hasValueSatisfying(m -> assertThat(m).contains("was made for another cluster"));
    Path missing = dir.resolve("missing");
    CaDirCluster.record(missing, List.of("uid-a"));
    assertThat(missing).doesNotExist();
  }
}
