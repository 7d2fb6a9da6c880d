package dev.ironcore.maintenance.server.admission;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;

/**
 * Reads a review's HTTP body as exactly one JSON value. {@link ObjectMapper#readTree(byte[])} stops
 * after the first value and ignores whatever follows ({@code {...} garbage}, a second review): such
 * a body is refused here, so it gets the same "not valid JSON" reply as any other broken body.
 */
public final class JsonBodies {
  private JsonBodies() {}

  /**
   * @param mapper reads the tree
   * @param parser a parser positioned before the body's first token (closed here)
   * @return the value; a missing node for an empty body
   * @throws IOException when the body is not JSON, or holds more than whitespace after the value
   */
  public static JsonNode readOne(ObjectMapper mapper, JsonParser parser) throws IOException {
    try (parser) {
      JsonNode tree = mapper.readTree(parser);
      if (tree == null) {
        return MissingNode.getInstance();
      }
      if (parser.nextToken() != null) {
        throw new JsonParseException(
            parser, "unexpected content after the JSON value (one review per request)");
      }
      return tree;
    }
  }
}
