package dev.ironcore.maintenance.server.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** Where the property tests put an unexpected value into a review: any node, at any depth. */
final class JsonNodes {
  private JsonNodes() {}

  /**
   * @return RFC 6901 pointers of every node of {@code node}, the root ({@code ""}) first
   */
  static List<String> pointers(JsonNode node) {
    return pointers(node, "", new ArrayList<>());
  }

  private static List<String> pointers(JsonNode node, String at, List<String> out) {
    out.add(at);
    if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        pointers(e.getValue(), at + "/" + e.getKey().replace("~", "~0").replace("/", "~1"), out);
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        pointers(node.get(i), at + "/" + i, out);
      }
    }
    return out;
  }

  /** Replaces the node at {@code pointer} (not the root) with {@code value}. */
  static void replaceAt(JsonNode root, String pointer, JsonNode value) {
    int slash = pointer.lastIndexOf('/');
    JsonNode parent = root.at(pointer.substring(0, slash));
    String last = pointer.substring(slash + 1).replace("~1", "/").replace("~0", "~");
    if (parent instanceof ObjectNode o) {
      o.set(last, value);
    } else if (parent instanceof ArrayNode a) {
      a.set(Integer.parseInt(last), value);
    }
  }
}
