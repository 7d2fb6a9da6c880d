package dev.ironcore.maintenance.server.admission;

import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.json.JsonMappers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReviewFilterTest {
  private static final AdmissionHandler READS_ALL = request -> AdmissionResponse.allowed();

  private static JsonNode read(String json) throws IOException {
    return AdmissionReviews.readFor(READS_ALL, json.getBytes(StandardCharsets.UTF_8));
  }

  private static JsonNode read(JsonNode review) throws IOException {
    return read(review, ObjectFields.ALL);
  }

  private static JsonNode read(JsonNode review, ObjectFields fields) throws IOException {
    return AdmissionReviews.readFor(
        TestReviews.allowingReading(fields), JsonMappers.shared().writeValueAsBytes(review));
  }

  @Test
  void dropsManagedFieldsOfObjectAndOldObjectOnly() throws IOException {
    String managed = "[{'manager':'kubectl','fieldsV1':{'f:metadata':{'f:labels':{'.':{}}}}}]";
    JsonNode review =
        json(
            "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','managedFields':1,"
                + "'request':{'uid':'u','userInfo':{'username':'a'},"
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

  @Test
  void dropsTheRequestMembersThatNoHandlerReads() throws IOException {
    JsonNode review =
        json(
            "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','request':{"
                + "'uid':'u','kind':{'group':'g','version':'v','kind':'K'},"
                + "'resource':{'group':'g','version':'v','resource':'ks'},'subResource':'',"
                + "'requestKind':{'kind':'K'},'requestResource':{'resource':'ks'},"
                + "'requestSubResource':'','name':'n','namespace':'ns','operation':'CREATE',"
                + "'userInfo':{'username':'alice','uid':'1','groups':['a','b'],'extra':{'x':['y']}},"
                + "'object':{'metadata':{}},'oldObject':null,'dryRun':false,"
                + "'options':{'kind':'CreateOptions'}}}");
    ObjectNode expected = (ObjectNode) review.deepCopy();
    ObjectNode request = (ObjectNode) expected.get("request");
    request.remove(List.of("requestKind", "requestResource", "requestSubResource", "options"));
    ((ObjectNode) request.get("userInfo")).retain("username");
    assertThat(read(review)).isEqualTo(expected);
    assertThat(AdmissionRequest.fromReview(read(review)))
        .isEqualTo(AdmissionRequest.fromReview(review));
  }

  @Test
  void keepsOnlyTheObjectFieldsTheHandlerReads() throws IOException {
    String object =
        "{'apiVersion':'compute.ironcore.dev/v1alpha1','kind':'Machine',"
            + "'metadata':{'name':'m','managedFields':[{'manager':'x'}],'labels':{'a':'b'}},"
            + "'spec':{'machinePoolRef':{'name':'p'},'image':'i','tolerations':[{'key':'k'}]},"
            + "'status':{'state':'Running'}}";
    JsonNode review =
        json("{'request':{'uid':'u','object':" + object + ",'oldObject':" + object + "}}");
    String kept =
        "{'apiVersion':'compute.ironcore.dev/v1alpha1','kind':'Machine',"
            + "'metadata':{'name':'m','labels':{'a':'b'}},";
    assertThat(read(review, ObjectFields.only("spec.machinePoolRef")))
        .isEqualTo(
            json(
                "{'request':{'uid':'u','object':"
                    + kept
                    + "'spec':{'machinePoolRef':{'name':'p'}}},'oldObject':"
                    + kept
                    + "'spec':{'machinePoolRef':{'name':'p'}}}}}"));
    String metadataOnly = kept.substring(0, kept.length() - 1) + "}";
    assertThat(read(review, ObjectFields.only()))
        .isEqualTo(
            json(
                "{'request':{'uid':'u','object':"
                    + metadataOnly
                    + ",'oldObject':"
                    + metadataOnly
                    + "}}"));
    JsonNode whole = read(review);
    assertThat(read(review, ObjectFields.only("spec", "spec.image", "status"))).isEqualTo(whole);
    assertThat(
            read(review, ObjectFields.only("spec.image", "spec.tolerations"))
                .at("/request/object/spec"))
        .isEqualTo(json("{'image':'i','tolerations':[{'key':'k'}]}"));
  }

  @Test
  void keepsAnUnexpectedTypeOnADeclaredPathWhole() throws IOException {
    ObjectFields poolRef = ObjectFields.only("spec.machinePoolRef");
    for (String spec : new String[] {"'text'", "[{'machinePoolRef':1},2]", "7", "{}", "null"}) {
      JsonNode review =
          json("{'request':{'uid':'u','object':{'metadata':{'name':'m'},'spec':" + spec + "}}}");
      assertThat(read(review, poolRef)).as(spec).isEqualTo(review);
    }
    JsonNode review =
        json("{'request':{'uid':'u','object':{'metadata':{'name':'m'},'spec':{'other':1}}}}");
    assertThat(read(review, poolRef).at("/request/object/spec")).isEqualTo(json("{}"));
  }

  @Test
  void refusesAPathWithAnEmptyMemberName() {
    for (String path : new String[] {"", "spec.", ".spec", "spec..taints"}) {
      assertThatThrownBy(() -> ObjectFields.only(path))
          .as(path)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("\"" + path + "\"");
    }
  }
}
