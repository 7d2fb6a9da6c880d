package dev.ironcore.maintenance.server.admission;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * Best-effort reading of {@code apiVersion} and {@code request.uid} from a review (AdmissionReview
 * or ConversionReview, which share that shape) whose body is not valid JSON (for example cut off),
 * so that even the error reply can carry the uid. It reads tokens until the first syntax error.
 *
 * @param uid {@code request.uid} if it was seen before the error, else {@code ""}
 * @param apiVersion the top-level {@code apiVersion} if seen, else {@code ""}
 */
public record ReviewSalvage(String uid, String apiVersion) {
  private static final JsonFactory FACTORY = new JsonFactory();

  /**
   * @param body any bytes
   * @return what could be read before the first syntax error
   */
  public static ReviewSalvage of(byte[] body) {
    String uid = "";
    String apiVersion = "";
    try (JsonParser parser = FACTORY.createParser(body)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return new ReviewSalvage(uid, apiVersion);
      }
      int depth = 1;
      boolean inRequest = false;
      String field = null;
      for (JsonToken token = parser.nextToken();
          token != null && depth > 0;
          token = parser.nextToken()) {
        switch (token) {
          case FIELD_NAME -> field = parser.currentName();
          case START_OBJECT, START_ARRAY -> {
            inRequest =
                depth == 1 && token == JsonToken.START_OBJECT && "request".equals(field)
                    || inRequest;
            depth++;
          }
          case END_OBJECT, END_ARRAY -> {
            depth--;
            if (depth == 1) {
              inRequest = false;
            }
          }
          case VALUE_STRING -> {
            if (depth == 1 && "apiVersion".equals(field)) {
              apiVersion = parser.getText();
            } else if (depth == 2 && inRequest && "uid".equals(field)) {
              uid = parser.getText();
            }
          }
          default -> {}
        }
      }
    } catch (IOException | RuntimeException e) {
      // keep what was read before the error
    }
    return new ReviewSalvage(uid, apiVersion);
  }
}
