package dev.ironcore.maintenance.certs.install;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The same serving pair in several stores, e.g. the Secret in each of two clusters that both run
 * the webhook server: read from the first, written to all (in order).
 */
public final class MultiPairStore implements ServingPairStore {
  private final List<ServingPairStore> stores;

  /**
   * @param stores at least one
   */
  public MultiPairStore(List<ServingPairStore> stores) {
    if (stores.isEmpty()) {
      throw new IllegalArgumentException("no store");
    }
    this.stores = List.copyOf(stores);
  }

  @Override
  public Optional<StoredPair> read() {
    Optional<StoredPair> first = Optional.empty();
    for (int i = 0; i < stores.size(); i++) {
      Optional<StoredPair> p = stores.get(i).read(); // each checked (e.g. Secret type)
      if (i == 0) {
        first = p;
      }
    }
    return first;
  }

  @Override
  public boolean consistent() {
    Optional<StoredPair> first = stores.get(0).read();
    return stores.stream().allMatch(s -> s.read().equals(first));
  }

  @Override
  public void write(String certificatePem, String privateKeyPem) {
    stores.forEach(s -> s.write(certificatePem, privateKeyPem));
  }

  /**
   * E.g. {@code Secret ns/tls in cluster 1 and Secret ns/tls in cluster 2}, numbered in the order
   * given, as the caBundle lines number the clusters (fresh eyes: the two Secrets read alike).
   */
  @Override
  public String describe() {
    return java.util.stream.IntStream.range(0, stores.size())
        .mapToObj(i -> stores.get(i).describe() + " in cluster " + (i + 1))
        .collect(Collectors.joining(" and "));
  }
}
