package dev.ironcore.maintenance.server.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ironcore.maintenance.api.json.JsonMappers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TokenCountingParserTest {
  private static final ObjectMapper MAPPER = JsonMappers.shared();

  /** Grants one token at a time and records every count asked for. */
  private static final class Recording implements TokenAllowance {
    final List<Long> asked = new ArrayList<>();

    @Override
    public long admit(long tokens) {
      asked.add(tokens);
      return tokens;
    }
  }

  /** Refuses a tree of more than {@code max} tokens. */
  private static TokenAllowance atMost(long max) {
    return tokens -> {
      if (tokens > max) {
        throw new TokenAllowance.Refused("more than " + max, false);
      }
      return max;
    };
  }

  private static byte[] bytes(String json) {
    return json.replace('\'', '"').getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void countsEveryTokenOfTheTreeAndReadsItUnchanged() throws Exception {
    byte[] body = bytes("{'a':[1,2],'b':{'c':'x'},'d':null}");
    Recording allowance = new Recording();
    JsonNode tree = MAPPER.readTree(TokenCountingParser.wrap(MAPPER.createParser(body), allowance));
    assertThat(tree).isEqualTo(MAPPER.readTree(body));
    // { a [ 1 2 ] b { c x } d null }
    assertThat(allowance.asked)
        .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L, 13L, 14L);
  }

  @Test
  void asksOnlyWhenTheTreeGrowsPastWhatWasGranted() throws Exception {
    List<Long> asked = new ArrayList<>();
    TokenAllowance inTens =
        tokens -> {
          asked.add(tokens);
          return tokens + 9;
        };
    MAPPER.readTree(
        TokenCountingParser.wrap(MAPPER.createParser(bytes("[" + "1,".repeat(24) + "1]")), inTens));
    // 27 tokens: [ 25 values ]
    assertThat(asked).containsExactly(1L, 11L, 21L);
  }

  @Test
  void aRefusalLeavesTheTreesReaderAsItIs() {
    byte[] body = bytes("{'annotations':{" + "'a':'v',".repeat(50) + "'z':'v'}}");
    assertThatThrownBy(
            () -> MAPPER.readTree(TokenCountingParser.wrap(MAPPER.createParser(body), atMost(40))))
        .isInstanceOf(TokenAllowance.Refused.class)
        .hasMessage("more than 40");
  }

  @Test
  void nextValueCountsFieldNamesToo() throws Exception {
    Recording allowance = new Recording();
    JsonParser p = TokenCountingParser.wrap(MAPPER.createParser(bytes("{'a':1}")), allowance);
    p.nextValue(); // {
    p.nextValue(); // a, 1
    assertThat(((TokenCountingParser) p).tokens()).isEqualTo(3);
  }

  @Test
  void unlimitedCountsNothing() throws Exception {
    JsonParser p = MAPPER.createParser(bytes("[]"));
    assertThat(TokenCountingParser.wrap(p, TokenAllowance.UNLIMITED)).isSameAs(p);
  }

  /** Members the review filter skips become no nodes and are not counted. */
  @Test
  void membersTheReviewFilterSkipsAreNotCounted() throws Exception {
    String spec = "'spec':{" + "'f':1,".repeat(500) + "'g':1}";
    byte[] review =
        bytes(
            "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','request':{'uid':'u',"
                + "'object':{'metadata':{'name':'m','managedFields':["
                + "{'manager':'m'},".repeat(500)
                + "{'manager':'m'}]},"
                + spec
                + "}}}");
    AdmissionHandler metadataOnly = TestReviews.allowingReading(ObjectFields.only());
    AdmissionHandler readsAll = request -> AdmissionResponse.allowed();
    assertThat(
            AdmissionReviews.readFor(metadataOnly, review, atMost(100)).at("/request/uid").asText())
        .isEqualTo("u");
    assertThatThrownBy(() -> AdmissionReviews.readFor(readsAll, review, atMost(100)))
        .isInstanceOf(TokenAllowance.Refused.class);
    // answer() does not turn a refusal into an errored review: nothing is decided
    assertThatThrownBy(() -> AdmissionReviews.answer("/hook", review, readsAll, atMost(100)))
        .isInstanceOf(TokenAllowance.Refused.class);
  }
}
