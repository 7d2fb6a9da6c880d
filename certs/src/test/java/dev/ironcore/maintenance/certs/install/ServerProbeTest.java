package dev.ironcore.maintenance.certs.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ironcore.maintenance.certs.CertificateAuthority;
import dev.ironcore.maintenance.certs.IssuedCertificate;
import dev.ironcore.maintenance.certs.ServingPair;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Step 4 against a real TLS server at {@code https://127.0.0.1:PORT}: done only when the server
 * presents the new certificate in a handshake kube-apiserver would accept (the new CA alone
 * trusted, the IP checked); the new certificate without the IP SAN ends the wait at once.
 */
class ServerProbeTest {
  private static final CertificateAuthority CA =
      CertificateAuthority.generate("probe-ca", Duration.ofDays(1));

  private static IssuedCertificate issue(
      CertificateAuthority ca, List<String> dns, List<String> ips) {
    return ca.issueServing("svc", dns, ips, Duration.ofHours(1));
  }

  @Test
  void theNewCertificateTrustedByTheNewCaForTheIpIsDone() throws Exception {
    IssuedCertificate pair = issue(CA, List.of("svc"), List.of("127.0.0.1"));
    try (TlsTestServer server = new TlsTestServer(pair)) {
      assertPresentedAndDone(server, pair);
    }
  }

  /** Step 4 ends at once, saying the server presents {@code pair}'s certificate. */
  private static void assertPresentedAndDone(TlsTestServer server, IssuedCertificate pair) {
    List<String> lines = new ArrayList<>();
    assertThatCode(
            () ->
                new ServerProbe(List.of())
                    .awaitPresented(
                        Set.of(server.endpoint()),
                        ServingPair.of(pair).leaf(),
                        CA.certificate(),
                        Duration.ofSeconds(10),
                        lines::add))
        .doesNotThrowAnyException();
    assertThat(lines).singleElement().asString().endsWith(" presents the new certificate");
  }

  /**
   * A leaf followed by an older CA certificate of the same name (every CA these tools make is named
   * alike) is accepted, as kube-apiserver's Go verifier accepts it, leaving out what it does not
   * need: fresh eyes (session 46) got "kube-apiserver would refuse it ...: signature check failed;
   * ... run again to continue" from every make certs.
   */
  @Test
  void aLeafFollowedByAnotherCaOfTheSameNameIsAcceptedAsGoAcceptsIt() throws Exception {
    CertificateAuthority older = CertificateAuthority.generate("probe-ca", Duration.ofDays(1));
    IssuedCertificate pair = issue(CA, List.of("svc"), List.of("127.0.0.1"));
    try (TlsTestServer server =
        new TlsTestServer(
            pair.certificatePem() + older.certificatePem(), pair.privateKeyPem(), 0)) {
      assertPresentedAndDone(server, pair);
    }
  }

  @Test
  void theNewCertificateWithoutTheIpSanIsReportedAtOnce() throws Exception {
    IssuedCertificate pair = issue(CA, List.of("foo.example.com"), List.of());
    try (TlsTestServer server = new TlsTestServer(pair)) {
      long start = System.nanoTime();
      assertThatThrownBy(
              () ->
                  new ServerProbe(List.of())
                      .awaitPresented(
                          Set.of(server.endpoint()),
                          ServingPair.of(pair).leaf(),
                          CA.certificate(),
                          Duration.ofSeconds(30),
                          l -> {}))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith(
              "127.0.0.1:"
                  + server.socket.getLocalPort()
                  + " presents the new certificate, but kube-apiserver would refuse it for"
                  + " 127.0.0.1: ")
          .hasMessageContaining("127.0.0.1")
          .hasMessageEndingWith("; the old CA stays trusted");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }
  }

  @Test
  void theOldCertificateIsWaitedForUntilTheTimeout() throws Exception {
    CertificateAuthority old = CertificateAuthority.generate("old-ca", Duration.ofDays(1));
    IssuedCertificate served = issue(old, List.of("svc"), List.of("127.0.0.1"));
    IssuedCertificate expected = issue(CA, List.of("svc"), List.of("127.0.0.1"));
    try (TlsTestServer server = new TlsTestServer(served)) {
      assertThatThrownBy(
              () ->
                  new ServerProbe(List.of())
                      .awaitPresented(
                          Set.of(
                              server.endpoint(),
                              new TrustSlot.Endpoint(
                                  0,
                                  server.endpoint().url().replace("/validate", "/mutate"),
                                  null,
                                  null,
                                  443)),
                          ServingPair.of(expected).leaf(),
                          CA.certificate(),
                          Duration.ofSeconds(1),
                          l -> {}))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("not every server presents the new certificate")
          .hasMessageContaining("still presents serial")
          .satisfies(
              e ->
                  assertThat(e.getMessage().split("still presents", -1))
                      .as("one server behind two webhook paths is named once")
                      .hasSize(2));
    }
  }

  @Test
  void aReissueDoesNotWaitForAServerThatIsNotRunningButForOneThatStillServesTheOldPair()
      throws Exception {
    IssuedCertificate old = issue(CA, List.of("svc"), List.of("127.0.0.1"));
    IssuedCertificate expected = issue(CA, List.of("svc"), List.of("127.0.0.1"));
    TrustSlot.Endpoint gone;
    try (TlsTestServer stopped = new TlsTestServer(old)) {
      gone = stopped.endpoint();
    }
    List<String> lines = new ArrayList<>();
    assertThatCode(
            () ->
                new ServerProbe(List.of())
                    .awaitReloaded(
                        Set.of(gone),
                        ServingPair.of(expected).leaf(),
                        CA.certificate(),
                        Duration.ofSeconds(30),
                        lines::add))
        .doesNotThrowAnyException();
    assertThat(lines)
        .singleElement()
        .asString()
        .contains("cannot connect")
        .endsWith("(not waited for: it reads the new pair when it starts)");
    // the same CA, the old pair still served: waited for, named once, until the timeout
    try (TlsTestServer server = new TlsTestServer(old)) {
      List<String> waiting = new ArrayList<>();
      assertThatThrownBy(
              () ->
                  new ServerProbe(List.of())
                      .awaitReloaded(
                          Set.of(server.endpoint()),
                          ServingPair.of(expected).leaf(),
                          CA.certificate(),
                          Duration.ofSeconds(2),
                          waiting::add))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("still presents serial");
      assertThat(waiting).singleElement().asString().startsWith("  waiting for 127.0.0.1:");
    }
  }

  /**
   * Fresh eyes: a webhook server stopped with {@code kill -STOP} (its socket accepts, nothing
   * answers) was taken for one not running, and make certs said done. It is a running server that
   * has not shown the new pair: waited for, until the timeout.
   */
  @Test
  void aReissueWaitsForAServerThatAcceptsButDoesNotAnswer() throws Exception {
    IssuedCertificate expected = issue(CA, List.of("svc"), List.of("127.0.0.1"));
    // the kernel accepts connections to a listening socket nobody reads from
    try (java.net.ServerSocket hung =
        new java.net.ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
      TrustSlot.Endpoint endpoint =
          new TrustSlot.Endpoint(
              0, "https://127.0.0.1:" + hung.getLocalPort() + "/validate", null, null, 443);
      List<String> lines = new ArrayList<>();
      assertThatThrownBy(
              () ->
                  new ServerProbe(List.of())
                      .awaitReloaded(
                          Set.of(endpoint),
                          ServingPair.of(expected).leaf(),
                          CA.certificate(),
                          Duration.ofSeconds(1),
                          lines::add))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("accepts connections but completed no TLS handshake");
      assertThat(lines).singleElement().asString().startsWith("  waiting for 127.0.0.1:");
    }
  }
}
