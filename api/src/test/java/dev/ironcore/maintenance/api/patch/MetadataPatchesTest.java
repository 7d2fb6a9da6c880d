package dev.ironcore.maintenance.api.patch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.zjsonpatch.JsonPatchException;
import org.junit.jupiter.api.Test;

class MetadataPatchesTest {
  private static final ObjectMapper MAPPER = dev.ironcore.maintenance.api.json.JsonMappers.shared();
  private static final String F = "maintenance.ironcore.dev/machinepool-cleanup";
  private static final String KEY =
      "pre-drain.delete.hook.machine.cluster.x-k8s.io/ironcore~maintenance";

  private static JsonNode json(String text) {
    try {
      return MAPPER.readTree(text.replace('\'', '"'));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(e);
    }
  }

  private static JsonNode apply(JsonPatch patch, JsonNode object) {
    return io.fabric8.zjsonpatch.JsonPatch.apply(patch.toJson(), object);
  }

  @Test
  void finalizerAddedAsWholeArrayWhenAbsentOrNull() {
    for (String object :
        new String[] {"{'metadata':{'name':'m'}}", "{'metadata':{'finalizers':null}}"}) {
      JsonPatch patch = MetadataPatches.ensureFinalizer(json(object), F);
      assertThat(patch.toJson())
          .isEqualTo(json("[{'op':'add','path':'/metadata/finalizers','value':['" + F + "']}]"));
      assertThat(apply(patch, json(object)).at("/metadata/finalizers"))
          .isEqualTo(json("['" + F + "']"));
    }
  }

  @Test
  void finalizerAppendedKeepingOthers() {
    JsonNode object = json("{'metadata':{'finalizers':['a','b']}}");
    JsonPatch patch = MetadataPatches.ensureFinalizer(object, F);
    assertThat(patch.toJson())
        .isEqualTo(json("[{'op':'add','path':'/metadata/finalizers/-','value':'" + F + "'}]"));
    assertThat(apply(patch, object).at("/metadata/finalizers"))
        .isEqualTo(json("['a','b','" + F + "']"));
  }

  @Test
  void presentFinalizerNeedsNoPatch() {
    assertThat(
            MetadataPatches.ensureFinalizer(
                    json("{'metadata':{'finalizers':['a','" + F + "']}}"), F)
                .isEmpty())
        .isTrue();
  }

  @Test
  void annotationAddedAsWholeMapWhenAbsentOrNull() {
    for (String object : new String[] {"{'metadata':{}}", "{'metadata':{'annotations':null}}"}) {
      JsonPatch patch = MetadataPatches.ensureAnnotation(json(object), KEY, "v");
      assertThat(patch.toJson())
          .isEqualTo(
              json("[{'op':'add','path':'/metadata/annotations','value':{'" + KEY + "':'v'}}]"));
    }
  }

  @Test
  void annotationKeyIsEscapedAndOthersKept() {
    JsonNode object = json("{'metadata':{'annotations':{'user/own':'x'}}}");
    JsonPatch patch = MetadataPatches.ensureAnnotation(object, KEY, "v");
    assertThat(patch.toJson())
        .isEqualTo(
            json(
                "[{'op':'add','path':"
                    + "'/metadata/annotations/pre-drain.delete.hook.machine.cluster.x-k8s.io~1ironcore~0maintenance',"
                    + "'value':'v'}]"));
    assertThat(apply(patch, object).at("/metadata/annotations"))
        .isEqualTo(json("{'user/own':'x','" + KEY + "':'v'}"));
  }

  @Test
  void annotationWithOtherOrNullValueIsOverwrittenWithSameValueLeftAlone() {
    JsonNode other = json("{'metadata':{'annotations':{'" + KEY + "':'old','k':'x'}}}");
    assertThat(
            apply(MetadataPatches.ensureAnnotation(other, KEY, "v"), other)
                .at("/metadata/annotations"))
        .isEqualTo(json("{'" + KEY + "':'v','k':'x'}"));
    JsonNode nullValue = json("{'metadata':{'annotations':{'" + KEY + "':null}}}");
    assertThat(
            apply(MetadataPatches.ensureAnnotation(nullValue, KEY, "v"), nullValue)
                .at("/metadata/annotations"))
        .isEqualTo(json("{'" + KEY + "':'v'}"));
    assertThat(
            MetadataPatches.ensureAnnotation(
                    json("{'metadata':{'annotations':{'" + KEY + "':'v'}}}"), KEY, "v")
                .isEmpty())
        .isTrue();
  }

  @Test
  void objectWithoutMetadataGetsMetadataOnceForCombinedChanges() {
    JsonNode object = json("{'kind':'Machine'}");
    JsonPatch patch =
        MetadataPatches.on(object).ensureFinalizer(F).ensureAnnotation(KEY, "v").build();
    JsonNode patched = apply(patch, object);
    assertThat(patched.get("metadata"))
        .isEqualTo(json("{'finalizers':['" + F + "'],'annotations':{'" + KEY + "':'v'}}"));
    assertThat(patch.operations()).filteredOn(op -> op.path().equals("/metadata")).hasSize(1);
    assertThat(
            MetadataPatches.on(patched)
                .ensureFinalizer(F)
                .ensureAnnotation(KEY, "v")
                .build()
                .isEmpty())
        .isTrue();
    JsonNode nullMetadata = json("{'metadata':null}");
    assertThat(
            apply(MetadataPatches.ensureFinalizer(nullMetadata, F), nullMetadata)
                .at("/metadata/finalizers"))
        .isEqualTo(json("['" + F + "']"));
    assertThat(MetadataPatches.ensureFinalizer(null, F).size()).isEqualTo(1);
  }

