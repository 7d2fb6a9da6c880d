package dev.ironcore.maintenance.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.AdmissionReviews;
import dev.ironcore.maintenance.server.conversion.ConversionReviews;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WarmUpTest {
  private final Map<String, AdmissionHandler> routes = AdmissionRoutes.create(labels -> true);

  @Test
  void everyAdmissionPathHasASample() {
    assertThat(WarmUp.samples()).containsOnlyKeys(routes.keySet());
  }

  @Test
  void everySampleIsAllowedAndReachesTheDecision() {
    Map<String, byte[]> samples = WarmUp.samples();
    routes.forEach(
        (path, handler) -> {
          AdmissionReviews.Answer answer =
              AdmissionReviews.answer(path, samples.get(path), handler);
          AdmissionResponse response = answer.response();
          assertThat(answer.uid()).as(path).isEqualTo(WarmUp.UID);
          assertThat(response.isAllowed()).as(path + ": " + response).isTrue();
          assertThat(response.code()).as(path).isEqualTo(200);
        });
    // the mutations do their work on the samples (a patch), not an early skip
    for (String path :
        new String[] {AdmissionRoutes.MUTATE_CAPI_MACHINE, AdmissionRoutes.MUTATE_MACHINE}) {
      AdmissionResponse response =
          AdmissionReviews.answer(path, samples.get(path), routes.get(path)).response();
      assertThat(response.patch().isEmpty()).as(path + ": " + response).isFalse();
    }
  }

  @Test
  void everyConversionSampleSucceedsWithBothObjects() {
    for (byte[] review : WarmUp.conversions()) {
      ConversionReviews.Answer answer = ConversionReviews.answer(AdmissionRoutes.CONVERT, review);
      assertThat(answer.succeeded()).as(answer.review().toString()).isTrue();
      assertThat(answer.review().path("response").path("convertedObjects")).hasSize(2);
    }
  }

  @Test
  void runAnswersEverySampleEveryRound() {
    int perRound = routes.size() + WarmUp.conversions().length;
    assertThat(WarmUp.run(routes, 3)).isEqualTo(3 * perRound);
    assertThat(WarmUp.run(routes, 0)).isZero();
  }

  @Test
  void theSamplesAreNotLoggedEvenAtDebugWhileARealReviewIs() {
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> events =
        new ch.qos.logback.core.read.ListAppender<>();
    events.start();
    java.util.List<ch.qos.logback.classic.Logger> loggers =
        java.util.List.of(
            (ch.qos.logback.classic.Logger)
                org.slf4j.LoggerFactory.getLogger(AdmissionReviews.class),
            (ch.qos.logback.classic.Logger)
                org.slf4j.LoggerFactory.getLogger(ConversionReviews.class));
    java.util.List<ch.qos.logback.classic.Level> before = new java.util.ArrayList<>();
    for (ch.qos.logback.classic.Logger logger : loggers) {
      before.add(logger.getLevel());
      logger.setLevel(ch.qos.logback.classic.Level.DEBUG);
      logger.addAppender(events);
    }
    try {
      WarmUp.run(routes, 2);
      assertThat(events.list).isEmpty();
      // the same review with another uid is logged: the capture works
      byte[] real =
          new String(
                  WarmUp.samples().get(AdmissionRoutes.MUTATE_MACHINE),
                  java.nio.charset.StandardCharsets.UTF_8)
              .replace(WarmUp.UID, "a-real-uid")
              .getBytes(java.nio.charset.StandardCharsets.UTF_8);
      AdmissionReviews.answer(
          AdmissionRoutes.MUTATE_MACHINE, real, routes.get(AdmissionRoutes.MUTATE_MACHINE));
      assertThat(events.list)
          .singleElement()
          .satisfies(e -> assertThat(e.getFormattedMessage()).contains("uid=a-real-uid"));
    } finally {
      for (int i = 0; i < loggers.size(); i++) {
        loggers.get(i).detachAppender(events);
        loggers.get(i).setLevel(before.get(i));
      }
    }
  }

  @Test
  void awaitAtMostCutsALongWarmUpShortAndItStops() throws Exception {
    long start = System.nanoTime();
    Thread thread = WarmUp.inBackground(routes, 1_000_000);
    assertThat(WarmUp.awaitAtMost(thread, start, java.time.Duration.ofMillis(200))).isFalse();
    assertThat(System.nanoTime() - start).isLessThan(java.time.Duration.ofSeconds(5).toNanos());
    thread.join(10_000);
    assertThat(thread.isAlive()).isFalse();
  }

  @Test
  void awaitAtMostReturnsTrueForAWarmUpThatFinished() {
    long start = System.nanoTime();
    Thread thread = WarmUp.inBackground(routes, 1);
    assertThat(WarmUp.awaitAtMost(thread, start, java.time.Duration.ofSeconds(30))).isTrue();
    assertThat(thread.isAlive()).isFalse();
  }

  @Test
  void anInterruptedRunStopsBeforeTheNextRound() {
    Thread.currentThread().interrupt();
    try {
      assertThat(WarmUp.run(routes, 5)).isZero();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void inBackgroundFinishesAndSurvivesAHandlerThatThrows() throws Exception {
    AdmissionHandler throwing =
        request -> {
          throw new IllegalStateException("boom");
        };
    Thread thread =
        WarmUp.inBackground(Map.of(AdmissionRoutes.MUTATE_MACHINE, throwing), WarmUp.ROUNDS);
    thread.join(10_000);
    assertThat(thread.isAlive()).isFalse();
    assertThat(thread.getName()).isEqualTo("warm-up");
    assertThat(thread.isDaemon()).isTrue();
  }
}
