package dev.ironcore.maintenance.api.patch;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.ironcore.maintenance.api.json.JsonMappers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An immutable RFC 6902 JSON Patch: an ordered list of {@link PatchOperation}s. The empty patch
 * means "nothing to change" (a webhook then sends no patch at all, domain reference §4).
 */
public final class JsonPatch {
  private static final JsonPatch EMPTY = new JsonPatch(List.of());

  private final List<PatchOperation> operations;

  private JsonPatch(List<PatchOperation> operations) {
    this.operations = List.copyOf(operations);
  }

  /**
   * @return the patch with no operations
   */
  public static JsonPatch empty() {
    return EMPTY;
  }

  /**
   * @return a patch of the given operations, in order
   */
  public static JsonPatch of(List<PatchOperation> operations) {
    return operations.isEmpty() ? EMPTY : new JsonPatch(operations);
  }

  /**
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * @param patches patches to join, in order
   * @return one patch with all their operations in order
   */
  public static JsonPatch concat(JsonPatch... patches) {
    List<PatchOperation> all = new ArrayList<>();
    Arrays.stream(patches).forEach(p -> all.addAll(p.operations));
    return of(all);
  }

  /**
   * @return this patch followed by {@code other}
   */
  public JsonPatch and(JsonPatch other) {
    return concat(this, other);
  }

  /**
   * @return the operations, unmodifiable
   */
  public List<PatchOperation> operations() {
    return operations;
  }

  /**
   * @return true when there is nothing to change
   */
  public boolean isEmpty() {
    return operations.isEmpty();
  }

  /**
   * @return the number of operations
   */
  public int size() {
    return operations.size();
  }

  /**
   * @return the patch document, a JSON array of operation objects ({@code []} when empty)
   */
  public ArrayNode toJson() {
    ArrayNode array = JsonNodeFactory.instance.arrayNode();
    operations.forEach(op -> array.add(op.toJson()));
    return array;
  }

  /**
   * The patch document as compact UTF-8 JSON, written straight from the operations (what {@link
   * #toJson()} would serialise, without building the tree first: an admission reply carries it
   * base64-encoded).
   *
   * @return the JSON bytes ({@code []} when empty)
   */
  public byte[] toBytes() {
    ObjectMapper mapper = JsonMappers.shared();
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 + 96 * operations.size());
    try (JsonGenerator g = mapper.createGenerator(out)) {
      g.writeStartArray();
      for (PatchOperation operation : operations) {
        g.writeStartObject();
        g.writeStringField("op", operation.op().wireName());
        g.writeStringField("path", operation.path());
        operation.writeValue(g, mapper);
        g.writeEndObject();
      }
      g.writeEndArray();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a JSON patch to memory", e);
    }
    return out.toByteArray();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof JsonPatch other && operations.equals(other.operations);
  }

  @Override
  public int hashCode() {
    return operations.hashCode();
  }

  @Override
  public String toString() {
    return toJson().toString();
  }

  /** Collects operations in order; paths must already be escaped (see {@link JsonPointer}). */
  public static final class Builder {
    private final List<PatchOperation> operations = new ArrayList<>();

    private Builder() {}

    /** Appends {@code add path value}. */
    public Builder add(String path, JsonNode value) {
      operations.add(new PatchOperation(PatchOperation.Op.ADD, path, value));
      return this;
    }

    /** Appends {@code add path "value"}. */
    public Builder add(String path, String value) {
      return add(path, TextNode.valueOf(value));
    }

    /** Appends {@code replace path value} (the target must exist). */
    public Builder replace(String path, JsonNode value) {
      operations.add(new PatchOperation(PatchOperation.Op.REPLACE, path, value));
      return this;
    }

    /** Appends {@code remove path}. */
    public Builder remove(String path) {
      operations.add(new PatchOperation(PatchOperation.Op.REMOVE, path, null));
      return this;
    }

    /** Appends {@code test path value}. */
    public Builder test(String path, JsonNode value) {
      operations.add(new PatchOperation(PatchOperation.Op.TEST, path, value));
      return this;
    }

    /** Appends {@code test path "value"}. */
    public Builder test(String path, String value) {
      return test(path, TextNode.valueOf(value));
    }

    /** Appends all operations of {@code patch}. */
    public Builder addAll(JsonPatch patch) {
      operations.addAll(patch.operations());
      return this;
    }

    /**
     * @return the patch built so far
     */
    public JsonPatch build() {
      return of(operations);
    }
  }
}
