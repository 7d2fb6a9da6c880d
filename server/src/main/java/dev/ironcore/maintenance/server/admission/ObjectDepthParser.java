package dev.ironcore.maintenance.server.admission;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.util.JsonParserDelegate;
import java.io.IOException;

/**
 * Measures how deep {@code request.object} and {@code request.oldObject} of an AdmissionReview nest
 * (the object itself level 1), every token counted: it sits below {@link ReviewFilter}, so the
 * parts no handler reads ({@code metadata.managedFields}, whose {@code fieldsV1} mirrors the
 * object's fields a few levels deeper and which a client may write itself) count too; a skip asked
 * for by the filter goes through {@link #nextToken()} here. Constant work per token.
 */
final class ObjectDepthParser extends JsonParserDelegate {
  /** Not measured (the review was not read through this parser). */
  static final int UNKNOWN = -1;

  private int objectDepth;
  private int oldObjectDepth;
  private int inside; // 0: neither, 1: request.object, 2: request.oldObject

  ObjectDepthParser(JsonParser parser) {
    super(parser);
  }

  /** Levels of {@code request.object}, 0 when absent or not a container. */
  int objectDepth() {
    return objectDepth;
  }

  /** Levels of {@code request.oldObject}, 0 when absent or not a container. */
  int oldObjectDepth() {
    return oldObjectDepth;
  }

  @Override
  public JsonToken nextToken() throws IOException {
    JsonToken t = delegate.nextToken();
    if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
      JsonStreamContext context = delegate.getParsingContext();
      int depth = context.getNestingDepth(); // the review 1, request 2, its members' values 3
      if (depth == 3) {
        JsonStreamContext request = context.getParent();
        JsonStreamContext review = request.getParent();
        String member = request.getCurrentName();
        inside =
            review == null || !"request".equals(review.getCurrentName())
                ? 0
                : "object".equals(member) ? 1 : "oldObject".equals(member) ? 2 : 0;
      } else if (depth < 3) {
        inside = 0;
      }
      if (inside == 1) {
        objectDepth = Math.max(objectDepth, depth - 2);
      } else if (inside == 2) {
        oldObjectDepth = Math.max(oldObjectDepth, depth - 2);
      }
    }
    return t;
  }

  @Override
  public JsonToken nextValue() throws IOException {
    JsonToken t = nextToken();
    return t == JsonToken.FIELD_NAME ? nextToken() : t;
  }

  @Override
  public String nextFieldName() throws IOException {
    return nextToken() == JsonToken.FIELD_NAME ? currentName() : null;
  }

  @Override
  public boolean nextFieldName(SerializableString name) throws IOException {
    return nextToken() == JsonToken.FIELD_NAME && name.getValue().equals(currentName());
  }

  @Override
  public String nextTextValue() throws IOException {
    return nextToken() == JsonToken.VALUE_STRING ? getText() : null;
  }

  /** Skips through {@link #nextToken()}, so that what the filter skips is measured too. */
  @Override
  public JsonParser skipChildren() throws IOException {
    JsonToken t = currentToken();
    if (t != JsonToken.START_OBJECT && t != JsonToken.START_ARRAY) {
      return this;
    }
    int open = 1;
    while (open > 0) {
      JsonToken next = nextToken();
      if (next == null) {
        return this;
      }
      if (next.isStructStart()) {
        open++;
      } else if (next.isStructEnd()) {
        open--;
      }
    }
    return this;
  }
}
