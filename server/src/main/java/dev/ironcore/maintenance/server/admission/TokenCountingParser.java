package dev.ironcore.maintenance.server.admission;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonParserDelegate;
import java.io.IOException;

/**
 * A parser that counts the tokens it returns and asks its {@link TokenAllowance} before it returns
 * more than was granted; the allowance's {@link TokenAllowance.Refused} leaves the tree's reader
 * unwrapped. Tokens skipped with {@link #skipChildren()} are not counted (they become no nodes).
 */
public final class TokenCountingParser extends JsonParserDelegate {
  private final TokenAllowance allowance;
  private long tokens;
  private long granted;

  private TokenCountingParser(JsonParser parser, TokenAllowance allowance) {
    super(parser);
    this.allowance = allowance;
  }

  /**
   * @param parser the parser to count (its current token, if any, is not counted)
   * @param allowance what to ask; {@link TokenAllowance#UNLIMITED} returns {@code parser} itself
   * @return the counting parser
   */
  public static JsonParser wrap(JsonParser parser, TokenAllowance allowance) {
    return allowance == TokenAllowance.UNLIMITED
        ? parser
        : new TokenCountingParser(parser, allowance);
  }

  @Override
  public JsonToken nextToken() throws IOException {
    JsonToken token = super.nextToken();
    if (token != null && ++tokens > granted) {
      granted = allowance.admit(tokens);
    }
    return token;
  }

  /** As {@link JsonParser#nextValue()}, through {@link #nextToken()} so that names count too. */
  @Override
  public JsonToken nextValue() throws IOException {
    JsonToken token = nextToken();
    return token == JsonToken.FIELD_NAME ? nextToken() : token;
  }

  /** Tokens returned so far. */
  long tokens() {
    return tokens;
  }

  /**
   * What {@code allowance} grants a further tree held beside the one {@code parser} read: the
   * tokens counted so far are taken off. Used when a value of a tree (a string holding JSON) is
   * parsed into a tree of its own while the first is held.
   *
   * @param parser a parser from {@link #wrap} (for an unlimited allowance, the plain parser)
   * @param allowance the allowance {@code parser} was wrapped with
   * @return the rest of {@code allowance}
   */
  public static TokenAllowance after(JsonParser parser, TokenAllowance allowance) {
    if (!(parser instanceof TokenCountingParser counting)) {
      return allowance;
    }
    long used = counting.tokens;
    return tokens -> allowance.admit(used + tokens) - used;
  }
}
