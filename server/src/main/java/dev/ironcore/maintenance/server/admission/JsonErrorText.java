package dev.ironcore.maintenance.server.admission;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.regex.Pattern;

/**
 * Why a request body is not valid JSON, in one line for the review's reply: Jackson's own message
 * without its internals (the hidden source, {@code StreamReadFeature}/{@code StreamReadConstraints}
 * names), plus where it stopped reading, e.g. {@code Unexpected end-of-input: expected close marker
 * for Object (start marker at line 1, column 1) at line 1, column 152}.
 */
public final class JsonErrorText {
  private static final Pattern SOURCE =
      Pattern.compile("\\[Source: [^;\\]]*?(?:\\([^)]*\\))?; line: (\\d+), column: (\\d+)]");
  private static final Pattern CONSTRAINT = Pattern.compile(",? from `[A-Za-z.]+\\(\\)`");

  private JsonErrorText() {}

  /**
   * The reply's message for a body that could not be read: {@code request body is not valid JSON:
   * <why>}, or, when the JSON was cut short by a reading limit rather than wrong ({@code
   * StreamConstraintsException}: nested deeper than the parser allows, a number or name too long),
   * {@code request body exceeds a JSON reading limit: <why>} (fresh eyes, session 42: a review
   * nested 20,000 levels deep was called "not valid JSON").
   *
   * @param e what reading the body threw
   */
  public static String bodyMessage(Exception e) {
    return (e instanceof com.fasterxml.jackson.core.exc.StreamConstraintsException
            ? "request body exceeds a JSON reading limit: "
            : "request body is not valid JSON: ")
        + of(e);
  }

  /**
   * @param e what reading the body threw
   * @return one line: the message as above; the exception's class name when it has none
   */
  public static String of(Exception e) {
    String message =
        e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
    if (message == null) {
      return e.getClass().getSimpleName();
    }
    message = SOURCE.matcher(message).replaceAll("line $1, column $2");
    message = CONSTRAINT.matcher(message).replaceAll("");
    message = message.replaceAll("\\s+", " ").trim();
    if (e instanceof JsonProcessingException j) {
      JsonLocation at = j.getLocation();
      if (at != null && at.getLineNr() > 0) {
        message += " at line " + at.getLineNr() + ", column " + at.getColumnNr();
      }
    }
    return message;
  }
}
