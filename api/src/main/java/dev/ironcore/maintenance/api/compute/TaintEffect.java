package dev.ironcore.maintenance.api.compute;

import java.util.List;

/** Taint effects supported by IronCore ({@code compute.ironcore.dev}, IEP-21). */
public final class TaintEffect {
  private TaintEffect() {}

  /** New Machines that do not tolerate the taint are not scheduled onto the pool. */
  public static final String NO_SCHEDULE = "NoSchedule";

  /** Bound Machines that do not tolerate the taint are evicted (deleted). */
  public static final String NO_EXECUTE = "NoExecute";

  /** Every supported effect, in the order error messages list them. */
  public static final List<String> SUPPORTED = List.of(NO_SCHEDULE, NO_EXECUTE);
}
