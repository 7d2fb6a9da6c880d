package dev.ironcore.maintenance.api.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.filter.TokenFilter;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Which members of an object's JSON a decoder keeps, by name and nesting (a Jackson {@link
 * TokenFilter} that answers {@link #includeProperty} only): {@code null} skips a member, {@link
 * TokenFilter#INCLUDE_ALL} keeps it whole, another filter applies to its members. {@link #copy}
 * buffers an object's kept members only, skipping the others without decoding their strings. Under
 * Jackson's {@code FilteringParserDelegate} it keeps, besides the members it names, empty objects
 * and arrays and any array or scalar where an object was expected, whole (so a malformed document
 * reaches its reader as it was sent).
 */
public final class KeptMembers extends TokenFilter {
  private final Map<String, TokenFilter> members;
  private final TokenFilter others;

  private KeptMembers(Map<String, TokenFilter> members, TokenFilter others) {
    this.members = members;
    this.others = others;
  }

  /**
   * @param skipped member names to skip
   * @return keeps every member but these, whole
   */
  public static KeptMembers allBut(String... skipped) {
    Map<String, TokenFilter> members = new HashMap<>();
    for (String name : skipped) {
      members.put(name, null);
    }
    return new KeptMembers(members, INCLUDE_ALL);
  }

  /**
   * @param kept member names to keep
   * @return keeps these members whole, skips every other
   */
  public static KeptMembers only(String... kept) {
    Map<String, TokenFilter> members = new HashMap<>();
    for (String name : kept) {
      members.put(name, INCLUDE_ALL);
    }
    return new KeptMembers(members, null);
  }

  /**
   * @param members member name → the filter for its value ({@code null}: skip it)
   * @param others the filter for every other member: {@link TokenFilter#INCLUDE_ALL}, or {@code
   *     null} to skip them
   * @return keeps {@code members} as given and the others as {@code others} says
   */
  public static KeptMembers of(Map<String, TokenFilter> members, TokenFilter others) {
    return new KeptMembers(new HashMap<>(members), others);
  }

  /**
   * @param name a member name
   * @param filter what of that member's value to keep ({@code null}: skip it)
   * @return a copy of this filter with {@code name} kept as {@code filter} says
   */
  public KeptMembers with(String name, TokenFilter filter) {
    Map<String, TokenFilter> copy = new HashMap<>(members);
    copy.put(name, filter);
    return new KeptMembers(copy, others);
  }

  @Override
  public TokenFilter includeProperty(String name) {
    return members.containsKey(name) ? members.get(name) : others;
  }

  @Override
  public TokenFilter includeElement(int index) {
    return INCLUDE_ALL; // an array where an object belongs: kept whole
  }

  @Override
  public boolean includeEmptyObject(boolean contentsFiltered) {
    return true;
  }

  @Override
  public boolean includeEmptyArray(boolean contentsFiltered) {
    return true;
  }

  @Override
  protected boolean _includeScalar() {
    return true;
  }

  /**
   * Copies the value at the parser's current token into {@code out}, leaving the parser at its last
   * token. Of an object only the members {@code filter} keeps are copied; a skipped member's value
   * is passed over with {@link JsonParser#skipChildren()}. Arrays and scalars are copied whole.
   *
   * @param p a parser on the first token of a value
   * @param out where the kept tokens go
   * @param filter {@link TokenFilter#INCLUDE_ALL}, or a filter answering {@link #includeProperty}
   * @throws IOException on JSON the parser cannot read
   */
  public static void copy(JsonParser p, TokenBuffer out, TokenFilter filter) throws IOException {
    if (filter == INCLUDE_ALL || p.currentToken() != JsonToken.START_OBJECT) {
      out.copyCurrentStructure(p);
      return;
    }
    out.writeStartObject();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      TokenFilter member = filter.includeProperty(name);
      p.nextToken();
      if (member == null) {
        p.skipChildren();
      } else {
        out.writeFieldName(name);
        copy(p, out, member);
      }
    }
    out.writeEndObject();
  }
}
