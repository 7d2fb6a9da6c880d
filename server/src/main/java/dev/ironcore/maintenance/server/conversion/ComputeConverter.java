package dev.ironcore.maintenance.server.conversion;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.validation.Excerpt;
import dev.ironcore.maintenance.server.admission.TokenAllowance;
import java.util.List;

/**
 * Converts one {@code compute.ironcore.dev} Machine or MachinePool between v1alpha1 and v1alpha2: a
 * pure function on JSON trees, no defaulting, no validation.
 *
 * <ul>
 *   <li>The result is a deep copy of the input with {@code apiVersion} set to the desired version;
 *       {@code metadata} and {@code status} are copied as JSON nodes, unchanged, except for the one
 *       annotation {@value V1alpha2Fields#ANNOTATION}; unknown fields, nulls and empty lists stay
 *       as they are; an object without {@code metadata} is fine.
 *   <li>v1alpha2 → v1alpha1: the v1alpha2-only list members ({@link V1alpha2Fields}) move into that
 *       annotation (added only when there is something to keep; {@code metadata} and {@code
 *       metadata.annotations} are created when absent). It always describes the v1alpha2 object's
 *       own fields: one the v1alpha2 object carries (set there by hand) is replaced, or removed
 *       when there is nothing to keep ({@code metadata.annotations} too when it is then empty).
 *   <li>v1alpha1 → v1alpha2: the annotation's members are put back and the annotation removed
 *       ({@code metadata.annotations} too when it is then empty, and then {@code metadata} when
 *       that is empty: both were created by down-conversion), so it never shows in a v1alpha2 read.
 *       A v1alpha1 entry that carries such a member itself (stored before v1alpha2 existed) keeps
 *       it.
 *   <li>An annotation that is not what down-conversion writes ({@link V1alpha2Fields#read}, e.g.
 *       {@code not json}, stored before our webhooks) carries no v1alpha2 fields: up-conversion
 *       leaves it as it is and puts nothing back, down-conversion keeps it unless there are fields
 *       to record (then it is replaced). The conversion never fails on the annotation's content.
 *   <li>Same version: only the copy.
 * </ul>
 */
public final class ComputeConverter {
  private static final ObjectMapper MAPPER = dev.ironcore.maintenance.api.json.JsonMappers.shared();

  private ComputeConverter() {}

  /**
   * @param object one entry of {@code request.objects}
   * @param desiredApiVersion {@code request.desiredAPIVersion}
   * @return the converted copy; {@code object} is not changed
   * @throws ConversionException when {@code object} is not a JSON object, its apiVersion or the
   *     desired one is not one of {@link ComputeVersions#ALL}, its kind is not Machine or
   *     MachinePool, or (down-conversion) its metadata or annotations are not JSON objects
   */
  public static ObjectNode convert(JsonNode object, String desiredApiVersion)
      throws ConversionException {
    return convert(object, desiredApiVersion, true, TokenAllowance.UNLIMITED);
  }

  /**
   * As {@link #convert(JsonNode, String)}, but converts {@code object} itself instead of a copy:
   * for a tree its caller owns and drops afterwards (the server's own parse of a review: copying
   * each object was about a sixth of what a conversion allocated). On an exception {@code object}
   * may be partly converted.
   *
   * @return {@code object}, converted
   */
  public static ObjectNode convertOwned(JsonNode object, String desiredApiVersion)
      throws ConversionException {
    return convert(object, desiredApiVersion, false, TokenAllowance.UNLIMITED);
  }

  /**
   * As {@link #convertOwned(JsonNode, String)}, with the tree parsed from the annotation (on
   * up-conversion, and on down-conversion of an object that carries one) bounded by {@code
   * allowance}: the annotation is one string of the object, but its JSON can hold any number of
   * values (a fresh-eyes check: one of 1.8 MB, {@code [{},{},...]}, ended the 64 MiB server).
   *
   * @throws TokenAllowance.Refused when the annotation's tree would exceed {@code allowance}
   */
  static ObjectNode convertOwned(
      JsonNode object, String desiredApiVersion, TokenAllowance allowance)
      throws ConversionException {
    return convert(object, desiredApiVersion, false, allowance);
  }

  private static ObjectNode convert(
      JsonNode object, String desiredApiVersion, boolean copy, TokenAllowance allowance)
      throws ConversionException {
    if (!(object instanceof ObjectNode source)) {
      throw new ConversionException("not a JSON object");
    }
    String from = text(source, "apiVersion");
    if (!ComputeVersions.ALL.contains(from)) {
      throw new ConversionException(
          "apiVersion must be one of " + ComputeVersions.ALL + ", got " + quoted(from));
    }
    if (!ComputeVersions.ALL.contains(desiredApiVersion)) {
      throw new ConversionException(
          "desiredAPIVersion must be one of "
              + ComputeVersions.ALL
              + ", got "
              + quoted(desiredApiVersion));
    }
    List<V1alpha2Fields.ListField> fields = V1alpha2Fields.of(text(source, "kind"));
    ObjectNode out = copy ? source.deepCopy() : source;
    out.put("apiVersion", desiredApiVersion);
    if (from.equals(desiredApiVersion)) {
      return out;
    }
    if (desiredApiVersion.equals(ComputeVersions.V1ALPHA1)) {
      down(out, fields, allowance);
    } else {
      up(out, fields, allowance);
    }
    return out;
  }

