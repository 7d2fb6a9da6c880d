package dev.ironcore.maintenance.controller.drain;

/**
 * An event the drain wants recorded (deduplicated by the recorder: a repeat within its window
 * raises the existing Event's count).
 *
 * @param on the object it concerns
 * @param type {@code Normal} or {@code Warning}
 * @param reason CamelCase, one of the {@code *} constants here
 * @param message for operators
 * @param when on which condition the reconciler records it
 */
public record DrainEvent(Subject on, String type, String reason, String message, When when) {
  /**
   * Normal, on the CAPI Machine: its drain waits for a free slot ({@code --max-concurrent-drains});
   * recorded when the pool's condition turns {@code DrainQueued}.
   */
  public static final String QUEUED = "DrainQueued";

  public static final String STARTED = "DrainStarted";
  public static final String BLOCKED = "DrainBlocked";
  public static final String STUCK = "DrainStuck";
  public static final String COMPLETED = "DrainCompleted";
  public static final String POOL_DELETED = "PoolDeleted";

  /**
   * Warning, on the CAPI Machine: a drain write failed because the API server, or an admission or
   * conversion webhook it calls, answered 5xx or not at all (e.g. the webhook server hung); the
   * message names the write and the API server's answer, and the write is retried.
   */
  public static final String WRITE_FAILED = "DrainWriteFailed";

  /**
   * Warning, on the CAPI Machine: CAPI is done, but the pool of that name was re-created after the
   * deletion and never drained, or is also the nodeRef of a CAPI Machine that is not being deleted,
   * so it is not deleted.
   */
  public static final String POOL_KEPT = "PoolKept";

  /**
   * Warning, on the deleting CAPI Machine, every held pass: its pool is also the {@code
   * status.nodeRef} of another CAPI Machine that is not being deleted, so the drain holds the
   * pre-drain hook without tainting the pool.
   */
  public static final String POOL_SHARED = "PoolShared";

  /** Warning: the pool is gone, but IronCore Machines are still bound to its name. */
  public static final String POOL_MISSING = "PoolMissing";

  /** Warning: someone else removed our pre-drain hook while bound Machines still block. */
  public static final String HOOK_REMOVED = "DrainHookRemoved";

  /**
   * On the pool: its drain ended unfinished (CAPI Machine deselected or gone); Warning when the
   * maintenance taints stay on the pool, Normal when it was only queued. Also a Warning on a
   * deleting CAPI Machine whose finalizer someone else removed, when its pre-drain hook is
   * released.
   */
  public static final String CANCELLED = "DrainCancelled";

  /** The object an event is recorded on. */
  public enum Subject {
    CAPI_MACHINE,
    POOL
  }

  /** When the reconciler records the event. */
  public enum When {
    /** Every pass that takes this step (repeats only raise the count). */
    EVERY_PASS,
    /**
     * Right before the step's write is sent, and only when a fresh read showed it is needed (e.g.
     * the taints are really missing): a crash between the two can leave the event without the write
     * (the next process repeats the write and the event), never the write without its event.
     * Kubernetes' taint-eviction controller records its eviction event before the DELETE likewise.
     * Recorded with {@code EventRecorder#recordOnce}: a write refused and retried by this process
     * does not record the same event again, and an event the API server could not take (5xx, 429,
     * no answer) holds the write, which is retried with it.
     */
    BEFORE_WRITE,
    /** Only when the condition write changed the condition's reason (a transition into it). */
    REASON_CHANGED,
    /**
     * On the first pass that takes this step with this message: a repeat within the recorder's
     * window is neither written nor counted (a state someone else caused, which the passes after it
     * see again until it changes).
     */
    FIRST_PASS
  }

  /** This event, due {@code other} instead. */
  DrainEvent at(When other) {
    return new DrainEvent(on, type, reason, message, other);
  }

  static DrainEvent normal(Subject on, String reason, String message, When when) {
    return new DrainEvent(on, "Normal", reason, message, when);
  }

  static DrainEvent warning(Subject on, String reason, String message, When when) {
    return new DrainEvent(on, "Warning", reason, message, when);
  }
}
