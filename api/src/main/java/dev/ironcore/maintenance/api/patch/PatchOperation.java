package dev.ironcore.maintenance.api.patch;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Objects;

/**
 * One RFC 6902 operation. Only the operations this project emits are modelled: {@code add}, {@code
 * remove}, {@code replace} and {@code test}.
 *
 * @param op the operation name
 * @param path an already escaped JSON Pointer (see {@link JsonPointer})
 * @param value the value for {@code add}/{@code replace}/{@code test}; {@code null} for {@code
 *     remove}
 */
public record PatchOperation(Op op, String path, JsonNode value) {

  /** The RFC 6902 operation names used here. */
  public enum Op {
    ADD("add"),
    REMOVE("remove"),
    REPLACE("replace"),
    TEST("test");

    private final String wireName;

    Op(String wireName) {
      this.wireName = wireName;
    }

    /**
     * @return the name as it appears in the {@code op} member, e.g. {@code "add"}
     */
    public String wireName() {
      return wireName;
    }
  }

  /**
   * @throws NullPointerException if {@code op} or {@code path} is null
   * @throws IllegalArgumentException if {@code add}/{@code replace}/{@code test} has no value or
   *     {@code remove} has one
   */
  public PatchOperation {
    Objects.requireNonNull(op, "op");
    Objects.requireNonNull(path, "path");
    if ((op == Op.REMOVE) != (value == null)) {
      throw new IllegalArgumentException(
          op.wireName() + " " + path + (op == Op.REMOVE ? " takes no value" : " needs a value"));
    }
    if (value != null) {
      value = value.deepCopy();
    }
  }

  /**
   * @return the value (a copy, so callers cannot change this operation); null for {@code remove}
   */
  @Override
  public JsonNode value() {
    return value == null ? null : value.deepCopy();
  }

  /**
   * @return the operation as {@code {"op":..,"path":..[,"value":..]}}
   */
  public ObjectNode toJson() {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("op", op.wireName());
    node.put("path", path);
    if (value != null) {
      node.set("value", value.deepCopy());
    }
    return node;
  }

  /**
   * Writes {@code "value": <value>} into the operation object open in {@code g}; nothing for {@code
   * remove}.
   *
   * @param mapper serialises a value that is not a string
   */
  void writeValue(JsonGenerator g, ObjectMapper mapper) throws IOException {
    if (value == null) {
      return;
    }
    g.writeFieldName("value");
    if (value.isTextual()) {
      g.writeString(value.textValue());
    } else {
      mapper.writeTree(g, value);
    }
  }
}
