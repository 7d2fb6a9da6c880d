package dev.ironcore.maintenance.server.admission;

import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.json.JsonMappers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ManagedFieldsFilterTest {
  private static JsonNode read(String json) throws IOException {
    return AdmissionReviews.readWithoutManagedFields(json.getBytes(StandardCharsets.UTF_8));
  }

  private static JsonNode read(JsonNode review) throws IOException {
    return AdmissionReviews.readWithoutManagedFields(
        JsonMappers.shared().writeValueAsBytes(review));
  }

  @Test
  void dropsManagedFieldsOfObjectAndOldObjectOnly() throws IOException {
    String managed = "[{'manager':'kubectl','fieldsV1':{'f:metadata':{'f:labels':{'.':{}}}}}]";
    JsonNode review =
        json(
            "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','managedFields':1,"
                + "'request':{'uid':'u','managedFields':2,'userInfo':{'managedFields':3},"
                + "'object':{'metadata':{'name':'m','managedFields':"
                + managed
                + ",'labels':{'managedFields':'x'}},'spec':{'managedFields':4}},"
                + "'oldObject':{'metadata':{'managedFields':"
                + managed
                + "}}}}");
    ObjectNode expected = (ObjectNode) review.deepCopy();
    ((ObjectNode) expected.at("/request/object/metadata")).remove("managedFields");
    ((ObjectNode) expected.at("/request/oldObject/metadata")).remove("managedFields");
    assertThat(read(review)).isEqualTo(expected);
  }

  @Test
  void keepsEmptyAndOddShapesSoMalformedReviewsAreReportedAsBefore() throws IOException {
    for (String body :
        new String[] {
          "{}",
          "{'request':{}}",
          "{'request':{'object':{}}}",
          "{'request':{'object':{'metadata':{}}}}",
          "{'request':{'object':{'metadata':[]},'oldObject':[{'metadata':{}}]}}",
          "{'request':{'object':'text','oldObject':null,'dryRun':[]}}",
          "[{'request':1}]",
          "\"text\"",
          "17"
        }) {
      JsonNode review = json(body);
      assertThat(read(review)).as(body).isEqualTo(review);
    }
    assertThat(read(json("{'request':{'object':{'metadata':{'managedFields':[]}}}}")))
        .isEqualTo(json("{'request':{'object':{'metadata':{}}}}"));
    assertThat(read("").isMissingNode()).isTrue();
    assertThatThrownBy(() -> read("{'request':")).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> read("{\"request\":}")).isInstanceOf(IOException.class);
  }
}
