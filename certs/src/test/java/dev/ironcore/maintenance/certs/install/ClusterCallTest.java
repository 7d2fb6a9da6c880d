package dev.ironcore.maintenance.certs.install;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster that does not answer, or answers with an error, is reported in one line naming the
 * request (without a namespace for cluster-scoped objects) and the cause, quickly: the real client
 * against a closed port and against a real HTTP server answering 403.
 */
class ClusterCallTest {
  @TempDir Path dir;

  private record Run(int exitCode, String err, Duration took) {}

  private Run certs(String server, String... extra) throws Exception {
    Path kubeconfig =
        Files.writeString(
            dir.resolve("kubeconfig"),
            String.join(
                "\n",
                "apiVersion: v1",
                "kind: Config",
                "clusters: [{name: c, cluster: {server: '"
                    + server
                    + "', insecure-skip-tls-verify: true}}]",
                "users: [{name: u, user: {token: t}}]",
                "contexts: [{name: x, context: {cluster: c, user: u}}]",
                "current-context: x",
                ""));
    String[] args = new String[2 + extra.length];
    args[0] = "--kubeconfig=" + kubeconfig;
    args[1] = "--ca-dir=" + dir.resolve("ca");
    System.arraycopy(extra, 0, args, 2, extra.length);
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Instant start = Instant.now();
    int code =
        CertsMain.run(
            args,
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.of());
    return new Run(
        code, err.toString(StandardCharsets.UTF_8), Duration.between(start, Instant.now()));
  }

  @Test
  void noAnswerNamesTheRequestTheServerAndTheCauseAndFailsFast() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Run r = certs("https://127.0.0.1:" + port, "--serving-files=" + dir.resolve("serving"));
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err())
        .startsWith(
            "certs: get MutatingWebhookConfiguration ironcore-maintenance: no answer from"
                + " https://127.0.0.1:"
                + port
                + " (Connection refused); is the cluster (make run) up?\n")
        .doesNotContain("namespace")
        .hasLineCount(1);
    assertThat(r.took()).isLessThan(Duration.ofSeconds(10));
    assertThat(dir.resolve("ca")).doesNotExist();
    assertThat(dir.resolve("serving")).doesNotExist();
  }

  @Test
  void anErrorAnswerNamesTheRequestTheCodeAndTheApiServersMessage() throws Exception {
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    http.createContext(
        "/",
        ex -> {
          byte[] body =
              ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":"
                      + "\"validatingwebhookconfigurations is forbidden: User \\\"u\\\" cannot"
                      + " get\",\"reason\":\"Forbidden\",\"code\":403}")
                  .getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().add("Content-Type", "application/json");
          ex.sendResponseHeaders(403, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    http.start();
    try {
      String server = "http://127.0.0.1:" + http.getAddress().getPort();
      Run r = certs(server, "--webhook-configuration=hooks");
      assertThat(r)
          .isEqualTo(
              new Run(
                  1,
                  "certs: get MutatingWebhookConfiguration hooks: "
                      + server
                      + " answered 403: validatingwebhookconfigurations is forbidden: User \"u\""
                      + " cannot get\n",
                  r.took()));
    } finally {
      http.stop(0);
    }
  }
}
