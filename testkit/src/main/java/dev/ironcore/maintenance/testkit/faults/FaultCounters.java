package dev.ironcore.maintenance.testkit.faults;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What a {@link FaultProxy} saw and did, so a test can assert that its faults really happened.
 * Every count starts at 0 and only grows; all methods are thread-safe.
 */
public final class FaultCounters {
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong watchesOpened = new AtomicLong();
  private final AtomicLong watchesCut = new AtomicLong();
  private final AtomicLong connectionsCut = new AtomicLong();
  private final AtomicLong tooManyRequests = new AtomicLong();
  private final AtomicLong internalErrors = new AtomicLong();
  private final AtomicLong upgradesRefused = new AtomicLong();

  /** Requests received from the client, faulted or not (a WebSocket upgrade included). */
  public long requests() {
    return requests.get();
  }

  /** Watch requests ({@code watch=true}) forwarded to the API server. */
  public long watchesOpened() {
    return watchesOpened.get();
  }

  /** Watch connections closed by {@link FaultProxy#cutWatches()} or {@link FaultProxy#cutAll()}. */
  public long watchesCut() {
    return watchesCut.get();
  }

  /** Client connections closed by {@link FaultProxy#cutAll()} (watches included). */
  public long connectionsCut() {
    return connectionsCut.get();
  }

  /** Requests answered 429 Too Many Requests by the proxy itself. */
  public long tooManyRequests() {
    return tooManyRequests.get();
  }

  /** Requests answered 500 Internal Server Error by the proxy itself. */
  public long internalErrors() {
    return internalErrors.get();
  }

  /** Requests answered with an error by the proxy itself (429 and 500 and any other status). */
  public long faultsInjected() {
    return tooManyRequests.get() + internalErrors.get();
  }

  /** WebSocket upgrades answered 200 without upgrading (the client then watches over HTTP). */
  public long upgradesRefused() {
    return upgradesRefused.get();
  }

  void request() {
    requests.incrementAndGet();
  }

  void watchOpened() {
    watchesOpened.incrementAndGet();
  }

  void watchCut() {
    watchesCut.incrementAndGet();
  }

  void connectionCut() {
    connectionsCut.incrementAndGet();
  }

  void upgradeRefused() {
    upgradesRefused.incrementAndGet();
  }

  void injected(int status) {
    (status == 429 ? tooManyRequests : internalErrors).incrementAndGet();
  }

  @Override
  public String toString() {
    return "requests="
        + requests()
        + " watchesOpened="
        + watchesOpened()
        + " watchesCut="
        + watchesCut()
        + " connectionsCut="
        + connectionsCut()
        + " 429="
        + tooManyRequests()
        + " 500="
        + internalErrors()
        + " upgradesRefused="
        + upgradesRefused();
  }
}
