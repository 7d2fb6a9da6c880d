package dev.ironcore.maintenance.server.conversion;

import dev.ironcore.maintenance.api.Names;
import java.util.List;

/** The served versions of {@code compute.ironcore.dev} and which of them is the hub. */
public final class ComputeVersions {
  /** IronCore's version: no {@code tolerationSeconds}, no {@code timeAdded}. */
  public static final String V1ALPHA1 = Names.COMPUTE_GROUP + "/v1alpha1";

  /** Ours, the storage (hub) version: adds {@code tolerationSeconds} and {@code timeAdded}. */
  public static final String V1ALPHA2 = Names.COMPUTE_GROUP + "/v1alpha2";

  /** Every apiVersion the converter reads and writes. */
  public static final List<String> ALL = List.of(V1ALPHA1, V1ALPHA2);

  private ComputeVersions() {}
}