  private static void down(
      ObjectNode out, List<V1alpha2Fields.ListField> fields, TokenAllowance allowance)
      throws ConversionException {
    ObjectNode record = V1alpha2Fields.strip(out.get("spec"), fields);
    if (record == null) {
      // a readable one set in v1alpha2 by hand says nothing about this object's fields: a v1alpha1
      // read must not carry it, or a v1alpha1 round trip would put its members onto the v1alpha2
      // object; an unreadable one puts nothing back and stays, so that a v1alpha1 object stored
      // with it (before our webhooks) round trips as it is
      if (out.get("metadata") instanceof ObjectNode meta
          && meta.get("annotations") instanceof ObjectNode annotations
          && annotations.has(V1alpha2Fields.ANNOTATION)
          && V1alpha2Fields.read(annotations.get(V1alpha2Fields.ANNOTATION), fields, allowance)
              .readable()) {
        annotations.remove(V1alpha2Fields.ANNOTATION);
        if (annotations.isEmpty()) {
          meta.remove("annotations");
        }
      }
      return;
    }
    JsonNode metadata = out.get("metadata");
    if (metadata == null || metadata.isNull()) {
      metadata = out.putObject("metadata");
    }
    if (!(metadata instanceof ObjectNode meta)) {
      throw new ConversionException("metadata is not a JSON object");
    }
    JsonNode annotations = meta.get("annotations");
    if (annotations == null || annotations.isNull()) {
      annotations = meta.putObject("annotations");
    }
    if (!(annotations instanceof ObjectNode map)) {
      throw new ConversionException("metadata.annotations is not a JSON object");
    }
    try {
      // with our limits: JsonNode.toString() writes at most Jackson's default 1,000 levels, and an
      // entry may nest as deep as the API server stores (a fresh-eyes check: 1,001 levels under a
      // toleration failed every conversion of the Machine, and v1alpha1 lists with it)
      map.put(V1alpha2Fields.ANNOTATION, MAPPER.writeValueAsString(record));
    } catch (JsonProcessingException e) {
      throw new ConversionException(
          "annotation "
              + V1alpha2Fields.ANNOTATION
              + " cannot be written: "
              + e.getOriginalMessage());
    }
  }

  private static void up(
      ObjectNode out, List<V1alpha2Fields.ListField> fields, TokenAllowance allowance) {
    if (!(out.get("metadata") instanceof ObjectNode meta)
        || !(meta.get("annotations") instanceof ObjectNode annotations)
        || !annotations.has(V1alpha2Fields.ANNOTATION)) {
      return;
    }
    V1alpha2Fields.Reading reading =
        V1alpha2Fields.read(annotations.get(V1alpha2Fields.ANNOTATION), fields, allowance);
    if (!reading.readable()) {
      return; // carries no v1alpha2 fields; stays visible, so that its owner can remove it
    }
    V1alpha2Fields.restore(out.get("spec"), reading.record(), fields);
    annotations.remove(V1alpha2Fields.ANNOTATION);
    if (annotations.isEmpty()) {
      meta.remove("annotations");
      if (meta.isEmpty()) {
        out.remove("metadata");
      }
    }
  }

  /**
   * Why up-conversion ignores the {@value V1alpha2Fields#ANNOTATION} annotation of {@code object}
   * (for validation, which refuses a v1alpha1 write that brings such a value): see {@link
   * V1alpha2Fields#read}. Pure.
   *
   * @param object a Machine or MachinePool in any version (any node)
   * @return e.g. {@code not valid JSON: Unrecognized token 'not': ...}; empty when the object has
   *     no such annotation, its annotation is readable, or its kind is not Machine or MachinePool
   */
  public static java.util.Optional<String> unreadableAnnotation(JsonNode object) {
    JsonNode annotations = object == null ? null : object.path("metadata").path("annotations");
    if (annotations == null || !annotations.has(V1alpha2Fields.ANNOTATION)) {
      return java.util.Optional.empty();
    }
    List<V1alpha2Fields.ListField> fields;
    try {
      fields = V1alpha2Fields.of(text(object, "kind"));
    } catch (ConversionException e) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.ofNullable(
        V1alpha2Fields.read(
                annotations.get(V1alpha2Fields.ANNOTATION), fields, TokenAllowance.UNLIMITED)
            .problem());
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value != null && value.isTextual() ? value.asText() : "";
  }

  /** {@code "s"} (an excerpt of a long one), or {@code none} when null or empty. */
  static String quoted(String s) {
    return s == null || s.isEmpty() ? "none" : "\"" + Excerpt.of(s) + "\"";
  }
}
