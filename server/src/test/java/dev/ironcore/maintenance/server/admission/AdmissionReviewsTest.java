package dev.ironcore.maintenance.server.admission;

import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.patch.JsonPatch;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class AdmissionReviewsTest {
  private static final AdmissionHandler ALLOW = r -> AdmissionResponse.allowed();
  private static final String HOOK = "/validate/machine";

  private static ObjectNode sample(String uid) {
    return TestReviews.review(
        uid,
        "compute.ironcore.dev",
        "v1alpha1",
        "Machine",
        "machines",
        Operation.CREATE,
        json("{'metadata':{'name':'m','namespace':'ns'}}"),
        null);
  }

  /** The decision lines logged while {@code handler} answers, with the logger at {@code level}. */
  private static java.util.List<ch.qos.logback.classic.spi.ILoggingEvent> decisionLines(
      ch.qos.logback.classic.Level level, AdmissionHandler handler) {
    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(AdmissionReviews.class);
    // reads each event's MDC while it is logged (logback copies it lazily)
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> events =
        new ch.qos.logback.core.read.ListAppender<>() {
          @Override
          protected void append(ch.qos.logback.classic.spi.ILoggingEvent e) {
            e.prepareForDeferredProcessing();
            super.append(e);
          }
        };
    events.start();
    ch.qos.logback.classic.Level before = logger.getLevel();
    logger.setLevel(level);
    logger.addAppender(events);
    try {
      AdmissionReviews.reply(HOOK, sample("u-mdc"), handler);
    } finally {
      logger.detachAppender(events);
      logger.setLevel(before);
    }
    return events.list;
  }

  @Test
  void theDecisionLineNamesTheObjectInTheLogContext() {
    assertThat(decisionLines(ch.qos.logback.classic.Level.DEBUG, ALLOW))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getFormattedMessage()).contains("uid=u-mdc", "allowed=true");
              assertThat(e.getMDCPropertyMap())
                  .containsEntry("kind", "Machine.compute.ironcore.dev")
                  .containsEntry("namespace", "ns")
                  .containsEntry("name", "m");
            });
    assertThat(org.slf4j.MDC.get("kind")).as("restored after the line").isNull();
  }

  @Test
  void allowedRequestsAreLoggedAtDebugDenialsAtInfo() {
    AdmissionHandler deny = r -> AdmissionResponse.denied("no");
    assertThat(decisionLines(ch.qos.logback.classic.Level.INFO, ALLOW)).isEmpty();
    assertThat(decisionLines(ch.qos.logback.classic.Level.DEBUG, ALLOW))
        .singleElement()
        .satisfies(e -> assertThat(e.getLevel()).isEqualTo(ch.qos.logback.classic.Level.DEBUG));
    assertThat(decisionLines(ch.qos.logback.classic.Level.INFO, deny))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getLevel()).isEqualTo(ch.qos.logback.classic.Level.INFO);
              assertThat(e.getFormattedMessage()).contains("allowed=false", "message=no");
            });
    assertThat(decisionLines(ch.qos.logback.classic.Level.WARN, deny)).isEmpty();
    // a review the path could not judge (e.g. a misrouted kind) is a WARN, as a malformed one is
    AdmissionHandler errored = r -> AdmissionResponse.errored(400, "not judged");
    assertThat(decisionLines(ch.qos.logback.classic.Level.WARN, errored))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getLevel()).isEqualTo(ch.qos.logback.classic.Level.WARN);
              assertThat(e.getFormattedMessage()).contains("allowed=false", "code=400");
            });
  }

  @Test
  void echoesUidApiVersionAndKind() {
    ObjectNode reply = AdmissionReviews.reply(HOOK, sample("u-1"), ALLOW);
    assertThat(reply)
        .isEqualTo(
            json(
                "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview',"
                    + "'response':{'uid':'u-1','allowed':true}}"));
    ObjectNode beta = sample("u-2").put("apiVersion", "admission.k8s.io/v1beta1");
    assertThat(AdmissionReviews.reply(HOOK, beta, ALLOW).get("apiVersion").asText())
        .isEqualTo("admission.k8s.io/v1beta1");
  }

  @Test
  void patchTypeOnlyWithNonEmptyPatch() {
    JsonNode empty =
        AdmissionReviews.reply(
            HOOK, sample("u"), r -> AdmissionResponse.patched(JsonPatch.empty()));
    assertThat(empty.get("response").has("patchType")).isFalse();
    assertThat(empty.get("response").has("patch")).isFalse();
    JsonNode some =
        AdmissionReviews.reply(
            HOOK,
            sample("u"),
            r -> AdmissionResponse.patched(JsonPatch.builder().add("/a", "b").build()));
    assertThat(some.at("/response/patchType").asText()).isEqualTo("JSONPatch");
  }

  @Test
  void handlerExceptionBecomesErroredResponseWithUid() {
    JsonNode reply =
        AdmissionReviews.reply(
            HOOK,
            sample("u-3"),
            r -> {
              throw new IllegalStateException("kaputt");
            });
    assertThat(reply.at("/response/uid").asText()).isEqualTo("u-3");
    assertThat(reply.at("/response/allowed").asBoolean()).isFalse();
    assertThat(reply.at("/response/status/code").asInt()).isEqualTo(500);
    assertThat(reply.at("/response/status/message").asText()).contains("kaputt");
    assertThat(
            AdmissionReviews.reply(HOOK, sample("u-4"), r -> null)
                .at("/response/status/code")
                .asInt())
        .isEqualTo(500);
  }

  @Test
  void malformedReviewsGetAValidErroredReview() {
    assertMalformed(
        AdmissionReviews.reply(
            HOOK, json("{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview'}"), ALLOW),
        "",
        "no request");
    assertMalformed(
        AdmissionReviews.reply(HOOK, json("{'request':{'operation':'CREATE'}}"), ALLOW),
        "",
        "request.uid");
    assertMalformed(
        AdmissionReviews.reply(HOOK, json("{'request':{'uid':'u-5'}}"), ALLOW),
        "u-5",
        "request.operation");
    assertMalformed(
        AdmissionReviews.reply(
            HOOK, json("{'kind':'ConversionReview','request':{'uid':'u-6'}}"), ALLOW),
        "u-6",
        "expected kind AdmissionReview");
    assertMalformed(
        AdmissionReviews.reply(
            HOOK, json("{'apiVersion':'admission.k8s.io/v2','request':{'uid':'u-8'}}"), ALLOW),
        "u-8",
        "expected apiVersion admission.k8s.io/v1 (or admission.k8s.io/v1beta1), got"
            + " \"admission.k8s.io/v2\"");
    assertMalformed(
        AdmissionReviews.reply(HOOK, json("[1,2]"), ALLOW), "", "not an AdmissionReview");
    assertMalformed(
        AdmissionReviews.reply(HOOK, (JsonNode) null, ALLOW), "", "not an AdmissionReview");
  }

  @Test
  void bodyThatIsNotJsonStillYieldsTheUidWhenReadable() {
    String cut =
        "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":"
            + "{\"kind\":{\"group\":\"g\",\"uid\":\"wrong-level\"},\"uid\":\"u-7\",\"object\":{\"metadata\":";
    assertMalformed(
        AdmissionReviews.reply(HOOK, cut.getBytes(StandardCharsets.UTF_8), ALLOW),
        "u-7",
        "not valid JSON");
    assertMalformed(
        AdmissionReviews.reply(HOOK, "garbage".getBytes(StandardCharsets.UTF_8), ALLOW),
        "",
        "not valid JSON");
    assertMalformed(AdmissionReviews.reply(HOOK, new byte[0], ALLOW), "", "request body is empty");
    // one review per body: whatever follows it is refused, not ignored
    String one = sample("u-9").toString();
    for (String trailing : new String[] {" garbage", "]", one}) {
      assertMalformed(
          AdmissionReviews.reply(HOOK, (one + trailing).getBytes(StandardCharsets.UTF_8), ALLOW),
          "u-9",
          "not valid JSON");
    }
    assertMalformed(
        AdmissionReviews.reply(HOOK, (one + one).getBytes(StandardCharsets.UTF_8), ALLOW),
        "u-9",
        "unexpected content after the JSON value");
    assertThat(
            AdmissionReviews.reply(HOOK, (one + " \n").getBytes(StandardCharsets.UTF_8), ALLOW)
                .at("/response/allowed")
                .asBoolean())
        .as("trailing whitespace is fine")
        .isTrue();
  }

  @Test
  void wellFormedBytesAreDecoded() {
    byte[] body = sample("u-8").toString().getBytes(StandardCharsets.UTF_8);
    assertThat(AdmissionReviews.reply(HOOK, body, ALLOW).at("/response/allowed").asBoolean())
        .isTrue();
    assertThat(AdmissionReviews.reply(body, ALLOW).at("/response/allowed").asBoolean()).isTrue();
  }

  private static void assertMalformed(JsonNode reply, String uid, String messagePart) {
    assertThat(reply.get("apiVersion").asText()).isEqualTo("admission.k8s.io/v1");
    assertThat(reply.get("kind").asText()).isEqualTo("AdmissionReview");
    assertThat(reply.at("/response/uid").asText()).isEqualTo(uid);
    assertThat(reply.at("/response/allowed").asBoolean()).isFalse();
    assertThat(reply.at("/response/status/code").asInt()).isEqualTo(400);
    assertThat(reply.at("/response/status/message").asText()).contains(messagePart);
  }

  @Test
  void aUidThatIsNotAStringIsNamedAndNotEchoed() {
    ObjectNode review = sample("x");
    ((ObjectNode) review.get("request")).put("uid", 42);
    assertMalformed(
        AdmissionReviews.reply(HOOK, review, ALLOW), "", "request.uid must be a string");
    ((ObjectNode) review.get("request")).putObject("uid").put("nested", "u");
    assertMalformed(
        AdmissionReviews.reply(HOOK, review, ALLOW), "", "request.uid must be a string");
  }

  @Test
  void badObjectsAreA400NamingTheFieldWithTheUid() {
    ObjectNode review = sample("u-9");
    ObjectNode request = (ObjectNode) review.get("request");
    request.put("object", "not an object");
    assertMalformed(
        AdmissionReviews.reply(HOOK, review, ALLOW), "u-9", "request.object must be a JSON object");
    request.set("object", json("{'metadata':'m'}"));
    assertMalformed(
        AdmissionReviews.reply(HOOK, review, ALLOW),
        "u-9",
        "request.object.metadata must be a JSON object");
    request.putNull("object");
    assertMalformed(
        AdmissionReviews.reply(HOOK, review, ALLOW),
        "u-9",
        "request.object is required for CREATE");
    request.remove("kind");
    assertMalformed(AdmissionReviews.reply(HOOK, review, ALLOW), "u-9", "request.kind is missing");
  }

  @Test
  void theDecisionLogLineNamesTheWebhook() {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      // denials: logged at INFO (allowed requests at DEBUG)
      AdmissionHandler deny = r -> AdmissionResponse.denied("no");
      AdmissionReviews.reply("/mutate/machine", sample("u-10"), deny);
      AdmissionReviews.reply("/validate/machine", sample("u-11"), deny);
      AdmissionReviews.reply("/validate/machinepool", json("{'request':{'uid':'u-12'}}"), ALLOW);
    } finally {
      System.setErr(original);
    }
    String log = captured.toString(StandardCharsets.UTF_8);
    assertThat(log)
        .contains("admission webhook=/mutate/machine uid=u-10 ")
        .contains("admission webhook=/validate/machine uid=u-11 ")
        .contains("admission webhook=/validate/machinepool uid=u-12 rejected malformed review");
  }

  @Test
  void theAnswerCarriesTheResponseOfItsReview() {
    AdmissionReviews.Answer allowed = AdmissionReviews.answer(HOOK, sample("u-13"), ALLOW);
    assertThat(allowed.response().decision()).isEqualTo(AdmissionResponse.Decision.ALLOWED);
    assertThat(allowed.review().at("/response/uid").asText()).isEqualTo("u-13");

    AdmissionReviews.Answer failed =
        AdmissionReviews.answer(
            HOOK,
            sample("u-14"),
            r -> {
              throw new IllegalStateException("kaputt");
            });
    assertThat(failed.response().decision()).isEqualTo(AdmissionResponse.Decision.ERRORED);
    assertThat(failed.response().code()).isEqualTo(500);

    byte[] notJson = "garbage".getBytes(StandardCharsets.UTF_8);
    AdmissionReviews.Answer garbage = AdmissionReviews.answer(HOOK, notJson, ALLOW);
    assertThat(garbage.response().decision()).isEqualTo(AdmissionResponse.Decision.ERRORED);
    assertThat(garbage.response().code()).isEqualTo(400);
    assertThat(garbage.review().at("/response/status/code").asInt()).isEqualTo(400);
  }
}
