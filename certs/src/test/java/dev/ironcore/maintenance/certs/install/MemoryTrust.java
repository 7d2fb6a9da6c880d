package dev.ironcore.maintenance.certs.install;

import dev.ironcore.maintenance.certs.CaBundle;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * caBundles held in memory, for tests of {@link CertificateInstall} without a cluster: each slot
 * calls the given URL, as {@code make run}'s webhook configurations call {@code
 * https://127.0.0.1:PORT}.
 */
final class MemoryTrust implements TrustStore {
  private final List<TrustSlot> slots = new ArrayList<>();

  /**
   * @param entries webhook names, each a slot of {@code MutatingWebhookConfiguration test}
   * @param url where each calls
   */
  MemoryTrust(String url, String... entries) {
    for (String e : entries) {
      slots.add(
          new TrustSlot(
              "MutatingWebhookConfiguration test",
              e,
              CaBundle.empty(),
              new TrustSlot.Endpoint(0, url, null, null, 443)));
    }
  }

  /** The bundles now, in slot order. */
  List<CaBundle> bundles() {
    return slots.stream().map(TrustSlot::bundle).toList();
  }

  @Override
  public ClusterTrust.Snapshot read() {
    return new ClusterTrust.Snapshot(List.copyOf(slots), List.of());
  }

  @Override
  public List<String> update(UnaryOperator<CaBundle> change) {
    List<String> done = new ArrayList<>();
    for (int i = 0; i < slots.size(); i++) {
      TrustSlot s = slots.get(i);
      CaBundle next = change.apply(s.bundle());
      if (!next.pem().equals(s.bundle().pem())) {
        slots.set(i, new TrustSlot(s.owner(), s.entry(), next, s.endpoint()));
        done.add(s.describe() + ": caBundle updated");
      }
    }
    return done;
  }
}
