package dev.ironcore.maintenance.certs.install;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Which clusters a CA directory's CA was made for: the file {@value #FILE} in it, the {@code uid}s
 * of their {@code kube-system} namespaces ({@link ClusterIdentity}), sorted, one per line. {@code
 * make certs} names a cluster's CA directory after the kubeconfig's current context, and contexts
 * of different clusters often share a name (kubeadm's {@code kubernetes-admin@kubernetes}): without
 * this record a second cluster's run took the first one's CA and moved its webhooks onto it (fresh
 * eyes, session 41).
 */
final class CaDirCluster {
  /** The record's file name in the CA directory. */
  static final String FILE = "clusters";

  private CaDirCluster() {}

  /**
   * Why {@code caDir} may not be used for the clusters {@code uids}: its record names others.
   *
   * @param caDir the CA directory (need not exist)
   * @param uids the {@code kube-system} uids of the clusters of this run
   * @return one line naming the directory and both sets of uids; empty when the record matches, or
   *     there is none (a new directory, or one from before this record: adopted by {@link #record})
   * @throws IOException when the record exists and cannot be read
   */
  static Optional<String> mismatch(Path caDir, List<String> uids) throws IOException {
    Path file = caDir.resolve(FILE);
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    TreeSet<String> recorded = new TreeSet<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (!line.isBlank()) {
        recorded.add(line.strip());
      }
    }
    TreeSet<String> now = new TreeSet<>(uids);
    if (recorded.isEmpty() || recorded.equals(now)) {
      return Optional.empty();
    }
    String where = "the CA in " + caDir + " was made for ";
    String uidsOf = " (namespace " + ClusterIdentity.NAMESPACE + " uid ";
    if (recorded.size() > 1 && recorded.containsAll(now)) {
      // fresh eyes (session 43): a two-cluster install's later run without the IronCore cluster's
      // kubeconfig was told to use another CA directory
      return Optional.of(
          where
              + "the two clusters of a two-cluster install"
              + uidsOf
              + String.join(", ", recorded)
              + "), this one among them: give the other cluster's kubeconfig too, as when it was"
              + " made (IRONCORE_KUBECONFIG=, docs/two-clusters.md)");
    }
    if (now.size() > 1 && now.containsAll(recorded)) {
      return Optional.of(
          where
              + "this cluster alone"
              + uidsOf
              + String.join(", ", recorded)
              + "; this run's two clusters: "
              + String.join(", ", now)
              + "): a two-cluster install gets a CA directory of its own (CERTS_DIR=), or run"
              + " without IRONCORE_KUBECONFIG for this cluster alone");
    }
    return Optional.of(
        where
            + "another cluster"
            + uidsOf
            + String.join(", ", recorded)
            + "; this one: "
            + String.join(", ", now)
            + "): kubeconfigs of different clusters whose current contexts have one name share"
            + " .certs/<context>; give this cluster a CA directory of its own (CERTS_DIR=)");
  }

  /**
   * Writes the record of {@code uids} into {@code caDir} when it exists and has none (atomically: a
   * temporary file moved into place).
   */
  static void record(Path caDir, List<String> uids) throws IOException {
    Path file = caDir.resolve(FILE);
    if (!Files.isDirectory(caDir) || Files.exists(file) || uids.isEmpty()) {
      return;
    }
    Path tmp = Files.createTempFile(caDir, FILE, ".tmp");
    Files.writeString(tmp, String.join("\n", new TreeSet<>(uids)) + "\n", StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}
