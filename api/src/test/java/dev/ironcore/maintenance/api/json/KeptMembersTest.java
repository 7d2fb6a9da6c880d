package dev.ironcore.maintenance.api.json;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.filter.TokenFilter;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import org.junit.jupiter.api.Test;

class KeptMembersTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String MACHINE =
      ("{'kind':'Machine','metadata':{'name':'m','managedFields':[{'manager':'x'}],"
              + "'annotations':{'a':'b'},'labels':{'l':'v'}},"
              + "'spec':{'power':'On','machinePoolRef':{'name':'p'},'tolerations':[{'key':'k'}],"
              + "'image':{'nested':[1,2,{'deep':true}]}},"
              + "'status':{'state':'Running','conditions':[{'type':'Ready'}]}}")
          .replace('\'', '"');

  /** Copies the first value of {@code json} and returns it as JSON, plus the token after it. */
  private static String copy(String json, TokenFilter filter) throws Exception {
    try (JsonParser p = JSON.createParser("[" + json + ",\"next\"]")) {
      p.nextToken();
      p.nextToken();
      TokenBuffer out = new TokenBuffer(p);
      KeptMembers.copy(p, out, filter);
      JsonToken after = p.nextToken();
      String next = after == JsonToken.VALUE_STRING ? p.getText() : String.valueOf(after);
      try (JsonParser copied = out.asParser()) {
        return JSON.readTree(copied).toString() + " then " + next;
      }
    }
  }

  @Test
  void keepsOnlyWhatTheFilterKeepsAndLeavesTheParserAfterTheValue() throws Exception {
    TokenFilter cache =
        KeptMembers.allBut("status")
            .with("metadata", KeptMembers.allBut("managedFields", "annotations"))
            .with("spec", KeptMembers.only("machinePoolRef", "tolerations"));
    assertThat(copy(MACHINE, cache))
        .isEqualTo(
            ("{'kind':'Machine','metadata':{'name':'m','labels':{'l':'v'}},"
                    + "'spec':{'machinePoolRef':{'name':'p'},'tolerations':[{'key':'k'}]}} then next")
                .replace('\'', '"'));
  }

  @Test
  void includeAllCopiesTheWholeValue() throws Exception {
    assertThat(copy(MACHINE, TokenFilter.INCLUDE_ALL))
        .isEqualTo(JSON.readTree(MACHINE).toString() + " then next");
  }

  @Test
  void aFilterOnAScalarOrArrayCopiesItWhole() throws Exception {
    TokenFilter only = KeptMembers.only("a");
    assertThat(copy("[{\"b\":1},2]", only)).isEqualTo("[{\"b\":1},2] then next");
    assertThat(copy("\"text\"", only)).isEqualTo("\"text\" then next");
    assertThat(copy("{\"b\":{\"c\":[1]},\"a\":null}", only)).isEqualTo("{\"a\":null} then next");
  }

  @Test
  void withOverridesAnEarlierAnswerWithoutChangingTheOriginal() {
    KeptMembers none = KeptMembers.only();
    KeptMembers some = none.with("x", TokenFilter.INCLUDE_ALL);
    assertThat(none.includeProperty("x")).isNull();
    assertThat(some.includeProperty("x")).isSameAs(TokenFilter.INCLUDE_ALL);
    assertThat(some.with("x", null).includeProperty("x")).isNull();
    assertThat(KeptMembers.allBut("y").includeProperty("z")).isSameAs(TokenFilter.INCLUDE_ALL);
    java.util.Map<String, TokenFilter> members = new java.util.HashMap<>();
    members.put("skipped", null);
    members.put("kept", TokenFilter.INCLUDE_ALL);
    KeptMembers of = KeptMembers.of(members, null);
    members.put("later", TokenFilter.INCLUDE_ALL);
    assertThat(of.includeProperty("skipped")).isNull();
    assertThat(of.includeProperty("kept")).isSameAs(TokenFilter.INCLUDE_ALL);
    assertThat(of.includeProperty("later")).as("a copy of the map").isNull();
  }
}
