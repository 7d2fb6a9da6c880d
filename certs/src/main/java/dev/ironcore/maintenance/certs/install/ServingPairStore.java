package dev.ironcore.maintenance.certs.install;

import java.util.Optional;

/**
 * Where the running webhook server(s) read their serving pair from: the {@code kubernetes.io/tls}
 * Secret of a cluster install ({@link SecretPairStore}) or the PEM files of a local run ({@link
 * FilePairStore}).
 */
public interface ServingPairStore {

  /**
   * The stored PEM text, as is (not validated).
   *
   * @return empty when nothing is stored yet
   * @throws Refusal when the store exists but cannot hold a serving pair (e.g. a Secret of another
   *     type)
   */
  Optional<StoredPair> read();

  /**
   * Checks, before anything changes, that {@link #write} can succeed as far as that can be told
   * without writing (a directory's permissions); nothing for a cluster's Secret.
   *
   * @throws Refusal when it cannot
   */
  default void requireWritable() {}

  /** Replaces the stored pair (both halves at once, as far as the store allows). */
  void write(String certificatePem, String privateKeyPem);

  /** E.g. {@code Secret ns/name} or {@code files /path/tls.crt, /path/tls.key}. */
  String describe();

  /**
   * @return false when the store spans several places that hold different pairs (a write cut
   *     short): the pair is then written again
   */
  default boolean consistent() {
    return true;
  }

  /**
   * PEM text as stored; either part may be null when missing.
   *
   * @param certificatePem {@code tls.crt}
   * @param privateKeyPem {@code tls.key}
   */
  record StoredPair(String certificatePem, String privateKeyPem) {}
}
