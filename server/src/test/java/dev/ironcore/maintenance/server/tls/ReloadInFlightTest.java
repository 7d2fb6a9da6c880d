package dev.ironcore.maintenance.server.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.certs.SslContexts;
import dev.ironcore.maintenance.server.LoopbackServer;
import dev.ironcore.maintenance.server.WebhookServer;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.admission.TestReviews;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A certificate reload while a request is half sent: the request finishes on its connection (old
 * certificate), and the next handshake presents the new certificate, without a restart.
 */
class ReloadInFlightTest {
  @TempDir Path dir;

  @Test
  void aRequestInFlightFinishesAcrossAReloadAndTheNextHandshakeGetsTheNewCertificate()
      throws Exception {
    LoopbackServer started = LoopbackServer.start(dir);
    TestCertificates certs = started.certs();
    WebhookServer server = started.server();
    int port = server.port();
    try {
      byte[] body =
          TestReviews.review(
                  "in-flight",
                  Names.CAPI_GROUP,
                  "v1beta2",
                  "Machine",
                  "machines",
                  Operation.CREATE,
                  TestReviews.json("{'metadata':{'name':'m','namespace':'ns'}}"),
                  null)
              .toString()
              .getBytes(StandardCharsets.UTF_8);
      X509Certificate before;
      String response;
      try (SSLSocket s =
          (SSLSocket)
              SslContexts.trusting(certs.caFile())
                  .getSocketFactory()
                  .createSocket("127.0.0.1", port)) {
        s.startHandshake();
        before = (X509Certificate) s.getSession().getPeerCertificates()[0];
        OutputStream out = s.getOutputStream();
        out.write(
            ("POST /mutate/capi-machine HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\nConnection: close\r\nContent-Length: "
                    + body.length
                    + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(body, 0, body.length / 2);
        out.flush();

        certs.issueServing("rotated").writeTo(certs.certFile(), certs.keyFile());
        assertThat(server.certificate().reloadIfChanged()).isTrue();

        out.write(body, body.length / 2, body.length - body.length / 2);
        out.flush();
        response = readAll(s.getInputStream());
      }
      assertThat(response).startsWith("HTTP/1.1 200").contains("\"uid\":\"in-flight\"");
      assertThat(before.getSubjectX500Principal().getName()).contains("CN=webhook-test");
      try (SSLSocket s =
          (SSLSocket)
              SslContexts.trusting(certs.caFile())
                  .getSocketFactory()
                  .createSocket("127.0.0.1", port)) {
        s.startHandshake();
        X509Certificate after = (X509Certificate) s.getSession().getPeerCertificates()[0];
        assertThat(after.getSubjectX500Principal().getName()).contains("CN=rotated");
      }
    } finally {
      server.stop();
    }
  }

  private static String readAll(InputStream in) throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    in.transferTo(buf);
    return buf.toString(StandardCharsets.UTF_8);
  }
}
