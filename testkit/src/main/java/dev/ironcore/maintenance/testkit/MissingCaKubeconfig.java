package dev.ironcore.maintenance.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A kubeconfig whose {@code certificate-authority} is {@code pki/ca.crt} beside it, a file that
 * does not exist: fabric8 parses it, and fails only when it builds a client (the case where it said
 * "An error has occurred." with the path alone).
 */
public final class MissingCaKubeconfig {
  private MissingCaKubeconfig() {}

  /**
   * Writes it.
   *
   * @param file where (its directory must not hold {@code pki/ca.crt})
   * @param port the API server port it names on 127.0.0.1 (nothing needs to listen there)
   * @return {@code file}
   */
  public static Path write(Path file, int port) throws IOException {
    return Files.writeString(
        file,
        "apiVersion: v1\nkind: Config\n"
            + "clusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:"
            + port
            + "', certificate-authority: pki/ca.crt}\n"
            + "users:\n- name: u\n  user: {token: t}\n"
            + "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n");
  }
}
