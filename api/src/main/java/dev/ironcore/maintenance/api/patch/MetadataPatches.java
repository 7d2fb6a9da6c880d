package dev.ironcore.maintenance.api.patch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.List;

/**
 * Builds minimal JSON Patches that add or remove one finalizer or annotation of a Kubernetes object
 * (domain reference §4, "JSON Patch correctness"): pointer tokens are escaped, an absent or null
 * {@code metadata.finalizers}/{@code metadata.annotations} is added whole, an existing map/array is
 * never replaced, nothing is ever duplicated, and an object that already has the wanted state
 * yields the {@linkplain JsonPatch#isEmpty() empty patch}.
 *
 * <p>Removals are guarded by {@code test} operations, so if someone changed the list or map between
 * our read and the apply, the API server rejects the patch (HTTP 422) instead of removing the wrong
 * entry.
 *
 * <p>The static methods handle one change. To combine several changes on one object use {@link
 * #on(JsonNode)}: the editor keeps track of what earlier operations created, so for example an
 * absent {@code metadata} is added only once.
 */
public final class MetadataPatches {
  private static final String METADATA = "/metadata";
  private static final String FINALIZERS = "/metadata/finalizers";
  private static final String ANNOTATIONS = "/metadata/annotations";

  private MetadataPatches() {}

  /**
   * @param object a Kubernetes object as JSON (its {@code metadata} may be absent); not changed
   * @param finalizer the finalizer to have, e.g. {@code
   *     "maintenance.ironcore.dev/machinepool-cleanup"}
   * @return {@code add /metadata/finalizers ["f"]} when the array is absent or null, {@code add
   *     /metadata/finalizers/- "f"} when it lacks {@code f}, else the empty patch
   */
  public static JsonPatch ensureFinalizer(JsonNode object, String finalizer) {
    return on(object).ensureFinalizer(finalizer).build();
  }

  /**
   * @param object a Kubernetes object as JSON; not changed
   * @param key the annotation key, unescaped (may contain {@code /} and {@code ~})
   * @param value the wanted value
   * @return {@code add /metadata/annotations {key: value}} when the map is absent or null, {@code
   *     add /metadata/annotations/<escaped key> value} when the key is missing or has another
   *     value, else the empty patch
   */
  public static JsonPatch ensureAnnotation(JsonNode object, String key, String value) {
    return on(object).ensureAnnotation(key, value).build();
  }

  /**
   * @param object a Kubernetes object as JSON; not changed
   * @param finalizer the finalizer to drop
   * @return for every index {@code i} holding {@code finalizer}, highest first: {@code test
   *     /metadata/finalizers/i "f"} then {@code remove /metadata/finalizers/i}; the empty patch
   *     when absent. Other entries are kept.
   */
  public static JsonPatch removeFinalizer(JsonNode object, String finalizer) {
    return on(object).removeFinalizer(finalizer).build();
  }

  /**
   * @param object a Kubernetes object as JSON; not changed
   * @param key the annotation key, unescaped
   * @return {@code test} of the current value then {@code remove} of the key; the empty patch when
   *     the key is absent
   */
  public static JsonPatch removeAnnotation(JsonNode object, String key) {
    return on(object).removeAnnotation(key).build();
  }

  /**
   * @param object a Kubernetes object as JSON (null or without metadata is fine); not changed
   * @return an editor that emits operations valid when applied in order to {@code object}
   */
  public static Editor on(JsonNode object) {
    return new Editor(object);
  }

  /**
   * Accumulates metadata changes for one object. It works on a private copy of the object's
   * metadata that it updates as it emits operations, so later decisions see earlier ones.
   */
  public static final class Editor {
    private static final List<String> EDITED = List.of("finalizers", "annotations");
    private final JsonPatch.Builder patch = JsonPatch.builder();

    /**
     * Our view of metadata after the operations so far, holding only what the editor reads ({@code
     * finalizers} and {@code annotations}; copying the rest, {@code managedFields} above all, cost
     * about 4% of the webhook server's CPU); null while absent.
     */
    private ObjectNode metadata;

