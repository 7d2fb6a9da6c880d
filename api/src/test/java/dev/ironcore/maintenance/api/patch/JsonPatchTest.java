package dev.ironcore.maintenance.api.patch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonPatchTest {

  @Test
  void emptyPatchIsAnEmptyArray() {
    assertThat(JsonPatch.empty().isEmpty()).isTrue();
    assertThat(JsonPatch.builder().build().toJson().toString()).isEqualTo("[]");
  }

  @Test
  void bytesAreTheCompactJsonOfTheDocument() {
    ObjectNode map = JsonNodeFactory.instance.objectNode().put("k", "v \u00e4\"");
    map.putArray("list").add(1).add(true).addNull();
    JsonPatch patch =
        JsonPatch.builder()
            .test("/metadata/annotations/a~1b", "x")
            .remove("/metadata/finalizers/0")
            .add("/metadata/finalizers/-", "cleanup.ironcore.dev/finalizer")
            .replace("/metadata/annotations", map)
            .build();
    assertThat(new String(patch.toBytes(), StandardCharsets.UTF_8))
        .isEqualTo(patch.toJson().toString());
    assertThat(new String(JsonPatch.empty().toBytes(), StandardCharsets.UTF_8)).isEqualTo("[]");
  }

  @Test
  void serialisesOperationsInOrder() {
    JsonPatch patch = JsonPatch.builder().test("/a/0", "x").remove("/a/0").add("/b", "y").build();
    assertThat(patch.size()).isEqualTo(3);
    assertThat(patch.toJson().toString())
        .isEqualTo(
            "[{\"op\":\"test\",\"path\":\"/a/0\",\"value\":\"x\"},"
                + "{\"op\":\"remove\",\"path\":\"/a/0\"},"
                + "{\"op\":\"add\",\"path\":\"/b\",\"value\":\"y\"}]");
  }

  @Test
  void operationsDoNotShareMutableValues() {
    ObjectNode value = JsonNodeFactory.instance.objectNode().put("k", "v");
    JsonPatch patch = JsonPatch.builder().add("/m", value).build();
    value.put("k", "changed");
    ((ObjectNode) patch.operations().get(0).value()).put("k", "changed too");
    assertThat(patch.toJson().get(0).get("value").get("k").asText()).isEqualTo("v");
  }

  @Test
  void rejectsRemoveWithValueAndAddWithout() {
    assertThatThrownBy(() -> new PatchOperation(PatchOperation.Op.ADD, "/x", null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                new PatchOperation(
                    PatchOperation.Op.REMOVE, "/x", JsonNodeFactory.instance.textNode("v")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void concatKeepsOrder() {
    JsonPatch a = JsonPatch.builder().add("/a", "1").build();
    JsonPatch b = JsonPatch.builder().add("/b", "2").build();
    assertThat(a.and(b).operations()).extracting(PatchOperation::path).containsExactly("/a", "/b");
    assertThat(JsonPatch.concat(JsonPatch.empty(), JsonPatch.empty())).isEqualTo(JsonPatch.empty());
  }
}
