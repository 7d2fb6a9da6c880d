package dev.ironcore.maintenance.server.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ObjectDepthParserTest {
  /**
   * The depths reach the handler with what the review filter leaves out ({@code managedFields})
   * counted, for the object and the old object each.
   */
  @Test
  void theObjectsAreMeasuredWithTheirManagedFields() {
    String deepFields = "{\"f:a\":".repeat(20) + "{}" + "}".repeat(20);
    String object =
        "{\"apiVersion\":\"compute.ironcore.dev/v1alpha2\",\"kind\":\"Machine\","
            + "\"metadata\":{\"name\":\"m\",\"namespace\":\"ns\",\"managedFields\":"
            + "[{\"manager\":\"x\",\"fieldsV1\":"
            + deepFields
            + "}]},\"spec\":{\"a\":[[1]]}}";
    String old =
        "{\"apiVersion\":\"compute.ironcore.dev/v1alpha2\",\"kind\":\"Machine\","
            + "\"metadata\":{\"name\":\"m\",\"namespace\":\"ns\"},\"spec\":{}}";
    String review =
        "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":"
            + "{\"uid\":\"u\",\"kind\":{\"group\":\"compute.ironcore.dev\",\"version\":\"v1alpha2\","
            + "\"kind\":\"Machine\"},\"operation\":\"UPDATE\",\"object\":"
            + object
            + ",\"oldObject\":"
            + old
            + ",\"other\":{\"deep\":"
            + "[".repeat(30)
            + "1"
            + "]".repeat(30)
            + "}}}";
    AtomicReference<AdmissionRequest> seen = new AtomicReference<>();
    AdmissionReviews.Answer answer =
        AdmissionReviews.answer(
            "/hook",
            review.getBytes(StandardCharsets.UTF_8),
            request -> {
              seen.set(request);
              return AdmissionResponse.allowed();
            });
    assertThat(seen.get()).as(answer.review().toString()).isNotNull();
    // the object 1, metadata 2, managedFields 3, the entry 4, fieldsV1 5, then 20 more
    assertThat(seen.get().objectDepth()).isEqualTo(25);
    assertThat(seen.get().oldObjectDepth()).isEqualTo(2);
    assertThat(seen.get().object().at("/metadata").has("managedFields"))
        .as("still left out of the tree")
        .isFalse();
  }
}
