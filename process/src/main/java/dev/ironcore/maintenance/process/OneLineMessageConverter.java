package dev.ironcore.maintenance.process;

import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * {@code %msg} of the text log format: the formatted message with its control characters escaped as
 * a JSON string escapes them ({@code \n}, {@code \r}, others as {@code \}{@code u00XX}; a tab
 * stays), so one event is one line. Messages carry what clients sent (an AdmissionReview's {@code
 * request.uid}, a kind, a taint key): fresh eyes wrote a whole forged {@code ERROR} line into the
 * log with a uid holding a newline, and a NUL that made {@code grep} call the log binary. The JSON
 * format ({@code --log-format=json}) escapes them already.
 */
public final class OneLineMessageConverter extends MessageConverter {
  @Override
  public String convert(ILoggingEvent event) {
    return escape(super.convert(event));
  }

  /**
   * @param message a formatted message, or null
   * @return {@code message} with U+0000–U+001F (but tab), U+007F, U+0085 (next line), U+2028 and
   *     U+2029 escaped (line breaks to some log readers); the same instance when it holds none
   */
  static String escape(String message) {
    if (message == null) {
      return null;
    }
    int first = 0;
    while (first < message.length() && !control(message.charAt(first))) {
      first++;
    }
    if (first == message.length()) {
      return message;
    }
    StringBuilder out = new StringBuilder(message.length() + 16).append(message, 0, first);
    for (int i = first; i < message.length(); i++) {
      char c = message.charAt(i);
      if (!control(c)) {
        out.append(c);
      } else if (c == '\n') {
        out.append("\\n");
      } else if (c == '\r') {
        out.append("\\r");
      } else {
        out.append(String.format("\\u%04x", (int) c));
      }
    }
    return out.toString();
  }

  private static boolean control(char c) {
    return (c < 0x20 && c != '\t') || c == 0x7f || c == 0x85 || c == '\u2028' || c == '\u2029';
  }
}
