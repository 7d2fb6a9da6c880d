package dev.ironcore.maintenance.server.conversion;

import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ConversionReviewsTest {
  private static ConversionReviews.Answer answer(String review) {
    return ConversionReviews.answer("/convert", review.getBytes(StandardCharsets.UTF_8));
  }

  private static String review(String uid, String desired, String objects) {
    return ("{'apiVersion':'apiextensions.k8s.io/v1','kind':'ConversionReview','request':{'uid':'"
            + uid
            + "','desiredAPIVersion':'"
            + desired
            + "','objects':"
            + objects
            + "}}")
        .replace('\'', '"');
  }

  private static JsonNode response(ConversionReviews.Answer a) {
    assertThat(a.review().get("kind").asText()).isEqualTo("ConversionReview");
    return a.review().get("response");
  }

  @Test
  void convertsEveryObjectInOrderAndEchoesTheUid() {
    ConversionReviews.Answer a =
        answer(
            review(
                "u-1",
                ComputeVersions.V1ALPHA1,
                "[{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'Machine','metadata':{'name':'a'}},"
                    + "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'MachinePool','metadata':{'name':'b'}},"
                    + "{'apiVersion':'compute.ironcore.dev/v1alpha1','kind':'Machine'}]"));
    assertThat(a.succeeded()).isTrue();
    assertThat(a.review().get("apiVersion").asText()).isEqualTo("apiextensions.k8s.io/v1");
    JsonNode r = response(a);
    assertThat(r.get("uid").asText()).isEqualTo("u-1");
    assertThat(r.at("/result/status").asText()).isEqualTo("Success");
    assertThat(r.get("convertedObjects")).hasSize(3);
    r.get("convertedObjects")
        .forEach(o -> assertThat(o.get("apiVersion").asText()).isEqualTo(ComputeVersions.V1ALPHA1));
    assertThat(r.at("/convertedObjects/0/metadata/name").asText()).isEqualTo("a");
    assertThat(r.at("/convertedObjects/1/kind").asText()).isEqualTo("MachinePool");
  }

  @Test
  void emptyMissingOrNullObjectsSucceedWithNone() {
    for (String objects : new String[] {"[]", "null"}) {
      JsonNode r = response(answer(review("u", ComputeVersions.V1ALPHA2, objects)));
      assertThat(r.at("/result/status").asText()).isEqualTo("Success");
      assertThat(r.get("convertedObjects")).isEmpty();
    }
    JsonNode r =
        response(
            ConversionReviews.answer(
                "/convert",
                json("{'kind':'ConversionReview','request':{'uid':'u','desiredAPIVersion':'x'}}")));
    assertThat(r.at("/result/status").asText())
        .as("an unknown desiredAPIVersion fails the review also with no objects")
        .isEqualTo("Failure");
    assertThat(r.at("/result/message").asText())
        .isEqualTo(
            "request.desiredAPIVersion must be one of [compute.ironcore.dev/v1alpha1,"
                + " compute.ironcore.dev/v1alpha2], got \"x\"");
  }

  /**
   * The values a tester posted to /convert in the annotation of a Machine stored before our
   * webhooks ({@code 'not json'}, {@code ""}, {@code []}, {@code null}, {@code
   * {"tolerations":"x"}}): each review failed ({@code cannot convert objects[0] (Machine
   * default/old-ann) to compute.ironcore.dev/v1alpha2: annotation ... is not valid JSON}), and with
   * it every v1alpha2 list of Machines. Now each succeeds, in both answers, with the value kept.
   */
  @Test
  void anUnreadableAnnotationNeverFailsTheReview() throws Exception {
    for (String value : new String[] {"not json", "", "[]", "null", "{\"tolerations\":\"x\"}"}) {
      ObjectNode object =
          (ObjectNode)
              json(
                  "{'apiVersion':'compute.ironcore.dev/v1alpha1','kind':'Machine',"
                      + "'metadata':{'name':'old-ann','namespace':'default','annotations':{}},"
                      + "'spec':{'tolerations':[{'key':'k','operator':'Exists'}]}}");
      ((ObjectNode) object.at("/metadata/annotations")).put(V1alpha2Fields.ANNOTATION, value);
      String body =
          "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"ConversionReview\","
              + "\"request\":{\"uid\":\"u-old\",\"desiredAPIVersion\":\""
              + ComputeVersions.V1ALPHA2
              + "\",\"objects\":["
              + object
              + "]}}";
      ConversionReviews.Answer a = answer(body);
      assertThat(a.succeeded()).as(value).isTrue();
      JsonNode converted = response(a).at("/convertedObjects/0");
      assertThat(converted.get("apiVersion").asText()).isEqualTo(ComputeVersions.V1ALPHA2);
      assertThat(converted.at("/metadata/annotations").get(V1alpha2Fields.ANNOTATION).asText())
          .isEqualTo(value);
      assertThat(converted.get("spec")).isEqualTo(object.get("spec"));
      ConversionReviews.Encoded streamed =
          ConversionReviews.answerStreamed("/convert", body.getBytes(StandardCharsets.UTF_8));
      assertThat(streamed.succeeded()).as(value).isTrue();
    }
  }

  @Test
  void aBadObjectFailsTheReviewNamingIt() {
    ConversionReviews.Answer a =
        answer(
            review(
                "u-2",
                ComputeVersions.V1ALPHA2,
                "[{'apiVersion':'compute.ironcore.dev/v1alpha1','kind':'Machine','metadata':{'name':'ok'}},"
                    + "{'apiVersion':'compute.ironcore.dev/v7','kind':'Machine',"
                    + "'metadata':{'name':'vm-1','namespace':'demo'}}]"));
    assertThat(a.succeeded()).isFalse();
    JsonNode r = response(a);
    assertThat(r.get("uid").asText()).isEqualTo("u-2");
    assertThat(r.at("/result/status").asText()).isEqualTo("Failure");
    assertThat(r.at("/result/message").asText())
        .startsWith(
            "cannot convert objects[1] (Machine demo/vm-1) to compute.ironcore.dev/v1alpha2")
        .contains("\"compute.ironcore.dev/v7\"");
    assertThat(r.get("convertedObjects")).isEmpty();
  }

  @Test
  void unknownDesiredVersionFails() {
    JsonNode r =
        response(
            answer(
                review(
                    "u",
                    "compute.ironcore.dev/v2",
                    "[{'apiVersion':'compute.ironcore.dev/v1alpha1','kind':'MachinePool'}]")));
    assertThat(r.at("/result/status").asText()).isEqualTo("Failure");
    assertThat(r.at("/result/message").asText())
        .as("the review's own field, not blamed on an object")
        .startsWith("request.desiredAPIVersion must be one of")
        .doesNotContain("objects[0]");
  }

  @Test
  void malformedReviewsGetCleanFailures() {
    String[][] cases = {
      {
        "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"request\":{\"uid\":\"cut\",\"obj",
        "cut",
        "not valid JSON"
      },
      {"", "", "request body is empty (expected a ConversionReview)"},
      {"{\"request\":{\"uid\":\"t\"}} {}", "t", "unexpected content after the JSON value"},
      {"[1,2]", "", "not a ConversionReview object"},
      {"\"text\"", "", "not a ConversionReview object"},
      {"{\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"a\"}}", "a", "expected kind"},
      {"{\"kind\":\"ConversionReview\"}", "", "request is missing"},
      {"{}", "", "request is missing"},
      {"{\"request\":[]}", "", "request must be an object, got an array"},
      {"{\"request\":null}", "", "request must be an object, got null"},
      {"{\"request\":{\"uid\":7}}", "", "request.uid must be a string, got a number"},
      {"{\"request\":{\"uid\":null}}", "", "request.uid must be a string, got null"},
      {"{\"request\":{}}", "", "request.uid is missing"},
      {
        "{\"apiVersion\":\"apiextensions.k8s.io/v2\",\"request\":{\"uid\":\"v\"}}",
        "v",
        "expected apiVersion apiextensions.k8s.io/v1 (or apiextensions.k8s.io/v1beta1), got"
            + " \"apiextensions.k8s.io/v2\""
      },
      {
        "{\"request\":{\"uid\":\"\",\"desiredAPIVersion\":\"compute.ironcore.dev/v1alpha2\","
            + "\"objects\":[]}}",
        "",
        "request.uid must not be empty"
      },
      {
        "{\"request\":{\"uid\":\"u\",\"desiredAPIVersion\":1}}",
        "u",
        "request.desiredAPIVersion must be a string, got a number"
      },
      {"{\"request\":{\"uid\":\"u\"}}", "u", "request.desiredAPIVersion is missing"},
      {
        "{\"request\":{\"uid\":\"u\",\"desiredAPIVersion\":\"x\",\"objects\":{}}}",
        "u",
        "request.objects must be an array"
      },
      {
        "{\"request\":{\"uid\":\"u\",\"desiredAPIVersion\":\"compute.ironcore.dev/v1alpha1\","
            + "\"objects\":[1]}}",
        "u",
        "cannot convert objects[0] to compute.ironcore.dev/v1alpha1: not a JSON object"
      },
    };
    for (String[] c : cases) {
      ConversionReviews.Answer a = answer(c[0]);
      JsonNode r = response(a);
      assertThat(a.succeeded()).as(c[0]).isFalse();
      assertThat(r.get("uid").asText()).as(c[0]).isEqualTo(c[1]);
      assertThat(r.at("/result/status").asText()).as(c[0]).isEqualTo("Failure");
      assertThat(r.at("/result/message").asText()).as(c[0]).contains(c[2]);
      assertThat(a.review().get("apiVersion").asText()).isEqualTo("apiextensions.k8s.io/v1");
    }
  }

  @Test
  void tenThousandObjectsConvert() {
    StringBuilder objects = new StringBuilder("[");
    for (int i = 0; i < 10_000; i++) {
      objects
          .append(i == 0 ? "" : ",")
          .append(
              "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'Machine','metadata':{'name':'m")
          .append(i)
          .append("'},'spec':{'tolerations':[{'key':'k','effect':'NoExecute','tolerationSeconds':")
          .append(i)
          .append("}]}}");
    }
    ConversionReviews.Answer a =
        answer(review("big", ComputeVersions.V1ALPHA1, objects.append("]").toString()));
    assertThat(a.succeeded()).isTrue();
    JsonNode converted = response(a).get("convertedObjects");
    assertThat(converted).hasSize(10_000);
    assertThat(converted.get(9_999).at("/metadata/name").asText()).isEqualTo("m9999");
    ObjectNode last = (ObjectNode) converted.get(9_999);
    assertThat(
            last.at("/metadata/annotations/" + V1alpha2Fields.ANNOTATION.replace("/", "~1"))
                .asText())
        .contains("9999");
  }

  /** Refuses a tree of more than {@code max} tokens. */
  private static dev.ironcore.maintenance.server.admission.TokenAllowance atMost(long max) {
    return tokens -> {
      if (tokens > max) {
        throw new dev.ironcore.maintenance.server.admission.TokenAllowance.Refused(
            "more than " + max, false);
      }
      return max;
    };
  }

  /**
   * One object's tree is held at a time when answered object by object, so the allowance bounds the
   * largest object; the whole tree (the way small reviews are answered) counts every object.
   */
  @Test
  void theAllowanceBoundsTheWholeTreeOrEachObjectWhenAnsweredOneAtATime() {
    String object =
        "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'Machine','metadata':{'name':'a',"
            + "'annotations':{"
            + "'k':'v',".repeat(40)
            + "'z':'v'}}}";
    byte[] body =
        review("u-9", ComputeVersions.V1ALPHA1, "[" + object + "," + object + "," + object + "]")
            .getBytes(StandardCharsets.UTF_8);
    // an object is about 100 tokens, the review about 320
    ConversionReviews.Encoded streamed =
        ConversionReviews.answerStreamed("/convert", body, atMost(150));
    assertThat(streamed.succeeded()).isTrue();
    assertThat(streamed.json())
        .isEqualTo(ConversionReviews.answerStreamed("/convert", body).json());
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ConversionReviews.answer("/convert", body, atMost(150)))
        .isInstanceOf(dev.ironcore.maintenance.server.admission.TokenAllowance.Refused.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ConversionReviews.answerStreamed("/convert", body, atMost(60)))
        .isInstanceOf(dev.ironcore.maintenance.server.admission.TokenAllowance.Refused.class);
  }

  /**
   * The annotation that carries v1alpha2-only fields is one string, but its JSON is parsed into a
   * tree of its own on up-conversion: its tokens count too, beside the object's.
   */
  @Test
  void theAnnotationsTreeCountsAgainstTheAllowanceBesideTheObjects() {
    String annotation = ("[" + "{},".repeat(100) + "{}]").replace("\"", "\\\"");
    String object =
        "{'apiVersion':'compute.ironcore.dev/v1alpha1','kind':'Machine','metadata':{'name':'a',"
            + "'annotations':{'maintenance.ironcore.dev/v1alpha2-fields':'"
            + annotation
            + "'}}}";
    byte[] body =
        review("u-10", ComputeVersions.V1ALPHA2, "[" + object + "]")
            .getBytes(StandardCharsets.UTF_8);
    // the object is about 15 tokens and the review about 30; the annotation's tree 203
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ConversionReviews.answer("/convert", body, atMost(200)))
        .isInstanceOf(dev.ironcore.maintenance.server.admission.TokenAllowance.Refused.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ConversionReviews.answerStreamed("/convert", body, atMost(200)))
        .isInstanceOf(dev.ironcore.maintenance.server.admission.TokenAllowance.Refused.class);
    // within the allowance it is converted as without one (here: not what down-conversion
    // writes, so it carries no fields and stays on the object)
    assertThat(ConversionReviews.answerStreamed("/convert", body, atMost(300)).json())
        .isEqualTo(ConversionReviews.answerStreamed("/convert", body).json());
    assertThat(ConversionReviews.answerStreamed("/convert", body).succeeded()).isTrue();
  }

  /**
   * A down-conversion writes the v1alpha2-only fields into an annotation as escaped JSON, so its
   * reply can outgrow its body; answered one object at a time, the reply's excess is reported to
   * the allowance as it grows.
   */
  @Test
  void aReplyThatOutgrowsItsBodyIsReportedToTheAllowance() {
    StringBuilder objects = new StringBuilder("[");
    for (int i = 0; i < 2_000; i++) {
      objects
          .append(i == 0 ? "" : ",")
          .append("{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'Machine',")
          .append("'metadata':{'name':'m'},'spec':{'tolerations':[")
          .append("{'key':'k','effect':'NoExecute','tolerationSeconds':1},".repeat(10))
          .append("{'key':'k','effect':'NoExecute','tolerationSeconds':1}]}}");
    }
    byte[] body =
        review("u-11", ComputeVersions.V1ALPHA1, objects.append("]").toString())
            .getBytes(StandardCharsets.UTF_8);
    java.util.List<Long> reported = new java.util.ArrayList<>();
    dev.ironcore.maintenance.server.admission.TokenAllowance watching =
        new dev.ironcore.maintenance.server.admission.TokenAllowance() {
          @Override
          public long admit(long tokens) {
            return Long.MAX_VALUE;
          }

          @Override
          public void admitReplyBytes(long bytesBeyondBody) {
            reported.add(bytesBeyondBody);
          }
        };
    ConversionReviews.Encoded a = ConversionReviews.answerStreamed("/convert", body, watching);
    assertThat(a.succeeded()).isTrue();
    assertThat(a.json().length).isGreaterThan(body.length);
    assertThat(reported).isNotEmpty().isSorted();
    assertThat(reported.get(reported.size() - 1))
        .isBetween(a.json().length - body.length - 8_192L, (long) a.json().length - body.length);
  }
}
