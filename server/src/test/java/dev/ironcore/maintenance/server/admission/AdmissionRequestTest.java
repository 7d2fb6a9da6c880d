package dev.ironcore.maintenance.server.admission;

import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AdmissionRequestTest {

  @Test
  void readsAllFieldsOfAV1Request() {
    ObjectNode review =
        TestReviews.review(
            "abc",
            "compute.ironcore.dev",
            "v1alpha1",
            "Machine",
            "machines",
            Operation.UPDATE,
            json("{'metadata':{'name':'m','namespace':'ns'}}"),
            json("{'metadata':{'name':'m','namespace':'ns'}}"));
    ((ObjectNode) review.get("request")).put("dryRun", true).put("subResource", "status");
    AdmissionRequest request = AdmissionRequest.fromReview(review);
    assertThat(request.uid()).isEqualTo("abc");
    assertThat(request.kind())
        .isEqualTo(new GroupVersionKind("compute.ironcore.dev", "v1alpha1", "Machine"));
    assertThat(request.kind().toString()).isEqualTo("Machine.compute.ironcore.dev");
    assertThat(request.resource().resource()).isEqualTo("machines");
    assertThat(request.subResource()).isEqualTo("status");
    assertThat(request.operation()).isEqualTo(Operation.UPDATE);
    assertThat(request.name()).isEqualTo("m");
    assertThat(request.namespace()).isEqualTo("ns");
    assertThat(request.dryRun()).isTrue();
    assertThat(request.username()).isEqualTo("tester");
    assertThat(request.oldObject()).isNotNull();
  }

  @Test
  void deleteHasNullObject() {
    AdmissionRequest request =
        TestReviews.machine(Operation.DELETE, null, json("{'metadata':{'name':'m'}}"));
    assertThat(request.object()).isNull();
    assertThat(request.oldObject()).isNotNull();
  }

  @Test
  void displayNameFallsBackToGenerateName() {
    AdmissionRequest request =
        TestReviews.machine(Operation.CREATE, json("{'metadata':{'generateName':'m-'}}"), null);
    assertThat(request.name()).isEmpty();
    assertThat(request.displayName()).isEqualTo("m-*");
  }

  @Test
  void rejectsReviewsWithoutRequestUidOrOperation() {
    assertThatThrownBy(() -> AdmissionRequest.fromReview(json("{'kind':'AdmissionReview'}")))
        .isInstanceOf(MalformedReviewException.class)
        .hasMessageContaining("no request");
    assertThatThrownBy(
            () -> AdmissionRequest.fromReview(json("{'request':{'operation':'CREATE'}}")))
        .isInstanceOf(MalformedReviewException.class)
        .hasMessageContaining("request.uid");
    assertThatThrownBy(
            () -> AdmissionRequest.fromReview(json("{'request':{'uid':'u','operation':'PATCH'}}")))
        .isInstanceOf(MalformedReviewException.class)
        .hasMessageContaining("\"PATCH\"");
  }

  /**
   * A v1 review of an UPDATE of a Machine whose {@code request} member {@code field} is replaced by
   * {@code value}.
   */
  private static ObjectNode with(String field, String valueJson) {
    ObjectNode review =
        TestReviews.review(
            "u",
            "compute.ironcore.dev",
            "v1alpha1",
            "Machine",
            "machines",
            Operation.UPDATE,
            json("{'metadata':{'name':'m'}}"),
            json("{'metadata':{'name':'m'}}"));
    ObjectNode request = (ObjectNode) review.get("request");
    if (valueJson == null) {
      request.remove(field);
    } else {
      request.set(field, json(valueJson));
    }
    return review;
  }

  @ParameterizedTest(name = "request.{0} = {1} -> {2}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "uid         | 42                          | request.uid must be a string, got a number",
        "uid         | ['u']                       | request.uid must be a string, got an array",
        "uid         | ''                          | request.uid must not be empty",
        "uid         |                             | request.uid is missing",
        "operation   | 1                           | request.operation must be a string, got a number",
        "kind        |                             | request.kind is missing",
        "kind        | 'Machine'                   | request.kind must be an object",
        "kind        | {'group':'g','version':'v'} | request.kind.kind is missing",
        "kind        | {'version':'v','kind':7}    | request.kind.kind must be a string, got a number",
        "kind        | {'kind':'Machine'}          | request.kind.version is missing",
        "kind        | {'group':1,'version':'v','kind':'K'} | request.kind.group must be a string",
        "object      | 'text'                      | request.object must be a JSON object, got a string",
        "object      | [1]                         | request.object must be a JSON object, got an array",
        "oldObject   | 3                           | request.oldObject must be a JSON object, got a number",
        "object      | {'metadata':'m'}            | request.object.metadata must be a JSON object, got a string",
        "object      | {'metadata':null}           | request.object.metadata must be a JSON object, got null",
        "oldObject   | {'metadata':[]}             | request.oldObject.metadata must be a JSON object, got an array",
        "object      | {'metadata':{'finalizers':'f'}}  | request.object.metadata.finalizers must be an array",
        "object      | {'metadata':{'annotations':[]}}  | request.object.metadata.annotations must be a JSON object",
        "object      | {'metadata':{'labels':'a=b'}}    | request.object.metadata.labels must be a JSON object",
        "object      | null                        | request.object is required for UPDATE",
        "object      |                             | request.object is required for UPDATE",
        "oldObject   | null                        | request.oldObject is required for UPDATE",
        "dryRun      | 'yes'                       | request.dryRun must be a boolean, got a string",
        "name        | {}                          | request.name must be a string, got an object",
        "namespace   | 1                           | request.namespace must be a string",
        "subResource | false                       | request.subResource must be a string, got a boolean",
      })
  void rejectsMalformedRequestsNamingTheField(String field, String valueJson, String message) {
    assertThatThrownBy(() -> AdmissionRequest.fromReview(with(field, valueJson)))
        .isInstanceOf(MalformedReviewException.class)
        .hasMessageContaining(message);
  }

  /** Fresh eyes (session 46): {@code "request":"x"} was answered "has no request object". */
  @Test
  void aRequestThatIsNoObjectSaysWhatItIs() {
    assertThatThrownBy(() -> AdmissionRequest.fromReview(TestReviews.json("{'request':'x'}")))
        .isInstanceOf(MalformedReviewException.class)
        .hasMessage("request must be a JSON object, got a string");
    assertThatThrownBy(() -> AdmissionRequest.fromReview(TestReviews.json("{'request':null}")))
        .hasMessage("AdmissionReview has no request object");
    assertThatThrownBy(() -> AdmissionRequest.fromReview(TestReviews.json("{}")))
        .hasMessage("AdmissionReview has no request object");
  }

  @Test
  void createNeedsAnObjectAndDeleteNeedsNone() {
    ObjectNode create = with("object", "null");
    ((ObjectNode) create.get("request")).put("operation", "CREATE").putNull("oldObject");
    assertThatThrownBy(() -> AdmissionRequest.fromReview(create))
        .hasMessage("request.object is required for CREATE");
    ObjectNode delete = with("object", "null");
    ((ObjectNode) delete.get("request")).put("operation", "DELETE").putNull("oldObject");
    assertThat(AdmissionRequest.fromReview(delete).object()).isNull();
  }

  @Test
  void theCoreGroupMayBeEmptyOrAbsentAndNullMeansAbsent() {
    AdmissionRequest request =
        AdmissionRequest.fromReview(with("kind", "{'version':'v1','kind':'Pod'}"));
    assertThat(request.kind()).isEqualTo(new GroupVersionKind("", "v1", "Pod"));
    assertThat(AdmissionRequest.fromReview(with("dryRun", "null")).dryRun()).isFalse();
    assertThat(AdmissionRequest.fromReview(with("subResource", "null")).subResource()).isEmpty();
    assertThat(AdmissionRequest.fromReview(with("object", "{'spec':{}}")).object()).isNotNull();
    assertThat(
            AdmissionRequest.fromReview(with("object", "{'metadata':{'finalizers':null}}"))
                .object())
        .isNotNull();
  }
}
