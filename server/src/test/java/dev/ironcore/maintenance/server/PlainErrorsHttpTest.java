package dev.ironcore.maintenance.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.certs.SslContexts;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What Jetty refuses before a request reaches the routes (headers over 8 KB, an ambiguous path) is
 * answered in text/plain with one short line, as every other error of the server: it was a Jetty
 * HTML page (or JSON, when the client accepted JSON).
 */
class PlainErrorsHttpTest {
  @TempDir Path dir;
  LoopbackServer started;

  /** A raw HTTP/1.1 reply: status line, header block (lower-case) and body. */
  private record RawReply(String statusLine, String head, String body) {}

  @BeforeEach
  void start() {
    started = LoopbackServer.start(dir);
  }

  @AfterEach
  void stop() {
    started.server().stop();
  }

  @Test
  void headersOver8KbGetAPlainTextLine() throws Exception {
    String big = "x".repeat(9_000);
    for (String accept : new String[] {"", "Accept: application/json, */*\r\n"}) {
      RawReply reply =
          http1(
              "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  + accept
                  + "X-Big: "
                  + big
                  + "\r\n\r\n");
      assertThat(reply.statusLine()).startsWith("HTTP/1.1 431 ");
      assertPlainLine(reply, "Request Header Fields Too Large\n");
    }
  }

  /**
   * Over HTTP/2 Jetty's HPACK decoder ends the whole connection instead (GOAWAY), as
   * docs/webhooks.md says; the server serves the next connection. kube-apiserver sends a few
   * hundred bytes.
   */
  @Test
  void headersOver8KbOverHttp2EndTheConnection() throws Exception {
    HttpClient h2 = started.client(HttpClient.Version.HTTP_2);
    HttpRequest big =
        HttpRequest.newBuilder(URI.create(started.base() + "/healthz"))
            .header("X-Big", "x".repeat(9_000))
            .timeout(Duration.ofSeconds(10))
            .build();
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> h2.send(big, HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(IOException.class);
    HttpResponse<String> next =
        started
            .client(HttpClient.Version.HTTP_2)
            .send(
                HttpRequest.newBuilder(URI.create(started.base() + "/healthz"))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(next.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(next.statusCode()).isEqualTo(200);
  }

  @Test
  void anAmbiguousPathGetsAPlainTextLine() throws Exception {
    for (String accept :
        new String[] {"", "Accept: text/html\r\n", "Accept: application/json, */*\r\n"}) {
      RawReply reply =
          http1(
              "POST //validate/machine HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  + accept
                  + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
      assertThat(reply.statusLine()).startsWith("HTTP/1.1 400 ");
      assertPlainLine(reply, "Ambiguous URI empty segment\n");
    }
    // over HTTP/2 (the API server's protocol) too
    HttpResponse<String> h2 =
        started
            .client(HttpClient.Version.HTTP_2)
            .send(
                HttpRequest.newBuilder(URI.create(started.base() + "//validate/machine"))
                    .header("Content-Type", "application/json")
                    .header("Accept", "application/json, */*")
                    .timeout(Duration.ofSeconds(10))
                    .POST(HttpRequest.BodyPublishers.ofString("{}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(h2.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(h2.statusCode()).isEqualTo(400);
    assertThat(h2.headers().firstValue("content-type")).get().asString().startsWith("text/plain");
    assertThat(h2.body()).isEqualTo("Ambiguous URI empty segment\n");
  }

  private static void assertPlainLine(RawReply reply, String line) {
    assertThat(reply.head()).contains("\r\ncontent-type: text/plain;charset=utf-8\r\n");
    assertThat(reply.body()).isEqualTo(line);
  }

  /** Sends {@code request} as it is over a fresh TLS connection (no ALPN: HTTP/1.1). */
  private RawReply http1(String request) throws IOException {
    try (SSLSocket socket =
        (SSLSocket)
            SslContexts.trusting(started.certs().caFile())
                .getSocketFactory()
                .createSocket("127.0.0.1", started.server().port())) {
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
        int b = in.read();
        if (b < 0) {
          throw new IOException("closed in the reply's head: " + head);
        }
        head.write(b);
      }
      String headText = head.toString(StandardCharsets.ISO_8859_1);
      String lower = headText.toLowerCase(Locale.ROOT);
      int at = lower.indexOf("\r\ncontent-length: ");
      assertThat(at).as("a Content-Length in " + headText).isPositive();
      int length = Integer.parseInt(lower.substring(at + 18, lower.indexOf("\r\n", at + 2)).trim());
      String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
      return new RawReply(headText.substring(0, headText.indexOf("\r\n")), lower, body);
    }
  }
}
