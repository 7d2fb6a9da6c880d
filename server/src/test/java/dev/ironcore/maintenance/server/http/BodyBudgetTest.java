package dev.ironcore.maintenance.server.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BodyBudgetTest {
  private final ScheduledExecutorScheduler scheduler = new ScheduledExecutorScheduler();
  private final Executor direct = Runnable::run;
  private final List<String> events = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    scheduler.start();
  }

  @AfterEach
  void stop() throws Exception {
    scheduler.stop();
  }

  /** Reserves and records "granted NAME" / "refused NAME"; returns where the reservation lands. */
  private AtomicReference<Runnable> reserve(BodyBudget budget, String name, long bytes) {
    AtomicReference<Runnable> held = new AtomicReference<>();
    budget.reserve(
        bytes,
        direct,
        scheduler,
        r -> {
          held.set(r);
          events.add("granted " + name);
        },
        () -> events.add("refused " + name));
    return held;
  }

  @Test
  void whatFitsIsGrantedAtOnceOnTheCallingThread() {
    BodyBudget budget = new BodyBudget(1000, Duration.ofSeconds(5));
    reserve(budget, "a", 600);
    reserve(budget, "b", 400);
    assertThat(events).containsExactly("granted a", "granted b");
    assertThat(budget.inUseBytes()).isEqualTo(1000);
  }

  @Test
  void whatDoesNotFitWaitsUntilRoomIsReleasedInArrivalOrder() {
    BodyBudget budget = new BodyBudget(1000, Duration.ofSeconds(5));
    AtomicReference<Runnable> a = reserve(budget, "a", 800);
    reserve(budget, "b", 500);
    // c would fit now, but b came first: nobody overtakes a waiting request
    reserve(budget, "c", 100);
    assertThat(events).containsExactly("granted a");
    a.get().run();
    assertThat(events).containsExactly("granted a", "granted b", "granted c");
    assertThat(budget.inUseBytes()).isEqualTo(600);
  }

  @Test
  void aReleaseCountsOnce() {
    BodyBudget budget = new BodyBudget(1000, Duration.ofSeconds(5));
    AtomicReference<Runnable> a = reserve(budget, "a", 700);
    reserve(budget, "b", 200);
    a.get().run();
    a.get().run();
    assertThat(budget.inUseBytes()).isEqualTo(200);
  }

  @Test
  void aBodyLargerThanTheBudgetReservesAllOfItAndIsAnsweredAlone() {
    BodyBudget budget = new BodyBudget(1000, Duration.ofSeconds(5));
    AtomicReference<Runnable> big = reserve(budget, "big", 5000);
    reserve(budget, "small", 1);
    assertThat(events).containsExactly("granted big");
    assertThat(budget.inUseBytes()).isEqualTo(1000);
    big.get().run();
    assertThat(events).containsExactly("granted big", "granted small");
  }

  @Test
  void aRequestThatFindsNoRoomWithinTheWaitIsRefusedAndLetsTheOnesBehindItIn() throws Exception {
    BodyBudget budget = new BodyBudget(1000, Duration.ofMillis(200));
    reserve(budget, "a", 600);
    long start = System.nanoTime();
    reserve(budget, "b", 500);
    // c waits only because b is before it
    CountDownLatch cGranted = new CountDownLatch(1);
    budget.reserve(
        300, direct, scheduler, r -> cGranted.countDown(), () -> events.add("refused c"));
    assertThat(cGranted.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(events).containsExactly("granted a", "refused b");
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(200));
    assertThat(budget.inUseBytes()).isEqualTo(900);
  }

  @Test
  void aGrantedRequestIsNotRefusedLater() throws Exception {
    BodyBudget budget = new BodyBudget(1000, Duration.ofMillis(100));
    AtomicReference<Runnable> a = reserve(budget, "a", 1000);
    reserve(budget, "b", 1000);
    a.get().run();
    Thread.sleep(300);
    assertThat(events).containsExactly("granted a", "granted b");
  }

  @Test
  void aLargeReservationNeverReleasedIsReleasedAfterTheLongestHold() throws Exception {
    BodyBudget budget = new BodyBudget(1_000_000, Duration.ofSeconds(5), Duration.ofMillis(200));
    reserve(budget, "stuck", 1_000_000);
    CountDownLatch next = new CountDownLatch(1);
    budget.reserve(
        1_000_000, direct, scheduler, r -> next.countDown(), () -> events.add("refused"));
    assertThat(next.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(events).containsExactly("granted stuck");
  }

  @Test
  void aSmallReservationHasNoTimer() throws Exception {
    // every review reserves its body: no timer per review; it is released when it completes
    BodyBudget budget = new BodyBudget(1000, Duration.ofSeconds(5), Duration.ofMillis(50));
    reserve(budget, "small", 1000);
    Thread.sleep(300);
    assertThat(budget.inUseBytes()).isEqualTo(1000);
  }

  @Test
  void theBudgetForTheShippedHeapAnswersTheLargestBodyAndGrowsWithTheHeap() {
    long mib = 1024 * 1024;
    // -Xmx64m: the serial collector reports 62 MiB (one survivor space is not counted)
    assertThat(BodyBudget.forHeap(62 * mib).capacityBytes())
        .isEqualTo(30 * mib / 4)
        .isGreaterThan(Routes.BODY_LIMIT_BYTES);
    assertThat(BodyBudget.forHeap(16 * mib).capacityBytes()).isEqualTo(Routes.BODY_LIMIT_BYTES + 1);
    assertThat(BodyBudget.forHeap(1024 * mib).capacityBytes()).isEqualTo((1024 - 32) * mib / 4);
    assertThat(BodyBudget.forHeap(64 * mib).maxWait()).isEqualTo(BodyBudget.DEFAULT_WAIT);
  }

  @Test
  void badSettingsAreRefused() {
    assertThatThrownBy(() -> new BodyBudget(0, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("capacityBytes must be positive, got 0");
    assertThatThrownBy(() -> new BodyBudget(10, Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("wait must not be negative");
  }

  private BodyBudget.Reservation reservation(AtomicReference<Runnable> held) {
    return (BodyBudget.Reservation) held.get();
  }

  @Test
  void aTreeWithinWhatWasReservedBeyondTheBodyTakesNothingMore() {
    BodyBudget budget = new BodyBudget(100_000, Duration.ofSeconds(5));
    BodyBudget.Reservation r = reservation(reserve(budget, "a", 1_000 + 24 * 100));
    assertThat(r.tokens(1_000).admit(1)).isEqualTo(100);
    assertThat(budget.inUseBytes()).isEqualTo(3_400);
  }

  @Test
  void aLargerTreeGrowsTheReservationAndItsReleaseGivesEverythingBack() {
    BodyBudget budget = new BodyBudget(1_000_000, Duration.ofSeconds(5));
    BodyBudget.Reservation r = reservation(reserve(budget, "a", 1_000));
    long granted = r.tokens(1_000).admit(5_000);
    // at least 64 KiB more: 5,000 tokens need 120,000 bytes
    assertThat(granted).isGreaterThanOrEqualTo(5_000);
    assertThat(budget.inUseBytes()).isEqualTo(r.bytes()).isGreaterThanOrEqualTo(121_000);
    r.run();
    assertThat(budget.inUseBytes()).isZero();
  }

  @Test
  void aTreeThatCouldNotBeHeldEvenAloneIsRefusedForGood() {
    BodyBudget budget = new BodyBudget(100_000, Duration.ofSeconds(5));
    BodyBudget.Reservation r = reservation(reserve(budget, "a", 10_000));
    assertThatThrownBy(() -> r.tokens(10_000).admit(4_000))
        .isInstanceOfSatisfying(
            dev.ironcore.maintenance.server.admission.TokenAllowance.Refused.class,
            e -> assertThat(e.never()).isTrue())
        .hasMessageContaining("too many JSON values")
        .hasMessageContaining("100000 bytes");
    assertThat(budget.inUseBytes()).isEqualTo(10_000);
  }

  @Test
  void aTreeThatFindsNoRoomNowIsRefusedWithoutWaiting() {
    BodyBudget budget = new BodyBudget(100_000, Duration.ofSeconds(5));
    reserve(budget, "other", 80_000);
    BodyBudget.Reservation r = reservation(reserve(budget, "a", 10_000));
    // needs 10,000 + 24,000 bytes: fits the budget, not beside the other request
    assertThatThrownBy(() -> r.tokens(10_000).admit(1_000))
        .isInstanceOfSatisfying(
            dev.ironcore.maintenance.server.admission.TokenAllowance.Refused.class,
            e -> assertThat(e.never()).isFalse())
        .hasMessageContaining("no room now");
    assertThat(budget.inUseBytes()).isEqualTo(90_000);
    // what fits exactly is still taken when the step does not
    assertThat(r.tokens(10_000).admit(400)).isEqualTo(400);
    assertThat(budget.inUseBytes()).isEqualTo(99_600);
  }

  /**
   * Ten dense reviews of 643 KB at once all got 503 although each alone fits (their reservations
   * grew without waiting and crowded each other out): the oldest large one now waits for the
   * others, and queued requests do not overtake it meanwhile.
   */
  @Test
  void theOldestLargeRequestWaitsToGrowAndQueuedOnesDoNotOvertakeIt() throws Exception {
    BodyBudget budget = new BodyBudget(1_000_000, Duration.ofSeconds(5));
    BodyBudget.Reservation old = reservation(reserve(budget, "old", 100_000));
    BodyBudget.Reservation young = reservation(reserve(budget, "young", 800_000));
    assertThatThrownBy(() -> young.tokens(800_000).admit(5_000))
        .isInstanceOfSatisfying(
            dev.ironcore.maintenance.server.admission.TokenAllowance.Refused.class,
            e -> assertThat(e.never()).isFalse());
    // 100,000 bytes and 20,000 tokens need 580,000: they fit only once the young one is gone
    AtomicReference<Object> result = new AtomicReference<>();
    Thread grower = growing(old, 100_000, 20_000, result);
    reserve(budget, "queued", 50_000); // would fit beside both, but not beside the growth
    assertThat(events).containsExactly("granted old", "granted young");
    young.run();
    grower.join(5_000);
    assertThat(result.get()).isEqualTo(20_000L);
    assertThat(events).containsExactly("granted old", "granted young", "granted queued");
    assertThat(budget.inUseBytes()).isEqualTo(old.bytes() + 50_000);
  }

  @Test
  void theOldestLargeRequestGivesUpAfterTheWait() throws Exception {
    BodyBudget budget = new BodyBudget(1_000_000, Duration.ofMillis(300));
    BodyBudget.Reservation old = reservation(reserve(budget, "old", 100_000));
    reserve(budget, "young", 800_000);
    assertThatThrownBy(() -> old.tokens(100_000).admit(20_000))
        .isInstanceOfSatisfying(
            dev.ironcore.maintenance.server.admission.TokenAllowance.Refused.class,
            e -> assertThat(e.never()).isFalse())
        .hasMessageContaining("no room now");
    reserve(budget, "after", 50_000);
    assertThat(events).containsExactly("granted old", "granted young", "granted after");
  }

  /** When the oldest stops waiting (here interrupted), the requests it kept queued are let in. */
  @Test
  void theQueuedOnesAreLetInWhenTheOldestStopsWaiting() throws Exception {
    BodyBudget budget = new BodyBudget(1_000_000, Duration.ofSeconds(5));
    BodyBudget.Reservation old = reservation(reserve(budget, "old", 100_000));
    reserve(budget, "young", 800_000);
    AtomicReference<Object> result = new AtomicReference<>();
    Thread grower = growing(old, 100_000, 20_000, result);
    reserve(budget, "queued", 50_000);
    assertThat(events).containsExactly("granted old", "granted young");
    grower.interrupt();
    grower.join(5_000);
    assertThat(result.get())
        .isInstanceOf(dev.ironcore.maintenance.server.admission.TokenAllowance.Refused.class);
    assertThat(events).containsExactly("granted old", "granted young", "granted queued");
  }

  @Test
  void aYoungerLargeRequestNeverWaitsToGrow() {
    BodyBudget budget = new BodyBudget(1_000_000, Duration.ofSeconds(5));
    reserve(budget, "old", 100_000);
    BodyBudget.Reservation young = reservation(reserve(budget, "young", 800_000));
    long start = System.nanoTime();
    assertThatThrownBy(() -> young.tokens(800_000).admit(5_000))
        .hasMessageContaining("no room now");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
  }

  /**
   * Starts a thread admitting {@code tokens} for {@code r} (its body {@code bodyBytes}) and returns
   * once it waits to grow; its result (the tokens granted, or the refusal) lands in {@code result}.
   */
  private static Thread growing(
      BodyBudget.Reservation r, long bodyBytes, long tokens, AtomicReference<Object> result)
      throws InterruptedException {
    Thread t =
        new Thread(
            () -> {
              try {
                result.set(r.tokens(bodyBytes).admit(tokens));
              } catch (RuntimeException e) {
                result.set(e);
              }
            });
    t.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (t.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(t.getState()).isEqualTo(Thread.State.TIMED_WAITING);
    return t;
  }

  @Test
  void aRequestReservesRoomForItsTreeBesideItsBody() {
    assertThat(BodyBudget.reservationFor(0)).isEqualTo(16 * 1024);
    assertThat(BodyBudget.reservationFor(4_400)).isEqualTo(4_400 + 16 * 1024);
    // a token per 12 bytes: twice the body
    assertThat(BodyBudget.reservationFor(24_000)).isEqualTo(3 * 24_000);
    assertThat(BodyBudget.reservationFor(7_000_000)).isEqualTo(7_000_000 + 2 * 64 * 1024);
  }

  @Test
  void aReplyLargerThanItsBodyGrowsTheReservationOrIsRefused() {
    BodyBudget budget = new BodyBudget(100_000, Duration.ofSeconds(5));
    BodyBudget.Reservation r = reservation(reserve(budget, "a", 30_000));
    dev.ironcore.maintenance.server.admission.TokenAllowance allowance = r.tokens(30_000);
    allowance.admitReplyBytes(20_000);
    assertThat(r.bytes()).isGreaterThanOrEqualTo(50_000);
    // the trees now share what the reply left
    assertThat(allowance.admit(1)).isEqualTo((r.bytes() - 50_000) / BodyBudget.BYTES_PER_TOKEN);
    assertThatThrownBy(() -> allowance.admitReplyBytes(80_000))
        .isInstanceOfSatisfying(
            dev.ironcore.maintenance.server.admission.TokenAllowance.Refused.class,
            e -> assertThat(e.never()).isTrue())
        .hasMessageContaining("the reply to this request is too large")
        .hasMessageContaining("a reply of more than 110000 bytes");
  }

  @Test
  void textOutsideLatin1IsFoundByItsBytesOrItsEscape() {
    assertThat(BodyBudget.hasWideText("{\"a\":\"plain \\u00e9 é\"}".getBytes(UTF_8))).isFalse();
    assertThat(BodyBudget.hasWideText("{\"a\":\"Ā\"}".getBytes(UTF_8))).isTrue();
    assertThat(BodyBudget.hasWideText("{\"a\":\"€\"}".getBytes(UTF_8))).isTrue();
    assertThat(BodyBudget.hasWideText("{\"a\":\"\\u0100\"}".getBytes(UTF_8))).isTrue();
    assertThat(BodyBudget.hasWideText("{\"a\":\"\\u00ff\"}".getBytes(UTF_8))).isFalse();
  }

  /**
   * A large body with text outside Latin-1 counts twice: Java holds such text at 2 bytes a char.
   */
  @Test
  void aLargeBodyWithTextOutsideLatin1CountsTwice() {
    byte[] wide = ("\"Ā" + "a".repeat(99_990) + "\"").getBytes(UTF_8);
    byte[] latin1 = ("\"é" + "a".repeat(99_990) + "\"").getBytes(UTF_8);
    BodyBudget budget = new BodyBudget(300_000, Duration.ofSeconds(5));
    BodyBudget.Reservation plain = reservation(reserve(budget, "plain", latin1.length));
    plain.tokens(latin1);
    assertThat(plain.bytes()).isEqualTo(latin1.length);
    plain.run();
    BodyBudget.Reservation r = reservation(reserve(budget, "wide", wide.length));
    r.tokens(wide);
    assertThat(r.bytes()).isGreaterThanOrEqualTo(2L * wide.length);
    r.run();
    BodyBudget small = new BodyBudget(150_000, Duration.ofSeconds(5));
    BodyBudget.Reservation alone = reservation(reserve(small, "wide", wide.length));
    assertThatThrownBy(() -> alone.tokens(wide))
        .isInstanceOfSatisfying(
            dev.ironcore.maintenance.server.admission.TokenAllowance.Refused.class,
            e -> assertThat(e.never()).isTrue())
        .hasMessageContaining("text outside Latin-1")
        .hasMessageContaining("count twice and exceed the 150000 bytes");
  }
}
