package dev.ironcore.maintenance.certs.install;

import dev.ironcore.maintenance.certs.CaBundle;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Every {@code caBundle} through which the API server trusts the webhook server, and where its
 * calls go: {@link ClusterTrust} reads and writes them in the cluster(s).
 */
public interface TrustStore {
  /**
   * @return every caBundle with its call target, and notes worth printing
   * @throws Refusal when an object that must exist does not
   */
  ClusterTrust.Snapshot read();

  /**
   * Sets each caBundle to {@code change.apply(current)}.
   *
   * @return one line per changed object, saying what changed
   */
  List<String> update(UnaryOperator<CaBundle> change);
}