  @Test
  void ensuringIsIdempotentAcrossShapes() {
    String[] objects = {
      "{}",
      "{'metadata':null}",
      "{'metadata':{}}",
      "{'metadata':{'finalizers':null,'annotations':null}}",
      "{'metadata':{'finalizers':[],'annotations':{}}}",
      "{'metadata':{'finalizers':['x','" + F + "'],'annotations':{'a/b':'c','" + KEY + "':'w'}}}",
    };
    for (String text : objects) {
      JsonNode object = json(text);
      JsonPatch first =
          MetadataPatches.on(object).ensureFinalizer(F).ensureAnnotation(KEY, "v").build();
      JsonNode once = apply(first, object);
      assertThat(
              MetadataPatches.on(once)
                  .ensureFinalizer(F)
                  .ensureAnnotation(KEY, "v")
                  .build()
                  .isEmpty())
          .as(text)
          .isTrue();
      assertThat(once.at("/metadata/finalizers"))
          .as(text)
          .filteredOn(n -> n.asText().equals(F))
          .hasSize(1);
    }
  }

  @Test
  void removeFinalizerTestsEachIndexHighestFirstAndKeepsOthers() {
    JsonNode object = json("{'metadata':{'finalizers':['" + F + "','other','" + F + "','last']}}");
    JsonPatch patch = MetadataPatches.removeFinalizer(object, F);
    assertThat(patch.toJson())
        .isEqualTo(
            json(
                "["
                    + "{'op':'test','path':'/metadata/finalizers/2','value':'"
                    + F
                    + "'},"
                    + "{'op':'remove','path':'/metadata/finalizers/2'},"
                    + "{'op':'test','path':'/metadata/finalizers/0','value':'"
                    + F
                    + "'},"
                    + "{'op':'remove','path':'/metadata/finalizers/0'}]"));
    JsonNode removed = apply(patch, object);
    assertThat(removed.at("/metadata/finalizers")).isEqualTo(json("['other','last']"));
    assertThat(MetadataPatches.removeFinalizer(removed, F).isEmpty()).isTrue();
  }

  @Test
  void removeFinalizerFailsInsteadOfDroppingAConcurrentlyInsertedEntry() {
    JsonNode seen = json("{'metadata':{'finalizers':['a','" + F + "']}}");
    JsonPatch patch = MetadataPatches.removeFinalizer(seen, F);
    JsonNode meanwhile = json("{'metadata':{'finalizers':['a','someone-else','" + F + "']}}");
    assertThatThrownBy(() -> apply(patch, meanwhile)).isInstanceOf(JsonPatchException.class);
  }

  @Test
  void removeOfAbsentFinalizerOrAnnotationIsEmpty() {
    for (String text :
        new String[] {
          "{}",
          "{'metadata':{}}",
          "{'metadata':{'finalizers':null,'annotations':null}}",
          "{'metadata':{'finalizers':['x'],'annotations':{'y':'z'}}}"
        }) {
      assertThat(MetadataPatches.removeFinalizer(json(text), F).isEmpty()).as(text).isTrue();
      assertThat(MetadataPatches.removeAnnotation(json(text), KEY).isEmpty()).as(text).isTrue();
    }
  }

  @Test
  void removeAnnotationTestsValueAndKeepsOthers() {
    JsonNode object = json("{'metadata':{'annotations':{'" + KEY + "':'v','mine':'x'}}}");
    JsonPatch patch = MetadataPatches.removeAnnotation(object, KEY);
    String path =
        "/metadata/annotations/pre-drain.delete.hook.machine.cluster.x-k8s.io~1ironcore~0maintenance";
    assertThat(patch.toJson())
        .isEqualTo(
            json(
                "[{'op':'test','path':'"
                    + path
                    + "','value':'v'},"
                    + "{'op':'remove','path':'"
                    + path
                    + "'}]"));
    assertThat(apply(patch, object).at("/metadata/annotations")).isEqualTo(json("{'mine':'x'}"));
    JsonNode changed = json("{'metadata':{'annotations':{'" + KEY + "':'someone-else'}}}");
    assertThatThrownBy(() -> apply(patch, changed)).isInstanceOf(JsonPatchException.class);
  }

  @Test
  void inputObjectIsNeverModified() {
    JsonNode object =
        json("{'metadata':{'finalizers':['" + F + "'],'annotations':{'" + KEY + "':'v'}}}");
    JsonNode copy = object.deepCopy();
    MetadataPatches.on(object)
        .removeFinalizer(F)
        .removeAnnotation(KEY)
        .ensureFinalizer("g")
        .ensureAnnotation("k", "v");
    assertThat(object).isEqualTo(copy);
  }
}
