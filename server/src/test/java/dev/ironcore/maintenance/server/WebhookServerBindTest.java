package dev.ironcore.maintenance.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ironcore.maintenance.server.tls.TestCertificates;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A listener that cannot be opened is reported with the socket's own reason, not a generic "Port
 * already in use" for every bind failure.
 */
class WebhookServerBindTest {
  @TempDir Path dir;

  @Test
  void anAddressOfNoInterfaceSaysSo() {
    TestCertificates certs = TestCertificates.create(dir);
    // TEST-NET-1 (RFC 5737): valid, on no interface of this machine
    WebhookServer server =
        new WebhookServer(
            WebhookServerConfig.of(certs.certFile(), certs.keyFile()).withBindAddress("192.0.2.1"));
    assertThatThrownBy(() -> server.start(0))
        .hasMessageStartingWith("cannot start webhook server on 192.0.2.1:0: ")
        .hasMessageContaining("Cannot assign requested address")
        .hasMessageNotContaining("Port already in use");
  }

  @Test
  void aTakenPortSaysSo() throws Exception {
    TestCertificates certs = TestCertificates.create(dir);
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      WebhookServer server =
          new WebhookServer(
              WebhookServerConfig.of(certs.certFile(), certs.keyFile())
                  .withBindAddress("127.0.0.1"));
      assertThatThrownBy(() -> server.start(taken.getLocalPort()))
          .hasMessage(
              "cannot start webhook server on 127.0.0.1:"
                  + taken.getLocalPort()
                  + ": Address already in use");
    }
  }

  @Test
  void aTakenProbePortSaysWhichListenerFailed() throws Exception {
    TestCertificates certs = TestCertificates.create(dir);
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      String probes = "127.0.0.1:" + taken.getLocalPort();
      WebhookServer server =
          new WebhookServer(
              WebhookServerConfig.of(certs.certFile(), certs.keyFile())
                  .withBindAddress("127.0.0.1")
                  .withHealthProbeBindAddress(probes));
      assertThatThrownBy(() -> server.start(0))
          .hasMessage(
              "cannot start webhook server on 127.0.0.1:0 (health probes on "
                  + probes
                  + "): "
                  + probes
                  + ": Address already in use");
    }
  }

  @Test
  void logsAnIpv6AddressInBracketsAsAUrlWritesIt() {
    assertThat(WebhookServer.urlHost("::1")).isEqualTo("[::1]");
    assertThat(WebhookServer.urlHost("0:0:0:0:0:0:0:1")).isEqualTo("[0:0:0:0:0:0:0:1]");
    assertThat(WebhookServer.urlHost("[::1]")).isEqualTo("[::1]");
    assertThat(WebhookServer.urlHost("127.0.0.1")).isEqualTo("127.0.0.1");
    assertThat(WebhookServer.urlHost("localhost")).isEqualTo("localhost");
  }
}