    private Editor(JsonNode object) {
      JsonNode md = object == null ? null : object.get("metadata");
      metadata = md instanceof ObjectNode o ? copyOfEdited(o) : null;
    }

    private static ObjectNode copyOfEdited(ObjectNode md) {
      ObjectNode copy = JsonNodeFactory.instance.objectNode();
      for (String field : EDITED) {
        JsonNode value = md.get(field);
        if (value != null) {
          copy.set(field, value.deepCopy());
        }
      }
      return copy;
    }

    /**
     * @see MetadataPatches#ensureFinalizer(JsonNode, String)
     */
    public Editor ensureFinalizer(String finalizer) {
      ArrayNode finalizers = array("finalizers");
      if (finalizers == null) {
        ArrayNode fresh = JsonNodeFactory.instance.arrayNode().add(finalizer);
        addUnderMetadata("finalizers", FINALIZERS, fresh);
      } else if (indexOf(finalizers, finalizer, finalizers.size()) < 0) {
        patch.add(FINALIZERS + "/-", finalizer);
        finalizers.add(finalizer);
      }
      return this;
    }

    /**
     * @see MetadataPatches#ensureAnnotation(JsonNode, String, String)
     */
    public Editor ensureAnnotation(String key, String value) {
      ObjectNode annotations = map("annotations");
      if (annotations == null) {
        ObjectNode fresh = JsonNodeFactory.instance.objectNode().put(key, value);
        addUnderMetadata("annotations", ANNOTATIONS, fresh);
      } else if (!TextNode.valueOf(value).equals(annotations.get(key))) {
        patch.add(ANNOTATIONS + "/" + JsonPointer.escape(key), value);
        annotations.put(key, value);
      }
      return this;
    }

    /**
     * @see MetadataPatches#removeFinalizer(JsonNode, String)
     */
    public Editor removeFinalizer(String finalizer) {
      ArrayNode finalizers = array("finalizers");
      if (finalizers == null) {
        return this;
      }
      for (int i = indexOf(finalizers, finalizer, finalizers.size());
          i >= 0;
          i = indexOf(finalizers, finalizer, i)) {
        String path = FINALIZERS + "/" + i;
        patch.test(path, finalizer).remove(path);
        finalizers.remove(i);
      }
      return this;
    }

    /**
     * @see MetadataPatches#removeAnnotation(JsonNode, String)
     */
    public Editor removeAnnotation(String key) {
      ObjectNode annotations = map("annotations");
      if (annotations == null || !annotations.has(key)) {
        return this;
      }
      String path = ANNOTATIONS + "/" + JsonPointer.escape(key);
      JsonNode current = annotations.get(key);
      patch.test(path, current == null ? NullNode.getInstance() : current).remove(path);
      annotations.remove(key);
      return this;
    }

    /**
     * @return the operations emitted so far, in order
     */
    public JsonPatch build() {
      return patch.build();
    }

    private void addUnderMetadata(String field, String path, JsonNode value) {
      if (metadata == null) {
        metadata = JsonNodeFactory.instance.objectNode();
        metadata.set(field, value.deepCopy());
        patch.add(METADATA, metadata);
      } else {
        patch.add(path, value);
        metadata.set(field, value.deepCopy());
      }
    }

    private ArrayNode array(String field) {
      return metadata != null && metadata.get(field) instanceof ArrayNode a ? a : null;
    }

    private ObjectNode map(String field) {
      return metadata != null && metadata.get(field) instanceof ObjectNode o ? o : null;
    }

    /** Highest index below {@code before} whose element is the text {@code value}, or -1. */
    private static int indexOf(ArrayNode array, String value, int before) {
      for (int i = before - 1; i >= 0; i--) {
        if (array.get(i).isTextual() && array.get(i).asText().equals(value)) {
          return i;
        }
      }
      return -1;
    }
  }
}
