package dev.ironcore.maintenance.api.selector;

import dev.ironcore.maintenance.api.selector.Requirement.Operator;
import dev.ironcore.maintenance.api.validation.LabelSyntax;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses kubectl's {@code -l} selector syntax (Kubernetes {@code labels.Parse}): comma-separated
 * requirements {@code key}, {@code !key}, {@code key=v}, {@code key==v}, {@code key!=v}, {@code
 * key>n}, {@code key<n}, {@code key in (v1,v2)}, {@code key notin (v1,v2)}; whitespace is allowed
 * between tokens. Keys must be qualified names and values valid label values. A missing value is
 * the empty one, as in {@code labels.Parse}: {@code a=} is {@code a=""}, {@code a in (,x)} is
 * {@code a in ("",x)}, and {@code a in ()} is {@code a in ("")}.
 */
final class LabelSelectorParser {
  private enum Kind {
    IDENT,
    NOT,
    EQ,
    NEQ,
    GT,
    LT,
    COMMA,
    OPEN,
    CLOSE,
    END
  }

  private record Token(Kind kind, String text, int position) {}

  private final String text;
  private final List<Token> tokens;
  private int next;

  private LabelSelectorParser(String text) {
    this.text = text;
    this.tokens = tokenize(text);
  }

  /**
   * @throws IllegalArgumentException describing the first problem and its position
   */
  static List<Requirement> parse(String text) {
    if (text.isBlank()) {
      return List.of();
    }
    return new LabelSelectorParser(text).selector();
  }

  private List<Requirement> selector() {
    List<Requirement> requirements = new ArrayList<>();
    do {
      requirements.add(requirement());
    } while (accept(Kind.COMMA));
    expect(Kind.END, "',' or end of selector");
    return requirements;
  }

  private Requirement requirement() {
    if (accept(Kind.NOT)) {
      return new Requirement(key(), Operator.DOES_NOT_EXIST, List.of());
    }
    String key = key();
    Token token = peek();
    switch (token.kind()) {
      case EQ, NEQ -> {
        next++;
        Operator op = token.kind() == Kind.EQ ? Operator.EQUALS : Operator.NOT_EQUALS;
        return new Requirement(key, op, List.of(value(true)));
      }
      case GT, LT -> {
        next++;
        String bound = value(false);
        if (!bound.matches("-?[0-9]+")) {
          throw error(token, "'" + token.text() + "' needs an integer, got \"" + bound + "\"");
        }
        return new Requirement(
            key,
            token.kind() == Kind.GT ? Operator.GREATER_THAN : Operator.LESS_THAN,
            List.of(bound));
      }
      case IDENT -> {
        if (token.text().equals("in") || token.text().equals("notin")) {
          next++;
          return new Requirement(
              key, token.text().equals("in") ? Operator.IN : Operator.NOT_IN, valueSet());
        }
        throw error(
            token,
            "expected an operator (=, ==, !=, >, <, in, notin), ',' or end, got '"
                + token.text()
                + "'");
      }
      default -> {
        return new Requirement(key, Operator.EXISTS, List.of());
      }
    }
  }

  private List<String> valueSet() {
    expect(Kind.OPEN, "'('");
    List<String> values = new ArrayList<>();
    if (accept(Kind.CLOSE)) {
      // labels.Parse reads "()" as the set {""}: "a in ()" selects a present and empty, and
      // "a notin ()" a absent or not empty, as kubectl and the API server do
      return List.of("");
    }
    do {
      values.add(value(true));
    } while (accept(Kind.COMMA));
    expect(Kind.CLOSE, "',' or ')'");
    return values;
  }

  private String key() {
    Token token = expect(Kind.IDENT, "a label key");
    String key = token.text();
    if (!LabelSyntax.isQualifiedName(key)) {
      throw error(
          token,
          "invalid label key \""
              + key
              + "\": must be a qualified name ([prefix/]name, name"
              + " of at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric)");
    }
    return key;
  }

  /**
   * A value; when {@code mayBeEmpty}, a missing identifier (e.g. {@code a=}) is the empty value.
   */
  private String value(boolean mayBeEmpty) {
    Token token = peek();
    if (token.kind() != Kind.IDENT) {
      if (mayBeEmpty) {
        return "";
      }
      throw error(token, "expected a value");
    }
    next++;
    String value = token.text();
    if (!LabelSyntax.isLabelValue(value)) {
      throw error(
          token,
          "invalid label value \""
              + value
              + "\": at most 63 alphanumerics, '-', '_' or '.',"
              + " starting and ending alphanumeric");
    }
    return value;
  }

  private boolean accept(Kind kind) {
    if (peek().kind() == kind) {
      next++;
      return true;
    }
    return false;
  }

  private Token expect(Kind kind, String what) {
    Token token = peek();
    if (token.kind() != kind) {
      throw error(
          token,
          "expected "
              + what
              + ", got "
              + (token.kind() == Kind.END ? "end of selector" : "'" + token.text() + "'"));
    }
    next++;
    return token;
  }

  private Token peek() {
    return tokens.get(next);
  }

  private IllegalArgumentException error(Token at, String reason) {
    return new IllegalArgumentException(
        "invalid label selector \""
            + text
            + "\" at position "
            + (at.position() + 1)
            + ": "
            + reason);
  }

  private static List<Token> tokenize(String text) {
    List<Token> tokens = new ArrayList<>();
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
        continue;
      }
      int start = i;
      Kind kind;
      switch (c) {
        case ',' -> kind = Kind.COMMA;
        case '(' -> kind = Kind.OPEN;
        case ')' -> kind = Kind.CLOSE;
        case '>' -> kind = Kind.GT;
        case '<' -> kind = Kind.LT;
        case '=' -> {
          kind = Kind.EQ;
          if (i + 1 < text.length() && text.charAt(i + 1) == '=') {
            i++;
          }
        }
        case '!' -> {
          kind = Kind.NOT;
          if (i + 1 < text.length() && text.charAt(i + 1) == '=') {
            kind = Kind.NEQ;
            i++;
          }
        }
        default -> {
          while (i < text.length()
              && !Character.isWhitespace(text.charAt(i))
              && ",()<>=!".indexOf(text.charAt(i)) < 0) {
            i++;
          }
          tokens.add(new Token(Kind.IDENT, text.substring(start, i), start));
          continue;
        }
      }
      i++;
      tokens.add(new Token(kind, text.substring(start, i), start));
    }
    tokens.add(new Token(Kind.END, "", text.length()));
    return tokens;
  }
}
