package dev.ironcore.maintenance.controller.drain;

import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import java.time.Clock;
import java.util.ArrayList;

/**
 * What the pool shows while a drain's own write keeps failing (an admission webhook or policy
 * refusing it, the API server answering 5xx), as a pure function: the {@code Draining} condition
 * names the failing write, and once the drain has held the pre-drain hook longer than {@code
 * --drain-timeout} the condition turns {@code DrainStuck} and a {@code DrainStuck} Warning is
 * recorded on the CAPI Machine on that transition, as for a drain that Machines block. The hook
 * stays either way; the failure itself is reported by its {@code DrainWriteFailed} Warnings.
 *
 * <p>Fresh eyes (session 38): a drain whose taint write kept failing was never reported stuck (no
 * taint, so no clock), and a refused hook removal stayed {@code Draining} for good.
 */
public final class FailingWrite {
  private FailingWrite() {}

  /**
   * @param capi the deleting CAPI Machine whose drain wrote
   * @param pool the drained pool, or null (nothing to show then: the outcome has no condition)
   * @param step the step whose write failed: {@link DrainStep.AddTaints} or {@link
   *     DrainStep.RemoveHook}
   * @param policy {@code --drain-timeout} (zero: never stuck)
   * @param clock the time the hold is measured against (from the drain's taint, else the deletion)
   * @return the condition to set and the {@code DrainStuck} event ({@link
   *     DrainEvent.When#REASON_CHANGED}) once past the timeout; requeue as a held drain
   * @throws IllegalArgumentException for another step
   */
  public static DrainOutcome outcome(
      CapiMachine capi, MachinePool pool, DrainStep step, DrainPolicy policy, Clock clock) {
    String key = DrainDecision.key(capi);
    String message;
    if (step instanceof DrainStep.AddTaints) {
      message = taintingFailing(key);
    } else if (step instanceof DrainStep.RemoveHook) {
      message = hookRemovalFailing(key);
    } else {
      throw new IllegalArgumentException("not a drain write that is shown on the pool: " + step);
    }
    if (pool == null) {
      return DrainOutcome.of(step);
    }
    return DrainDecision.untilTimeout(
        step,
        pool.getMetadata().getName(),
        message,
        MaintenanceCondition.draining(message),
        new ArrayList<>(),
        policy.drainTimeout(),
        DrainDecision.Hold.of(capi, pool, clock.instant()));
  }

  /**
   * Whether the pool is to show the failing write: not when the write got no answer from the API
   * server the condition goes to as well (the IronCore one: always for the taints; for the hook's
   * removal when one API server holds both), since the condition's write would wait out a second
   * request timeout there, holding the drain worker twice as long (140 s instead of 70 s); the
   * {@code DrainWriteFailed} Event on the CAPI Machine still says why.
   *
   * @param step {@link DrainStep.AddTaints} (writes the pool) or {@link DrainStep.RemoveHook}
   *     (writes the CAPI Machine)
   * @param unanswered the write got no answer ({@code ApiFailure.unanswered})
   * @param oneApiServer CAPI Machines and MachinePools live in the same API server
   */
  public static boolean shown(DrainStep step, boolean unanswered, boolean oneApiServer) {
    boolean sameServer = step instanceof DrainStep.AddTaints || oneApiServer;
    return !(unanswered && sameServer);
  }

  /** The {@code Draining} message while the removal of CAPI Machine {@code key}'s hook fails. */
  static String hookRemovalFailing(String key) {
    return "no bound Machine blocks the maintenance taint; removing the pre-drain hook from CAPI"
        + " Machine "
        + key
        + " failed, retrying (its DrainWriteFailed events say why)";
  }

  /** The {@code Draining} message while the drain of CAPI Machine {@code key} cannot taint. */
  static String taintingFailing(String key) {
    return "adding the maintenance taints failed, retrying (the DrainWriteFailed events of CAPI"
        + " Machine "
        + key
        + " say why); nothing is evicted until they are on, and the pre-drain hook is held";
  }
}
