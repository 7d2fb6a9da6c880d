package dev.ironcore.maintenance.controller;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Ends leadership when the Lease was not renewed within the renew deadline, whatever the API server
 * does: client-go bounds each renewal by the renew deadline and steps down when it passes;
 * fabric8's {@code LeaderElector} checks its deadline only between attempts, and an attempt against
 * an API server that accepts connections but does not answer (frozen, overloaded, a half-open
 * network path) blocks for the client's request timeout and retries, so a leader went on leading
 * for minutes while a standby could take the expired Lease after {@code leaseDuration}. Pure state:
 * {@link #wrap} records each successful renewal (a create or update of the Lease naming this
 * candidate) as of the moment it was sent, {@link #overdue} says whether the deadline passed since
 * the last one while leading; the caller checks it periodically and stops the process.
 */
public final class RenewalWatchdog {
  private final Duration renewDeadline;
  private final LongSupplier nanoTime;
  private volatile long lastRenewal;
  private volatile boolean leading;
  private volatile boolean released;

  /** A write of the Lease naming this candidate succeeded (the acquisition, then renewals). */
  private volatile boolean acquired;

  /**
   * @param renewDeadline how long a leader may go without a successful renewal (10 s, as
   *     controller-runtime's default and our elector's)
   * @param nanoTime a monotonic clock in nanoseconds ({@code System::nanoTime})
   */
  public RenewalWatchdog(Duration renewDeadline, LongSupplier nanoTime) {
    this.renewDeadline = Objects.requireNonNull(renewDeadline);
    this.nanoTime = Objects.requireNonNull(nanoTime);
    this.lastRenewal = nanoTime.getAsLong();
  }

  /** The Lease lock the elector uses, recording every successful write of it by {@code lock}. */
  public Lock wrap(Lock lock) {
    return new Lock() {
      @Override
      public LeaderElectionRecord get(KubernetesClient client) {
        return lock.get(client);
      }

      // the renewal counts from before it was sent, not from its answer: the Lease keeps the
      // renewTime stamped before the request, and a successor counts the Lease's duration from
      // that (fresh eyes, session 39: renewals answered after 7-9 s, behind a slow admission
      // webhook on Leases, kept the old leader's writes going for seconds after another replica
      // had acquired the Lease, and both evicted the same Machines)
      @Override
      public void create(KubernetesClient client, LeaderElectionRecord record) {
        long sent = nanoTime.getAsLong();
        lock.create(client, record);
        renewed(record, sent);
      }

      @Override
      public void update(KubernetesClient client, LeaderElectionRecord record) {
        long sent = nanoTime.getAsLong();
        lock.update(client, record);
        renewed(record, sent);
      }

      @Override
      public String identity() {
        return lock.identity();
      }

      @Override
      public String describe() {
        return lock.describe();
      }

      private void renewed(LeaderElectionRecord record, long sent) {
        if (lock.identity().equals(record.getHolderIdentity())) {
          lastRenewal = sent;
          acquired = true;
        } else if (record.getHolderIdentity() == null || record.getHolderIdentity().isEmpty()) {
          released = true; // fabric8's release on a clean stop went through
        }
      }
    };
  }

  /** This candidate leads from now (right after a successful acquisition). */
  public void leading() {
    // the acquisition's write (create or update, through wrap) counted from when it was sent; the
    // answer may come late (fresh eyes, session 39: an acquisition answered 9.3 s late, counted
    // from
    // here, let the replica evict 8.5 s past its deadline while a third replica took the expired
    // Lease and evicted too)
    leading = true;
  }

  /**
   * @return how long the leader has gone without a renewal, when that is longer than the renew
   *     deadline; null while not leading or within the deadline
   */
  public Duration overdue() {
    if (!leading) {
      return null;
    }
    Duration since = Duration.ofNanos(nanoTime.getAsLong() - lastRenewal);
    return since.compareTo(renewDeadline) > 0 ? since : null;
  }

  /**
   * Why this candidate must not write to the API servers now, or null when it may: it leads,
   * renewed the Lease within the renew deadline, and has not released it. The deadline is shorter
   * than the Lease's duration (10 s against 15 s), so a replica that may write cannot overlap with
   * another that acquired the expired Lease (client-go's renewDeadline against leaseDuration). Read
   * on every write ({@link LeadershipGate}): a process resumed after a pause (SIGSTOP, a frozen VM,
   * a long GC) sees the monotonic clock's jump at its first write, before {@link #overdue}'s
   * periodic check has ended it (fresh eyes: a leader paused 27 s wrote {@code Evicted} Events for
   * Machines the new leader had evicted already, and for two whose taint was gone).
   *
   * @return a phrase for an error message, e.g. {@code "the Lease was last renewed 27631 ms ago,
   *     longer than the renew deadline (10 s): another replica may lead"}
   */
  public String notLeading() {
    if (released) {
      return "the Lease was released (stopping)";
    }
    if (!leading || !acquired) {
      // fabric8 announces the leadership before its write when the Lease it read names this
      // candidate already (a restart under the same $POD_NAME): nothing goes out until that write
      // went through
      return "not leading (yet)";
    }
    long sinceMillis = Duration.ofNanos(nanoTime.getAsLong() - lastRenewal).toMillis();
    if (sinceMillis > renewDeadline.toMillis()) {
      return "the Lease was last renewed "
          + sinceMillis
          + " ms ago, longer than the renew deadline ("
          + renewDeadline.toSeconds()
          + " s): another replica may lead";
    }
    return null;
  }

  /** True once a write of the Lease without a holder (fabric8's release) succeeded. */
  public boolean released() {
    return released;
  }

  /** The renew deadline this watchdog enforces. */
  public Duration renewDeadline() {
    return renewDeadline;
  }
}
