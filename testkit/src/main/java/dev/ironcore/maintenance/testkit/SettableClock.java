package dev.ironcore.maintenance.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A UTC clock that stands still until a test sets or advances it; safe to read from any thread. */
public final class SettableClock extends Clock {
  private volatile Instant now;

  /**
   * @param now the instant the clock shows until {@link #set} or {@link #advance}
   */
  public SettableClock(Instant now) {
    this.now = now;
  }

  /** Shows {@code instant} from now on. */
  public void set(Instant instant) {
    now = instant;
  }

  /** Moves the clock forward by {@code duration}. */
  public void advance(Duration duration) {
    now = now.plus(duration);
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
