package dev.ironcore.maintenance.server.admission;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Base64;

/** Builds AdmissionReview documents and requests for tests. JSON may use ' for ". */
public final class TestReviews {
  public static final ObjectMapper MAPPER = dev.ironcore.maintenance.api.json.JsonMappers.shared();

  private TestReviews() {}

  /** Parses JSON written with single quotes. */
  public static JsonNode json(String text) {
    try {
      return MAPPER.readTree(text.replace('\'', '"'));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(e);
    }
  }

  /**
   * A v1 AdmissionReview for {@code group/version kind} with the given objects (null for absent).
   */
  public static ObjectNode review(
      String uid,
      String group,
      String version,
      String kind,
      String resource,
      Operation operation,
      JsonNode object,
      JsonNode oldObject) {
    ObjectNode review = MAPPER.createObjectNode();
    review.put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
    ObjectNode request = review.putObject("request");
    request.put("uid", uid);
    request.putObject("kind").put("group", group).put("version", version).put("kind", kind);
    request
        .putObject("resource")
        .put("group", group)
        .put("version", version)
        .put("resource", resource);
    JsonNode named = object != null ? object : oldObject;
    request.put("name", named == null ? "" : named.at("/metadata/name").asText(""));
    request.put("namespace", named == null ? "" : named.at("/metadata/namespace").asText(""));
    request.put("operation", operation.name());
    request.putObject("userInfo").put("username", "tester");
    request.set("object", object == null ? MAPPER.nullNode() : object);
    request.set("oldObject", oldObject == null ? MAPPER.nullNode() : oldObject);
    request.put("dryRun", false);
    return review;
  }

  /** A request for a CAPI Machine. */
  public static AdmissionRequest capiMachine(
      Operation operation, JsonNode object, JsonNode oldObject) {
    return AdmissionRequest.fromReview(
        review(
            "uid-1",
            "cluster.x-k8s.io",
            "v1beta2",
            "Machine",
            "machines",
            operation,
            object,
            oldObject));
  }

  /** A request for an IronCore Machine. */
  public static AdmissionRequest machine(Operation operation, JsonNode object, JsonNode oldObject) {
    return AdmissionRequest.fromReview(
        review(
            "uid-1",
            "compute.ironcore.dev",
            "v1alpha1",
            "Machine",
            "machines",
            operation,
            object,
            oldObject));
  }

  /** A request for a (cluster-scoped) IronCore MachinePool. */
  public static AdmissionRequest machinePool(
      Operation operation, JsonNode object, JsonNode oldObject) {
    return AdmissionRequest.fromReview(
        review(
            "uid-1",
            "compute.ironcore.dev",
            "v1alpha1",
            "MachinePool",
            "machinepools",
            operation,
            object,
            oldObject));
  }

  /**
   * Applies a response's patch to {@code object}, decoding it from the wire form as the API server
   * would.
   */
  public static JsonNode applyWirePatch(AdmissionResponse response, JsonNode object) {
    ObjectNode wire = response.toJson("u");
    if (!wire.has("patch")) {
      return object;
    }
    JsonNode patch =
        json(new String(Base64.getDecoder().decode(wire.get("patch").asText())).replace('"', '\''));
    return io.fabric8.zjsonpatch.JsonPatch.apply(patch, object);
  }

  /**
   * @return a handler that allows everything and declares {@code fields} as what it reads
   */
  public static AdmissionHandler allowingReading(ObjectFields fields) {
    return new AdmissionHandler() {
      @Override
      public AdmissionResponse handle(AdmissionRequest request) {
        return AdmissionResponse.allowed();
      }

      @Override
      public ObjectFields objectFields() {
        return fields;
      }
    };
  }
}
