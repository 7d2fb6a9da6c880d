package dev.ironcore.maintenance.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import org.junit.jupiter.api.Test;

class BoundedBodyTest {

  @Test
  void readsUpToTheLimit() throws Exception {
    assertThat(BoundedBody.read(new ByteArrayInputStream(new byte[10]), -1, 10)).hasSize(10);
    assertThat(BoundedBody.read(new ByteArrayInputStream(new byte[0]), 0, 10)).isEmpty();
  }

  @Test
  void aDeclaredLengthIsReadAsItIsAndAWrongOneLosesNoByte() throws Exception {
    byte[] body =
        "{\"kind\":\"AdmissionReview\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(BoundedBody.read(new ByteArrayInputStream(body), body.length, 100)).isEqualTo(body);
    // shorter than declared: the client closed early; how much came is said
    assertThatThrownBy(() -> BoundedBody.read(new ByteArrayInputStream(body), body.length + 5, 100))
        .isInstanceOf(BoundedBody.IncompleteException.class)
        .hasMessage(
            "the client sent "
                + body.length
                + " of "
                + (body.length + 5)
                + " bytes of the body, then closed the connection or reset the stream");
    // longer than declared: read on to the end, still bounded by the limit
    assertThat(BoundedBody.read(new ByteArrayInputStream(body), 3, 100)).isEqualTo(body);
    assertThatThrownBy(() -> BoundedBody.read(new ByteArrayInputStream(body), 3, body.length - 1))
        .isInstanceOf(BoundedBody.TooLargeException.class);
    assertThat(BoundedBody.read(new ByteArrayInputStream(body), body.length - 1, body.length))
        .isEqualTo(body);
  }

  @Test
  void aFailedReadSaysHowMuchCameAndWhetherTheClientWentQuiet() {
    java.io.InputStream stalled =
        new java.io.InputStream() {
          int left = 3;

          @Override
          public int read() throws java.io.IOException {
            if (left-- > 0) {
              return 'x';
            }
            throw new java.io.IOException(
                new java.util.concurrent.TimeoutException("Idle timeout expired: 30000/30000 ms"));
          }
        };
    assertThatThrownBy(() -> BoundedBody.read(stalled, 10, 100))
        .isInstanceOfSatisfying(
            BoundedBody.IncompleteException.class,
            e -> {
              assertThat(e.timedOut()).isTrue();
              assertThat(e.received()).isEqualTo(3);
              assertThat(e.getMessage())
                  .isEqualTo(
                      "the client sent 3 of 10 bytes of the body, then nothing more within the"
                          + " idle timeout");
            });
  }

  @Test
  void rejectsDeclaredOrActualExcess() {
    assertThatThrownBy(() -> BoundedBody.read(new ByteArrayInputStream(new byte[1]), 11, 10))
        .isInstanceOfSatisfying(
            BoundedBody.TooLargeException.class, e -> assertThat(e.declared()).isTrue());
    assertThatThrownBy(() -> BoundedBody.read(new ByteArrayInputStream(new byte[11]), -1, 10))
        .isInstanceOfSatisfying(
            BoundedBody.TooLargeException.class, e -> assertThat(e.declared()).isFalse());
  }

  @Test
  void mediaTypeCheckIgnoresCaseAndParameters() {
    assertThat(AdmissionEndpoint.isJson("application/json")).isTrue();
    assertThat(AdmissionEndpoint.isJson("Application/JSON; charset=utf-8")).isTrue();
    assertThat(AdmissionEndpoint.isJson("text/plain")).isFalse();
    assertThat(AdmissionEndpoint.isJson("application/json-patch+json")).isFalse();
    assertThat(AdmissionEndpoint.isJson(null)).isFalse();
  }
}
