package dev.ironcore.maintenance.controller.drain;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.Taint;
import dev.ironcore.maintenance.api.compute.TaintEffect;
import dev.ironcore.maintenance.api.compute.TimeAdded;
import dev.ironcore.maintenance.api.compute.Toleration;
import dev.ironcore.maintenance.api.compute.Tolerations;
import dev.ironcore.maintenance.controller.eviction.EvictionDecision;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The drain of a CAPI Machine's MachinePool as a pure function (domain reference §5, after {@code
 * ironcore-dev/pool-lifecycle-controller}): given what was observed, the single next step ({@link
 * #next}) and, with the drain policy and the time, what operators are told about it ({@link
 * #decide}: the pool's {@code Maintenance} condition, events, when to look again).
 */
public final class DrainDecision {
  /**
   * The taints the drain puts on a pool: {@code maintenance.ironcore.dev} with NoSchedule and
   * NoExecute.
   */
  public static final List<Taint> MAINTENANCE_TAINTS =
      List.of(
          new Taint(Names.MAINTENANCE_TAINT_KEY, null, TaintEffect.NO_SCHEDULE),
          new Taint(Names.MAINTENANCE_TAINT_KEY, null, TaintEffect.NO_EXECUTE));

  /** {@link DrainStep.Release} reason: the Machine has no {@code status.nodeRef}. */
  public static final String NO_NODE = "no status.nodeRef, so no pool to drain";

  /**
   * {@link DrainStep.Release} reason: someone else removed our finalizer from the deleting Machine
   * (a forced deletion); its pre-drain hook is released so that CAPI is not held for good.
   */
  public static final String FINALIZER_REMOVED =
      "finalizer "
          + Names.CLEANUP_FINALIZER
          + " was removed during the deletion, not by this controller";

  /** {@link DrainStep.Release} reason: the selector no longer selects the Machine. */
  public static final String NOT_SELECTED = "--capi-machine-selector no longer selects it";

  /** How often a held drain is re-checked even without events. */
  public static final Duration HOLD_RECHECK = Duration.ofSeconds(10);

  /** How often a queued drain looks for a free slot even without events. */
  public static final Duration QUEUE_RECHECK = Duration.ofSeconds(2);

  /** How many blocking Machines a message names before "and N more". */
  static final int NAMED_MACHINES = 5;

  private DrainDecision() {}

  /**
   * The next step for {@code in} under {@code policy}, with the condition, events and requeue that
   * go with it (domain reference §5, "Operator surface"):
   *
   * <ul>
   *   <li>tainting is deferred ({@link DrainStep.Queue}, {@code DrainQueued}) while {@code
   *       --max-concurrent-drains} other pools drain ({@link DrainBudget}); a {@code DrainQueued}
   *       Event on the CAPI Machine marks the transition into the queue;
   *   <li>tainting records {@code DrainStarted} on the CAPI Machine right before the taints are
   *       added ({@link DrainEvent.When#BEFORE_WRITE}, as every event of a step's write: a crash
   *       cannot lose it);
   *   <li>a hold sets {@code Draining} (naming the blocking Machines) and records {@code
   *       DrainBlocked} every pass (one Event per distinct set, its count growing; the reconciler
   *       writes a changed set at most every 2 s, {@link ProgressThrottle}); held longer than
   *       {@code --drain-timeout} since the drain started ({@link #taintedAt}, else the CAPI
   *       Machine's {@code deletionTimestamp}) it sets {@code DrainStuck} and records a {@code
   *       DrainStuck} Warning on the transition only; the hook stays;
   *   <li>releasing the hook sets {@code Drained} and records {@code DrainCompleted}; a missing
   *       pool with Machines still bound to its name records a {@code PoolMissing} Warning;
   *   <li>a hook removed by someone else while Machines still block records {@code
   *       DrainHookRemoved} (Warning); deleting the pool records {@code PoolDeleted};
   *   <li>a pool that another CAPI Machine, not being deleted, also names in {@code status.nodeRef}
   *       is not tainted: the hook is held with {@code DrainHeld} (then {@code DrainStuck} past
   *       {@code --drain-timeout}, as a blocked drain) and a {@code PoolShared} Warning every pass,
   *       and the pool is kept with {@code PoolKept} once CAPI is done;
   *   <li>waiting for CAPI and deleting the pool set {@code Drained} again when the pool does not
   *       show it (a crash between releasing the hook and writing the condition), so a pool is
   *       never deleted showing {@code Draining}.
   * </ul>
   *
   * @param clock the time a hold is measured against
   */
  /**
   * How much later than the CAPI Machine's deletion a drain must have started for its {@code
   * DrainCompleted} to name the time since the deletion too: 5 s. The taint of a drain that did not
   * wait is written a second or two after the deletion (its {@code timeAdded} in whole seconds), a
   * difference that would show now and then and mean nothing (fresh eyes: "drained in 49s (50s
   * since the CAPI Machine's deletion)" for a drain that never waited).
   */
  static final Duration STARTED_LATER = Duration.ofSeconds(5);

  /**
   * {@code " (N since the CAPI Machine's deletion)"} when the drain started ({@code since}, its
   * taint) at least {@link #STARTED_LATER} after the deletion and the two times read differently
   * (the drain waited for a slot or for a write the API server failed, and {@code
   * ironcore_maintenance_drain_duration_seconds} counts from the deletion); else empty.
   */
  private static String sinceDeletion(
      Instant deletedAt, Instant since, Duration held, Instant now) {
    if (deletedAt == null
        || since == null
        || Duration.between(deletedAt, since).compareTo(STARTED_LATER) < 0) {
      return "";
    }
    String total = HumanDuration.of(Duration.between(deletedAt, now));
    return total.equals(HumanDuration.of(held))
        ? ""
        : " (" + total + " since the CAPI Machine's deletion)";
  }

  public static DrainOutcome decide(DrainInput in, DrainPolicy policy, Clock clock) {
    DrainStep step = next(in);
    CapiMachine capi = in.capiMachine();
    Instant now = clock.instant();
    Hold hold = Hold.of(capi, in.pool(), now);
    Instant deletedAt = hold.deletedAt();
    Instant tainted = hold.tainted();
    Instant since = hold.since();
    Duration held = hold.held();
    List<DrainEvent> events = new ArrayList<>();
    if (step instanceof DrainStep.AddTaints s) {
      DrainBudget.Verdict v =
          DrainBudget.check(key(capi), in.fleet(), policy.maxConcurrentDrains());
      if (!v.admitted()) {
        String message =
            "waiting for a free drain slot (--max-concurrent-drains="
                + policy.maxConcurrentDrains()
                + "): "
                + (v.slotsInUse() == 0
                    ? "the drains ahead in the queue start first"
                    : String.join(
                        "; ",
                        java.util.stream.Stream.of(
                                v.inProgress().isEmpty()
                                    ? ""
                                    : "draining " + String.join(", ", v.inProgress()),
                                String.join(", ", v.released()))
                            .filter(part -> !part.isEmpty())
                            .toList()))
                + "; position "
                + v.position()
                + " in the queue";
        events.add(
            DrainEvent.normal(
                DrainEvent.Subject.CAPI_MACHINE,
                DrainEvent.QUEUED,
                // written once: the position as the wait began; drains deleted in the same
                // second may still come in ahead (fresh eyes: "position 1" beside a condition
                // saying 2)
                "pool "
                    + s.pool()
                    + ": "
                    + message
                    + " as the wait began (the pool's Maintenance condition keeps it current)",
                DrainEvent.When.REASON_CHANGED));
        return new DrainOutcome(
            new DrainStep.Queue(s.pool(), v.position(), v.inProgress()),
            MaintenanceCondition.queued(message),
            events,
            QUEUE_RECHECK);
      }
      events.add(
          DrainEvent.normal(
              DrainEvent.Subject.CAPI_MACHINE,
              DrainEvent.STARTED,
              "tainting pool "
                  + s.pool()
                  + " with "
                  + Names.MAINTENANCE_TAINT_KEY
                  + (s.missing().size() == MAINTENANCE_TAINTS.size()
                      ? ":NoSchedule and :NoExecute"
                      : ":"
                          + s.missing().get(0).getEffect()
                          + " (it already carries :"
                          + (TaintEffect.NO_SCHEDULE.equals(s.missing().get(0).getEffect())
                              ? TaintEffect.NO_EXECUTE + carriedSince(in.pool())
                              : TaintEffect.NO_SCHEDULE)
                          + ")")
                  + "; Machines that do not tolerate it are evicted",
              DrainEvent.When.BEFORE_WRITE));
      return new DrainOutcome(step, null, events, null);
    }
    DrainEvent foundTainted = foundTainted(in.pool(), tainted, deletedAt, now);
    if (step instanceof DrainStep.Hold s) {
      String waiting = waitingFor(s.blockingMachines());
      if (foundTainted != null) {
        events.add(foundTainted);
      }
      events.add(
          DrainEvent.normal(
              DrainEvent.Subject.CAPI_MACHINE,
              DrainEvent.BLOCKED,
              "pool " + s.pool() + ": " + waiting,
              DrainEvent.When.EVERY_PASS));
      return untilTimeout(
          step,
          s.pool(),
          waiting,
          // since when, on the condition only (constant, so no further write): kubectl shows how
          // long a drain has been going (fresh eyes, session 47: only DrainStuck said). The pool's
          // taint time, not this drain's: two CAPI Machines naming one pool, deleted on either
          // side of it, would rewrite each other's message (review, session 47)
          MaintenanceCondition.draining(waiting + taintedSince(in.pool(), now)),
          events,
          policy.drainTimeout(),
          hold);
    }
    if (step instanceof DrainStep.SharedPool s) {
      boolean taintedPool = carriesMaintenanceTaint(in.pool());
      String shared =
          "not draining pool "
              + s.pool()
              + ": it is also the status.nodeRef of "
              + capiMachines(s.liveCapiMachines())
              + ", not being deleted (a nodeRef written by hand; draining would evict that"
              + " Machine's VMs and delete its pool); the pre-drain hook is kept until no other"
              + " live CAPI Machine names the pool (correct that nodeRef, or delete that CAPI"
              + " Machine)"
              + (taintedPool
                  ? "; the "
                      + Names.MAINTENANCE_TAINT_KEY
                      + " taints already on the pool stay, and Machines that do not tolerate them"
                      + " are still evicted: remove them if that Machine's node stays in service"
                  : "");
      events.add(
          DrainEvent.warning(
              DrainEvent.Subject.CAPI_MACHINE,
              DrainEvent.POOL_SHARED,
              shared,
              DrainEvent.When.EVERY_PASS));
      return untilTimeout(
          step,
          s.pool(),
          shared,
          MaintenanceCondition.held(shared),
          events,
          policy.drainTimeout(),
          hold);
    }
    if (step instanceof DrainStep.RemoveHook s) {
      if (s.poolMissing()) {
        List<String> bound = names(in.boundMachines());
        if (!bound.isEmpty()) {
          events.add(
              DrainEvent.warning(
                  DrainEvent.Subject.CAPI_MACHINE,
                  DrainEvent.POOL_MISSING,
                  "pool "
                      + s.pool()
                      + " does not exist, but "
                      + count(bound.size())
                      + " still bound to it: "
                      + firstFew(bound)
                      + "; releasing the pre-drain hook",
                  DrainEvent.When.BEFORE_WRITE));
        }
        events.add(
            DrainEvent.normal(
                DrainEvent.Subject.CAPI_MACHINE,
                DrainEvent.COMPLETED,
                "pool " + s.pool() + " does not exist: removing the pre-drain hook",
                DrainEvent.When.BEFORE_WRITE));
        return new DrainOutcome(step, null, events, null);
      }
      if (foundTainted != null) {
        events.add(foundTainted.at(DrainEvent.When.BEFORE_WRITE));
      }
      events.add(
          DrainEvent.normal(
              DrainEvent.Subject.CAPI_MACHINE,
              DrainEvent.COMPLETED,
              "pool "
                  + s.pool()
                  + " drained in "
                  + HumanDuration.of(held)
                  + sinceDeletion(deletedAt, since, held, now)
                  + ": removing the pre-drain hook, so CAPI may drain and delete the node"
                  + staying(
                      names(in.boundMachines().stream().filter(m -> !isDeleting(m)).toList())),
              DrainEvent.When.BEFORE_WRITE));
      return new DrainOutcome(step, MaintenanceCondition.drained(DRAINED_MESSAGE), events, null);
    }
    if (step instanceof DrainStep.Release s && FINALIZER_REMOVED.equals(s.reason())) {
      events.add(
          DrainEvent.warning(
              DrainEvent.Subject.CAPI_MACHINE,
              DrainEvent.CANCELLED,
              FINALIZER_REMOVED
                  + ": drain cancelled, releasing the pre-drain hook, so CAPI may drain and"
                  + " delete the node"
                  + (capi.nodeName() == null
                      ? ""
                      : "; Machines still bound to pool "
                          + capi.nodeName()
                          + " are not waited for"
                          // fresh eyes, session 47: only the pool's event said so
                          + (in.pool() != null && carriesMaintenanceTaint(in.pool())
                              ? "; its "
                                  + Names.MAINTENANCE_TAINT_KEY
                                  + " taints stay: remove them if the node stays in service"
                              : "")),
              DrainEvent.When.BEFORE_WRITE));
      return new DrainOutcome(step, null, events, null);
    }
    if (step instanceof DrainStep.Release s && NO_NODE.equals(s.reason())) {
      // also when status.nodeRef was removed mid-drain: the pool's DrainCancelled names the pool
      events.add(
          DrainEvent.normal(
              DrainEvent.Subject.CAPI_MACHINE,
              DrainEvent.COMPLETED,
              NO_NODE + ": releasing the pre-drain hook, so CAPI may delete the Machine",
              DrainEvent.When.BEFORE_WRITE));
      return new DrainOutcome(step, null, events, null);
    }
    if (step instanceof DrainStep.SparePool s && !s.liveCapiMachines().isEmpty()) {
      events.add(
          DrainEvent.warning(
              DrainEvent.Subject.CAPI_MACHINE,
              DrainEvent.POOL_KEPT,
              "CAPI is done with the node, but MachinePool "
                  + s.pool()
                  + " is also the status.nodeRef of "
                  + capiMachines(s.liveCapiMachines())
                  + ", not being deleted: not deleting it"
                  + (carriesMaintenanceTaint(in.pool())
                      ? "; its "
                          + Names.MAINTENANCE_TAINT_KEY
                          + " taints stay: remove them if that Machine's node stays in service"
                      : ""),
              DrainEvent.When.BEFORE_WRITE));
      return new DrainOutcome(step, null, events, null);
    }
    if (step instanceof DrainStep.SparePool s) {
      events.add(
          DrainEvent.warning(
              DrainEvent.Subject.CAPI_MACHINE,
              DrainEvent.POOL_KEPT,
              "MachinePool "
                  + s.pool()
                  + " was created at "
                  + in.pool().getMetadata().getCreationTimestamp()
                  + ", after this CAPI Machine's deletion, and never drained: not deleting it"
                  + " (the drained pool of that name was deleted by someone else); delete it"
                  + " yourself if its node is gone",
              DrainEvent.When.BEFORE_WRITE));
      return new DrainOutcome(step, null, events, null);
    }
    if (step instanceof DrainStep.WaitForCapi || step instanceof DrainStep.DeletePool) {
      java.util.Optional<DrainEvent> removedByOthers = hookRemovedByOthers(in);
      removedByOthers.ifPresent(events::add);
      // a crash right after the hook's release may have left Draining: say Drained again
      MaintenanceCondition condition =
          removedByOthers.isEmpty()
                  && drainedButNotShown(in.pool())
                  && !recreatedAfter(in.pool(), deletedAt)
              ? MaintenanceCondition.drained(DRAINED_MESSAGE)
              : null;
      if (step instanceof DrainStep.DeletePool s) {
        events.add(
            DrainEvent.normal(
                DrainEvent.Subject.CAPI_MACHINE,
                DrainEvent.POOL_DELETED,
                "CAPI is done with the node: deleting MachinePool " + s.pool(),
                DrainEvent.When.BEFORE_WRITE));
      }
      return new DrainOutcome(step, condition, events, null);
    }
    return DrainOutcome.of(step);
  }

  /**
   * {@code DrainStarted} for a drain that found its pool already carrying both maintenance taints,
   * so no taint write (which records {@code DrainStarted} for every other drain) comes: the taints
   * of an earlier drain that was cancelled (they stay, see {@link DrainCancellation}), or an
   * operator's. Recognised by a {@code maintenance.ironcore.dev:NoExecute} taint whose {@code
   * timeAdded} is before the CAPI Machine's deletion, or in the future, or that came while the pool
   * showed {@code DrainQueued}, or by a {@code Maintenance} condition an earlier drain left ({@code
   * DrainCancelled}, or any reason whose {@code lastTransitionTime} is more than {@link
   * #TAINTED_BEFORE_SLACK} older than the deletion). A drain that added a missing taint records
   * {@code DrainStarted} with that write, and the reconciler records one per drain. Recorded on the
   * transition into {@code Draining}/{@code DrainStuck} ({@link DrainEvent.When#REASON_CHANGED}),
   * or right before the hook's release when nothing blocks.
   *
   * @return the event, or null when this drain tainted the pool or the pool's condition already
   *     shows this drain ({@code Draining}, {@code DrainStuck}, {@code Drained})
   */
  private static DrainEvent foundTainted(
      MachinePool pool, Instant tainted, Instant deletedAt, Instant now) {
    if (pool == null || deletedAt == null) {
      return null;
    }
    var condition =
        dev.ironcore.maintenance.api.compute.Conditions.find(
            pool.getStatus() == null ? null : pool.getStatus().getConditions(),
            MaintenanceCondition.TYPE);
    Instant since = deletedAt.minus(TAINTED_BEFORE_SLACK);
    String reason = condition == null ? null : condition.getReason();
    Instant added = maintenanceTaintAdded(pool);
    // before the deletion as the two clocks read. Either an operator's taint (fresh eyes: one added
    // by hand 10 s before had no DrainStarted), also one within TAINT_CLOCK_SKEW, which counts as
    // this drain's for its slot and --drain-timeout but came with no write of this drain, so with
    // no DrainStarted of its own (code review, session 50); or this drain's own taint read under a
    // clock skew, whose DrainStarted came with its write and is on the reconciler's record, so
    // this one is not recorded again
    boolean earlier = added != null && added.isBefore(deletedAt);
    // tainted after the deletion while this drain waited for a slot: by an operator, or by this
    // drain once admitted (whose own DrainStarted the reconciler has on record, as above)
    boolean whileQueued =
        tainted != null && !earlier && MaintenanceCondition.QUEUED_REASON.equals(reason);
    if (tainted != null && !whileQueued && !earlier) {
      return null;
    }
    boolean olderCondition = condition != null && before(condition.getLastTransitionTime(), since);
    if ((MaintenanceCondition.DRAINING_REASON.equals(reason)
            || MaintenanceCondition.STUCK_REASON.equals(reason)
            || MaintenanceCondition.DRAINED_REASON.equals(reason))
        && !olderCondition) {
      return null; // this drain's own condition (one left by an earlier drain is older)
    }
    boolean future = added != null && isFuture(added, now);
    boolean leftover = MaintenanceCondition.CANCELLED_REASON.equals(reason) || olderCondition;
    if (!earlier && !future && !leftover && !whileQueued) {
      return null;
    }
    return DrainEvent.normal(
        DrainEvent.Subject.CAPI_MACHINE,
        DrainEvent.STARTED,
        "pool "
            + pool.getMetadata().getName()
            + " already carries the "
            + Names.MAINTENANCE_TAINT_KEY
            + " taints"
            + (earlier ? " (NoExecute added at " + added + ", before this drain)" : "")
            + (whileQueued
                ? " (NoExecute added at " + added + ", while this drain waited for a slot)"
                : "")
            + (future
                ? " (NoExecute timeAdded "
                    + added
                    + " lies in the future, so not this drain's; --drain-timeout counts from the"
                    + " CAPI Machine's deletion)"
                : "")
            + ": draining it without tainting; Machines that do not tolerate them are evicted",
        DrainEvent.When.REASON_CHANGED);
  }

  /** True when {@code time} (RFC 3339) is readable and before {@code limit}. */
  private static boolean before(String time, Instant limit) {
    Instant t = instant(time);
    return t != null && t.isBefore(limit);
  }

  /**
   * {@code time} (an object's RFC 3339 timestamp) as an instant; null when absent or unreadable.
   */
  private static Instant instant(String time) {
    if (time == null) {
      return null;
    }
    try {
      return Instant.parse(time);
    } catch (java.time.format.DateTimeParseException e) {
      return null;
    }
  }

  /** The readable {@code timeAdded} of the pool's maintenance NoExecute taint, else null. */
  private static Instant maintenanceTaintAdded(MachinePool pool) {
    if (pool.getSpec() == null) {
      return null;
    }
    for (Taint t : pool.getSpec().taintsOrEmpty()) {
      if (t != null
          && Names.MAINTENANCE_TAINT_KEY.equals(t.getKey())
          && "NoExecute".equals(t.getEffect())
          && t.getTimeAdded() != null) {
        return dev.ironcore.maintenance.api.compute.TimeAdded.parse(t.getTimeAdded());
      }
    }
    return null;
  }

  /**
   * How much earlier than the deletion a maintenance taint's {@code timeAdded} must be to be an
   * earlier drain's: the webhook server sets {@code timeAdded} with its clock, the API server the
   * {@code deletionTimestamp} with its own, so a skew between them must not read as a pool tainted
   * before the drain.
   */
  static final Duration TAINTED_BEFORE_SLACK = Duration.ofMinutes(1);

  /**
   * How much earlier than the CAPI Machine's deletion a {@code maintenance.ironcore.dev:NoExecute}
   * taint's {@code timeAdded} may be and still be this drain's taint ({@link #taintedAt}): the skew
   * between the webhook server's and the API server's clocks, plus their whole seconds. A taint
   * added by hand more than this before the deletion is an operator's.
   */
  static final Duration TAINT_CLOCK_SKEW = Duration.ofSeconds(5);

  /** Message of the {@code Drained} condition. */
  static final String DRAINED_MESSAGE =
      "no bound Machine blocks the maintenance taint; pre-drain hook released";

  /** True when {@code pool} exists, is not being deleted, and its Maintenance is not Drained. */
  private static boolean drainedButNotShown(MachinePool pool) {
    if (pool == null || isDeleting(pool)) {
      return false;
    }
    var condition =
        dev.ironcore.maintenance.api.compute.Conditions.find(
            pool.getStatus() == null ? null : pool.getStatus().getConditions(),
            MaintenanceCondition.TYPE);
    return condition == null || !MaintenanceCondition.DRAINED_REASON.equals(condition.getReason());
  }

  /**
   * A Warning when the hook is gone while bound Machines still block and we never reported the pool
   * drained: someone other than us removed it.
   */
  private static java.util.Optional<DrainEvent> hookRemovedByOthers(DrainInput in) {
    MachinePool pool = in.pool();
    if (pool == null || isDeleting(pool) || recreatedAfter(pool, deletedAt(in.capiMachine()))) {
      return java.util.Optional.empty(); // a re-created pool: the hook was ours to release
    }
    var condition =
        dev.ironcore.maintenance.api.compute.Conditions.find(
            pool.getStatus() == null ? null : pool.getStatus().getConditions(),
            MaintenanceCondition.TYPE);
    if (condition != null && MaintenanceCondition.DRAINED_REASON.equals(condition.getReason())) {
      return java.util.Optional.empty();
    }
    if (!in.liveOnSamePool().isEmpty()) {
      return java.util.Optional.of(
          DrainEvent.warning(
              DrainEvent.Subject.CAPI_MACHINE,
              DrainEvent.HOOK_REMOVED,
              "pre-drain hook removed by someone else while the drain of pool "
                  + pool.getMetadata().getName()
                  + " was held: it is also the status.nodeRef of "
                  + capiMachines(in.liveOnSamePool())
                  + ", not being deleted; the pool is not deleted",
              DrainEvent.When.FIRST_PASS));
    }
    List<String> blocking = blockingMachines(pool, in.boundMachines());
    if (blocking.isEmpty()) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(
        DrainEvent.warning(
            DrainEvent.Subject.CAPI_MACHINE,
            DrainEvent.HOOK_REMOVED,
            "pre-drain hook removed by someone else while pool "
                + pool.getMetadata().getName()
                + " is not drained: "
                + waitingFor(blocking),
            DrainEvent.When.FIRST_PASS));
  }

  /** {@code waiting for 2 Machines: ns/a, ns/b} (the first few, then "and N more"). */
  static String waitingFor(List<String> blocking) {
    return "waiting for " + count(blocking.size()) + ": " + firstFew(blocking);
  }

  /**
   * A held drain's outcome: {@code beforeTimeout} while held for less than {@code timeout} (zero:
   * never stuck), looked at again when the timeout runs out; after it {@code DrainStuck}, with a
   * {@code DrainStuck} Warning on the transition. The hook stays either way.
   *
   * @param waiting what the drain waits for, appended to the stuck message
   * @param hold how long the drain has held the hook (from its taint, else from the deletion)
   */
  static DrainOutcome untilTimeout(
      DrainStep step,
      String pool,
      String waiting,
      MaintenanceCondition beforeTimeout,
      List<DrainEvent> events,
      Duration timeout,
      Hold hold) {
    Duration held = hold.held();
    if (timeout.isZero() || held.compareTo(timeout) < 0) {
      Duration untilStuck = timeout.isZero() ? HOLD_RECHECK : timeout.minus(held);
      return new DrainOutcome(
          step,
          beforeTimeout,
          events,
          untilStuck.compareTo(HOLD_RECHECK) < 0 ? untilStuck : HOLD_RECHECK);
    }
    String stuck =
        "drain of pool "
            + pool
            + " has held the pre-drain hook longer than --drain-timeout="
            + HumanDuration.of(timeout)
            + " ("
            + hold.started()
            + "); the hook is kept; "
            + waiting;
    events.add(
        DrainEvent.warning(
            DrainEvent.Subject.CAPI_MACHINE,
            DrainEvent.STUCK,
            stuck,
            DrainEvent.When.REASON_CHANGED));
    return new DrainOutcome(step, MaintenanceCondition.stuck(stuck), events, HOLD_RECHECK);
  }

  /** {@code CAPI Machine ns/a} or {@code CAPI Machines ns/a, ns/b} (the first few). */
  private static String capiMachines(List<String> keys) {
    return (keys.size() == 1 ? "CAPI Machine " : "CAPI Machines ") + firstFew(keys);
  }

  /**
   * What a completed drain leaves bound to its pool: the Machines not being deleted (all tolerate
   * the maintenance taint for good: every other one blocked the drain), which stay bound to the
   * pool's name after the pool is deleted (fresh eyes, session 43: no Event or condition named
   * them), e.g. {@code ; 1 Machine tolerates the maintenance taint and stays bound to the pool:
   * ns/a}; empty when none.
   */
  private static String staying(List<String> bound) {
    if (bound.isEmpty()) {
      return "";
    }
    return "; "
        + count(bound.size())
        + (bound.size() == 1 ? " tolerates" : " tolerate")
        + " the maintenance taint and"
        + (bound.size() == 1 ? " stays" : " stay")
        + " bound to the pool: "
        + firstFew(bound);
  }

  private static String count(int n) {
    return n == 1 ? "1 Machine" : n + " Machines";
  }

  private static String firstFew(List<String> names) {
    return firstFew(names, NAMED_MACHINES);
  }

  /**
   * @return the first {@code limit} of {@code names} joined by {@code ", "}, then {@code and N
   *     more} when there are more
   */
  static String firstFew(List<String> names, int limit) {
    if (names.size() <= limit) {
      return String.join(", ", names);
    }
    return String.join(", ", names.subList(0, limit)) + " and " + (names.size() - limit) + " more";
  }

  private static List<String> names(List<Machine> machines) {
    return machines.stream()
        .map(m -> m.getMetadata().getNamespace() + "/" + m.getMetadata().getName())
        .sorted()
        .toList();
  }

  /** {@code namespace/name} of {@code o}. */
  public static String key(HasMetadata o) {
    return o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
  }

  /**
   * How long a drain has held the pre-drain hook, as {@code --drain-timeout} counts it: from this
   * drain's taint ({@link #taintedAt}), else from the CAPI Machine's deletion.
   *
   * @param deletedAt the CAPI Machine's {@code deletionTimestamp}, or null when not deleting
   * @param tainted when this drain tainted the pool, or null
   * @param held the time since {@link #since()} (zero without either)
   */
  record Hold(Instant deletedAt, Instant tainted, Duration held) {
    static Hold of(CapiMachine capi, MachinePool pool, Instant now) {
      Instant deletedAt = DrainDecision.deletedAt(capi);
      Instant tainted = deletedAt == null ? null : taintedAt(pool, deletedAt, now);
      Instant since = tainted != null ? tainted : deletedAt;
      return new Hold(
          deletedAt, tainted, since == null ? Duration.ZERO : Duration.between(since, now));
    }

    /** The taint's time, else the deletion's; null when neither. */
    Instant since() {
      return tainted != null ? tainted : deletedAt;
    }

    /**
     * Since when the drain holds the hook, in words: {@code drain started at <taint's timeAdded>},
     * else {@code CAPI Machine deleted at <deletionTimestamp>}.
     */
    String started() {
      return tainted != null
          ? "drain started at " + tainted
          : "CAPI Machine deleted at " + deletedAt;
    }
  }

  /**
   * When this drain tainted {@code pool}: the {@code timeAdded} of its {@code
   * maintenance.ironcore.dev:NoExecute} taint (set by our mutating webhook, v1alpha2) when it is
   * not before {@code deletedAt}, so that time spent waiting for a drain slot ({@code
   * --max-concurrent-drains}) does not count toward {@code --drain-timeout}; null otherwise (no
   * such taint, no {@code timeAdded} as on a v1alpha1-only API server, or one more than {@link
   * #TAINT_CLOCK_SKEW} older than the deletion, or one in the future): the timeout then counts from
   * the deletion. A {@code timeAdded} within {@link #TAINT_CLOCK_SKEW} before the deletion is this
   * drain's, read as the deletion's time. Kept in the pool, so a restart keeps counting.
   */
  static Instant taintedAt(MachinePool pool, Instant deletedAt, Instant now) {
    Instant added = pool == null ? null : maintenanceTaintAdded(pool);
    if (added == null || takenBefore(added, deletedAt) || isFuture(added, now)) {
      return null;
    }
    return added.isBefore(deletedAt) ? deletedAt : added;
  }

  /**
   * Whether a maintenance taint's {@code timeAdded} lies before {@code deletedAt} by more than the
   * clocks' skew ({@link #TAINT_CLOCK_SKEW}): the webhook server stamps {@code timeAdded} with its
   * clock, the API server the {@code deletionTimestamp} with its own, both in whole seconds; a
   * drain that taints its pool within milliseconds of the deletion reads a second earlier whenever
   * the webhook server's clock is a little behind (code review, session 50: its slot then counted
   * as free and a second drain started past {@code --max-concurrent-drains}).
   */
  private static boolean takenBefore(Instant added, Instant deletedAt) {
    return added.isBefore(deletedAt.minus(TAINT_CLOCK_SKEW));
  }

  /**
   * Whether {@code pool} carried the {@code maintenance.ironcore.dev:NoExecute} taint before this
   * drain: its {@code timeAdded} is readable and before {@code deletedAt} (an operator's taint, or
   * one a cancelled drain left), or in the future (written by hand). Such a pool's Machines are
   * evicted by that taint whatever the drain does, so the drain neither holds nor waits for one of
   * the {@code --max-concurrent-drains} slots (fresh eyes: it took one at once, past the limit, and
   * drains deleted earlier waited behind its blocked pool). False without {@code timeAdded} (a
   * v1alpha1-only API server: the taint counts as the drain's, as it always did).
   *
   * @param pool the drained pool (null: false)
   * @param deletedAt the CAPI Machine's {@code deletionTimestamp}
   * @param now the current time, for a {@code timeAdded} in the future
   */
  static boolean taintedBeforeDrain(MachinePool pool, Instant deletedAt, Instant now) {
    // a readable timeAdded that taintedAt does not take as this drain's
    return pool != null
        && maintenanceTaintAdded(pool) != null
        && taintedAt(pool, deletedAt, now) == null;
  }

  /**
   * {@code ", added at <timeAdded>"} for the {@code maintenance.ironcore.dev:NoExecute} taint a
   * pool carries before its drain adds {@code :NoSchedule} (fresh eyes: a pool an operator had
   * tainted by hand read like one the drain tainted); empty without {@code timeAdded}.
   */
  private static String carriedSince(MachinePool pool) {
    Instant added = pool == null ? null : maintenanceTaintAdded(pool);
    return added == null ? "" : ", added at " + added;
  }

  /**
   * {@code " (tainted since <timeAdded>)"}: the {@code timeAdded} of the pool's {@code
   * maintenance.ironcore.dev:NoExecute} taint, the same for every drain of the pool; empty without
   * one, or for one in the future.
   */
  static String taintedSince(MachinePool pool, Instant now) {
    Instant added = pool == null ? null : maintenanceTaintAdded(pool);
    return added == null || isFuture(added, now) ? "" : " (tainted since " + added + ")";
  }

  /**
   * A {@code timeAdded} later than {@code now} by more than {@link #TAINTED_BEFORE_SLACK} (the
   * clocks' skew): no write of this drain stamped it (the webhook stamps the time of the write), so
   * it was written by hand; counting {@code --drain-timeout} from it would keep the drain from ever
   * being stuck (fresh eyes: {@code 2030-01-01T00:00:00Z}).
   */
  private static boolean isFuture(Instant added, Instant now) {
    return added.isAfter(now.plus(TAINTED_BEFORE_SLACK));
  }

  /** The {@code deletionTimestamp}, or null when not deleting (or unparsable). */
  public static Instant deletedAt(HasMetadata o) {
    return instant(o.getMetadata() == null ? null : o.getMetadata().getDeletionTimestamp());
  }

  /** The next step for {@code in}; never null. */
  public static DrainStep next(DrainInput in) {
    CapiMachine capi = in.capiMachine();
    boolean hasFinalizer = hasFinalizer(capi, Names.CLEANUP_FINALIZER);
    // CAPI holds the deletion on the key whatever its value; the key names us, so it is ours
    String hookValue = annotation(capi, Names.PRE_DRAIN_HOOK_ANNOTATION);
    boolean hasHook = hookValue != null;
    if (!in.selected()) {
      return hasFinalizer || hasHook
          ? new DrainStep.Release(NOT_SELECTED)
          : new DrainStep.Nothing();
    }
    if (!isDeleting(capi)) {
      boolean ourValue = Names.PRE_DRAIN_HOOK_VALUE.equals(hookValue);
      return hasFinalizer && ourValue
          ? new DrainStep.Nothing()
          : new DrainStep.EnsureFinalizerAndHook(!hasFinalizer, !ourValue);
    }
    if (!hasFinalizer) {
      // our finalizer removed by someone else while deleting: the drain is cancelled (the pool
      // says DrainCancelled); a hook left behind would hold CAPI for good with nothing acting on it
      return hasHook ? new DrainStep.Release(FINALIZER_REMOVED) : new DrainStep.Nothing();
    }
    String node = capi.nodeName();
    if (node == null) {
      return new DrainStep.Release(NO_NODE);
    }
    MachinePool pool = in.pool();
    if (hasHook) {
      if (pool == null) {
        return new DrainStep.RemoveHook(node, true);
      }
      if (!in.liveOnSamePool().isEmpty()) {
        return new DrainStep.SharedPool(node, in.liveOnSamePool());
      }
      List<Taint> missing = missingMaintenanceTaints(pool);
      if (!missing.isEmpty()) {
        return new DrainStep.AddTaints(node, missing);
      }
      List<String> blocking = blockingMachines(pool, in.boundMachines());
      if (!blocking.isEmpty()) {
        return new DrainStep.Hold(node, blocking);
      }
      return new DrainStep.RemoveHook(node, false);
    }
    if (hasFinalizer(capi, Names.CAPI_MACHINE_FINALIZER)) {
      return new DrainStep.WaitForCapi(node);
    }
    if (pool != null && !isDeleting(pool)) {
      if (!in.liveOnSamePool().isEmpty()) {
        return new DrainStep.SparePool(node, in.liveOnSamePool());
      }
      return recreatedAfter(pool, deletedAt(capi))
          ? new DrainStep.SparePool(node)
          : new DrainStep.DeletePool(node, pool.getMetadata().getUid());
    }
    return new DrainStep.RemoveFinalizer(node);
  }

  /**
   * True when {@code pool} was created after the CAPI Machine's deletion and carries no maintenance
   * NoExecute taint: a pool of the same name that this drain never drained (the drained one was
   * deleted by hand and re-created), which it must neither delete nor blame a hook removal on. Both
   * timestamps are whole seconds: a pool created in the deletion's second counts as the drained
   * one.
   */
  static boolean recreatedAfter(MachinePool pool, Instant deletedAt) {
    Instant created =
        instant(pool.getMetadata() == null ? null : pool.getMetadata().getCreationTimestamp());
    return created != null
        && deletedAt != null
        && created.isAfter(deletedAt)
        && missingMaintenanceTaints(pool).contains(MAINTENANCE_TAINTS.get(1));
  }

  /** Whether {@code pool} carries at least one of the two maintenance taints. */
  static boolean carriesMaintenanceTaint(MachinePool pool) {
    return missingMaintenanceTaints(pool).size() < MAINTENANCE_TAINTS.size();
  }

  /**
   * The maintenance taints {@code pool} lacks, matched by key and effect; other taints are ignored.
   */
  public static List<Taint> missingMaintenanceTaints(MachinePool pool) {
    List<Taint> present = pool.getSpec() == null ? List.of() : pool.getSpec().taintsOrEmpty();
    List<Taint> missing = new ArrayList<>();
    for (Taint wanted : MAINTENANCE_TAINTS) {
      if (present.stream().noneMatch(t -> t != null && t.sameKeyAndEffect(wanted))) {
        missing.add(wanted);
      }
    }
    return missing;
  }

  /**
   * Bound Machines that do not tolerate the pool's {@code maintenance.ironcore.dev} NoExecute taint
   * for good, each as {@code namespace/name (why)}, sorted; Machines still shutting down count. A
   * Machine that tolerates it only with {@code tolerationSeconds} blocks until the eviction loop
   * has evicted it and it is gone (domain reference §5, drain step 4). The taint is the pool's own
   * (matched by key and effect, so a value someone gave it counts, as it does for eviction), or
   * {@code {maintenance.ironcore.dev, NoExecute}} when the pool has none. Why, so an operator sees
   * what each Machine waits for:
   *
   * <ul>
   *   <li>{@code (deleting, held by finalizer machinepoollet.ironcore.dev/machine)}: evicted (or
   *       deleted by someone), its finalizers not yet removed ({@code (deleting)} without any);
   *   <li>{@code (tolerates the taint for 300 s: eviction due at 2026-12-04T18:05:00Z)}: a {@code
   *       tolerationSeconds} toleration; the time is the taint's {@code timeAdded} plus the seconds
   *       of the first matching toleration, left out when the taint has no readable {@code
   *       timeAdded} or the time is beyond {@link Instant#MAX};
   *   <li>{@code (to be evicted)}: no matching toleration; the eviction loop deletes it;
   *   <li>{@code (its spec cannot be read: ...)}: a Machine that cannot be decoded, never evicted
   *       on its tolerations.
   * </ul>
   */
  public static List<String> blockingMachines(MachinePool pool, List<Machine> bound) {
    List<Taint> present =
        pool == null || pool.getSpec() == null ? List.of() : pool.getSpec().taintsOrEmpty();
    Taint wanted = MAINTENANCE_TAINTS.get(1);
    List<Taint> maintenance =
        present.stream().filter(t -> t != null && t.sameKeyAndEffect(wanted)).toList();
    List<Taint> probes = maintenance.isEmpty() ? List.of(wanted) : maintenance;
    List<String> blocking = new ArrayList<>();
    for (Machine m : bound) {
      var tolerations = m.getSpec() == null ? null : m.getSpec().getTolerations();
      Taint untolerated =
          probes.stream()
              .filter(t -> !Tolerations.toleratedForever(t, tolerations))
              .findFirst()
              .orElse(null);
      if (untolerated != null) {
        blocking.add(
            m.getMetadata().getNamespace()
                + "/"
                + m.getMetadata().getName()
                + " ("
                + whyBlocking(m, untolerated, tolerations)
                + ")");
      }
    }
    blocking.sort(null);
    return blocking;
  }

  private static String whyBlocking(Machine m, Taint taint, List<Toleration> tolerations) {
    if (m.decodeError() != null) {
      return unreadable(m);
    }
    if (isDeleting(m)) {
      List<String> finalizers = m.getMetadata().getFinalizers();
      if (finalizers == null || finalizers.isEmpty()) {
        return "deleting";
      }
      return (finalizers.size() == 1
              ? "deleting, held by finalizer "
              : "deleting, held by finalizers ")
          + String.join(", ", finalizers);
    }
    Long seconds = Tolerations.secondsTolerated(taint, tolerations);
    if (seconds == null) {
      return "to be evicted";
    }
    Instant added = TimeAdded.parse(taint.getTimeAdded());
    Instant at = added == null ? Instant.MAX : EvictionDecision.plus(added, seconds);
    return "tolerates the taint for "
        + Math.max(0, seconds)
        + " s"
        + (at.equals(Instant.MAX) ? "" : ": eviction due at " + at);
  }

  /**
   * {@code its spec cannot be read: <error>}, clipped to {@value #UNREADABLE_CHARS} characters: a
   * Machine stored in a shape the controller cannot decode is never evicted on its tolerations (it
   * blocks the drain until it is fixed or deleted), and the drain's messages say so.
   */
  static String unreadable(Machine m) {
    String error = m.decodeError();
    if (error.length() > UNREADABLE_CHARS) {
      error = error.substring(0, UNREADABLE_CHARS) + "...";
    }
    return "its spec cannot be read: " + error;
  }

  static final int UNREADABLE_CHARS = 120;

  static boolean isDeleting(HasMetadata o) {
    return o.getMetadata() != null && o.getMetadata().getDeletionTimestamp() != null;
  }

  static boolean hasFinalizer(HasMetadata o, String finalizer) {
    return o.getMetadata() != null
        && o.getMetadata().getFinalizers() != null
        && o.getMetadata().getFinalizers().contains(finalizer);
  }

  static String annotation(HasMetadata o, String key) {
    Map<String, String> a = o.getMetadata() == null ? null : o.getMetadata().getAnnotations();
    return a == null ? null : a.get(key);
  }
}
