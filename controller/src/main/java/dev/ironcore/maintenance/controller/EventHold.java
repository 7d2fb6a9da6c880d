package dev.ironcore.maintenance.controller;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Holds background Event writes while a burst of them is arriving and releases them together, in
 * the order they came, once the burst is over: when no further one has come for {@link #QUIET}, at
 * the latest {@link #MAX_HOLD} after the first one held, and at once when {@link #MAX_HELD} wait.
 * Used for the {@code PoolUnknown} Events ({@link EventRecorder#recordInBackground}): when 1,000
 * pools go {@code Ready=Unknown} together, their 1,000 Event POSTs would otherwise compete with the
 * {@code Ready=Unknown} status writes still to come, on the API server that is the bottleneck
 * ({@code make bench}, fleet part: without those Events among the writes, 878 instead of 451–562 of
 * 1,000 pools were Unknown within grace + 1 s). A held Event keeps the timestamp of the moment it
 * was recorded; it only reaches the API server later (1 s for a single pool). Thread-safe; a clean
 * stop releases what is held ({@link #releaseNow}), a crash loses it like any Event not yet
 * written.
 */
final class EventHold {
  /** How long no further Event must come before the held ones are released. */
  static final Duration QUIET = Duration.ofSeconds(1);

  /** How long the first Event held waits at most, however long the burst lasts. */
  static final Duration MAX_HOLD = Duration.ofSeconds(10);

  /** How many Events are held at most; the one that reaches this releases them all at once. */
  static final int MAX_HELD = EventRetries.MAX_PENDING;

  /** Runs a task once, after a delay (the recorder's thread: {@link EventRetries#after}). */
  interface Scheduler {
    void after(Duration delay, Runnable task);
  }

  private record Held(String what, String subject, BooleanSupplier write) {}

  private final BiConsumer<String, BooleanSupplier> release;
  private final Scheduler scheduler;
  private final LongSupplier nanoTime;
  private final List<Held> held = new ArrayList<>();
  private long firstNanos;
  private long lastNanos;
  private boolean checkScheduled;

  /**
   * @param release where a released Event write goes ({@link EventRetries#first}: its first
   *     attempt, retried when it fails), called with the name of the Event and its write
   * @param scheduler runs the checks that release the held Events
   * @param nanoTime a monotonic clock in nanoseconds ({@link System#nanoTime})
   */
  EventHold(
      BiConsumer<String, BooleanSupplier> release, Scheduler scheduler, LongSupplier nanoTime) {
    this.release = release;
    this.scheduler = scheduler;
    this.nanoTime = nanoTime;
  }

  /**
   * Holds one Event write until the burst it belongs to is over.
   *
   * @param what the Event, for the log (e.g. {@code PoolUnknown on default/pool-1})
   * @param write its write; true when written (it must not throw)
   */
  void add(String what, BooleanSupplier write) {
    add(what, null, write);
  }

  /**
   * As {@link #add(String, BooleanSupplier)}, for an Event that a later one must not overtake
   * ({@link #take}).
   *
   * @param subject what {@link #take} names it by (the object and the Event's reason), or null
   */
  void add(String what, String subject, BooleanSupplier write) {
    List<Held> batch = null;
    synchronized (this) {
      long now = nanoTime.getAsLong();
      if (held.isEmpty()) {
        firstNanos = now;
      }
      lastNanos = now;
      held.add(new Held(what, subject, write));
      if (held.size() >= MAX_HELD) {
        batch = takeAll();
      } else if (!checkScheduled) {
        checkScheduled = true;
        scheduler.after(QUIET, this::check);
      }
    }
    if (batch != null) {
      releaseAll(batch);
    }
  }

  /**
   * Takes the Events held for {@code subject} out of the hold, in the order they came, for the
   * caller to write now: a later Event on the same object is about to be written, and must not
   * reach the API server before them (a {@code DrainBlocked} still held when its drain completes
   * would be written after the {@code DrainCompleted}, with the same second as its timestamp, and
   * read as the drain's last word).
   *
   * @return each taken Event as its name and its write (true when written)
   */
  synchronized List<java.util.Map.Entry<String, BooleanSupplier>> take(String subject) {
    List<java.util.Map.Entry<String, BooleanSupplier>> taken = new ArrayList<>();
    held.removeIf(
        h -> {
          if (!subject.equals(h.subject())) {
            return false;
          }
          taken.add(java.util.Map.entry(h.what(), h.write()));
          return true;
        });
    return taken;
  }

  /** Releases every Event held now, at once (a clean stop of the process). */
  void releaseNow() {
    List<Held> batch;
    synchronized (this) {
      batch = takeAll();
    }
    releaseAll(batch);
  }

  /** Events held now. */
  synchronized int held() {
    return held.size();
  }

  /**
   * When the held Events are due, as a pure function of monotonic nanosecond times.
   *
   * @param firstNanos when the first Event now held came
   * @param lastNanos when the last one came
   * @param nowNanos now
   * @return nanoseconds until they are due; zero or less when due now
   */
  static long nanosUntilDue(long firstNanos, long lastNanos, long nowNanos) {
    long quietEnds = lastNanos + QUIET.toNanos();
    long holdEnds = firstNanos + MAX_HOLD.toNanos();
    return Math.min(quietEnds - nowNanos, holdEnds - nowNanos);
  }

  private void check() {
    List<Held> batch;
    synchronized (this) {
      checkScheduled = false;
      if (held.isEmpty()) {
        return;
      }
      long remaining = nanosUntilDue(firstNanos, lastNanos, nanoTime.getAsLong());
      if (remaining > 0) {
        checkScheduled = true;
        scheduler.after(Duration.ofNanos(remaining), this::check);
        return;
      }
      batch = takeAll();
    }
    releaseAll(batch);
  }

  private List<Held> takeAll() {
    List<Held> batch = new ArrayList<>(held);
    held.clear();
    return batch;
  }

  private void releaseAll(List<Held> batch) {
    for (Held h : batch) {
      release.accept(h.what(), h.write());
    }
  }
}
