package dev.ironcore.maintenance.server.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchException;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ironcore.maintenance.api.json.JsonMappers;
import org.junit.jupiter.api.Test;

/** Jackson's real messages for bodies the webhook server gets, as the reply shows them. */
class JsonErrorTextTest {
  private static final ObjectMapper JSON = JsonMappers.shared();

  private static String read(String body) {
    return JsonErrorText.of(catchException(() -> JSON.readTree(body)));
  }

  @Test
  void aBodyCutOffSaysWhereWithoutJacksonsInternals() {
    String text = read("{\"request\":{\"uid\":\"u\"");
    assertThat(text)
        .startsWith("Unexpected end-of-input")
        .contains("line 1, column")
        .doesNotContain("Source")
        .doesNotContain("REDACTED")
        .doesNotContain("StreamReadFeature")
        .doesNotContain("\n");
  }

  @Test
  void tooDeepANestingNamesTheLimitNotTheConstraintsClass() {
    String text = read("[".repeat(20_000));
    assertThat(text)
        .isEqualTo("Document nesting depth (10065) exceeds the maximum allowed (10064)");
  }

  /** Fresh eyes (session 42): a body nested too deeply is valid JSON, only over a limit. */
  @Test
  void theReplyCallsALimitALimitAndBrokenJsonNotValid() {
    assertThat(JsonErrorText.bodyMessage(catchException(() -> JSON.readTree("[".repeat(20_000)))))
        .isEqualTo(
            "request body exceeds a JSON reading limit: Document nesting depth (10065) exceeds"
                + " the maximum allowed (10064)");
    assertThat(JsonErrorText.bodyMessage(catchException(() -> JSON.readTree("not json"))))
        .startsWith("request body is not valid JSON: Unrecognized token 'not'");
  }

  @Test
  void aStrayTokenIsNamed() {
    assertThat(read("not json")).startsWith("Unrecognized token 'not'").contains("at line 1");
  }

  @Test
  void anExceptionWithoutAMessageIsItsClassName() {
    assertThat(JsonErrorText.of(new java.io.EOFException())).isEqualTo("EOFException");
  }
}
