package dev.ironcore.maintenance.certs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GenerateCertsTest {

  @Test
  void writesFilesWithServiceSansAndReusesCa(@TempDir Path dir) throws Exception {
    GenerateCerts.run(dir, "hook", "sys", Duration.ofDays(1));
    String ca1 = Files.readString(dir.resolve("ca.crt"));
    String tls1 = Files.readString(dir.resolve("tls.crt"));

    X509Certificate leaf = Pem.decodeCertificate(tls1);
    List<String> sans =
        leaf.getSubjectAlternativeNames().stream()
            .map(l -> (String) l.get(1))
            .collect(Collectors.toList());
    assertThat(sans)
        .containsExactly(
            "hook",
            "hook.sys",
            "hook.sys.svc",
            "hook.sys.svc.cluster.local",
            "localhost",
            "127.0.0.1");
    leaf.verify(Pem.decodeCertificate(ca1).getPublicKey());
    assertThat(Files.readString(dir.resolve("tls.key"))).startsWith("-----BEGIN PRIVATE KEY-----");

    GenerateCerts.run(dir, "hook", "sys", Duration.ofDays(1));
    assertThat(Files.readString(dir.resolve("ca.crt"))).isEqualTo(ca1);
    String tls2 = Files.readString(dir.resolve("tls.crt"));
    assertThat(tls2).isNotEqualTo(tls1);
    Pem.decodeCertificate(tls2).verify(Pem.decodeCertificate(ca1).getPublicKey());
    assertThat(Pem.decodeCertificate(tls2).getNotAfter())
        .as("a serving certificate never outlives its CA (fresh eyes: it did by 1 s)")
        .isBefore(Pem.decodeCertificate(ca1).getNotAfter());
  }

  @Test
  void aCaEndingSoonerShortensTheServingCertificateAndAnExpiredOneIsRefused(@TempDir Path dir)
      throws Exception {
    CertificateAuthority.generate("short-ca", Duration.ofDays(2))
        .writeTo(dir.resolve("ca.crt"), dir.resolve("ca.key"));
    GenerateCerts.run(dir, "hook", "sys", Duration.ofDays(365));
    X509Certificate ca = Pem.decodeCertificate(Files.readString(dir.resolve("ca.crt")));
    X509Certificate leaf = Pem.decodeCertificate(Files.readString(dir.resolve("tls.crt")));
    assertThat(leaf.getNotAfter()).isBefore(ca.getNotAfter());

    CertificateAuthority loaded =
        CertificateAuthority.load(dir.resolve("ca.crt"), dir.resolve("ca.key"));
    java.time.Instant later = ca.getNotAfter().toInstant().plusSeconds(1);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> GenerateCerts.withinCa(Duration.ofDays(1), loaded, dir.resolve("ca.crt"), later))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ca.crt expired at " + ca.getNotAfter().toInstant())
        .hasMessageContaining("make run then installs the new ca.crt itself")
        .hasMessageContaining("make rotate-certs");

    // a CA ending within 30 days is warned of (fresh eyes: make run said nothing 4 minutes before)
    java.time.Instant now = java.time.Instant.now();
    assertThat(GenerateCerts.expiringCa(loaded, dir.resolve("ca.crt"), now))
        .hasValueSatisfying(
            w ->
                assertThat(w)
                    .startsWith("GenerateCerts: warning: the CA " + dir.resolve("ca.crt"))
                    .contains("expires at " + ca.getNotAfter().toInstant()));
    // review (session 51): the time left was whole hours, "in 0 h" for a CA 40 minutes from its end
    assertThat(
            GenerateCerts.expiringCa(
                CertificateAuthority.generate("short-ca", Duration.ofMinutes(40)),
                dir.resolve("ca.crt"),
                now))
        .hasValueSatisfying(w -> assertThat(w).containsPattern("\\(in (39m[0-9]+s|40m0s)\\)"));
    assertThat(
            GenerateCerts.expiringCa(
                CertificateAuthority.generate("long-ca", Duration.ofDays(31)),
                dir.resolve("ca.crt"),
                now))
        .isEmpty();
  }

  /** Fresh eyes: a lone ca.crt was replaced by a new CA, silently; a future CA started make run. */
  @Test
  void aCaWithoutItsKeyOrNotYetValidIsRefusedAndKept(@TempDir Path dir) throws Exception {
    CertificateAuthority.generate("kept-ca", Duration.ofDays(2))
        .writeTo(dir.resolve("ca.crt"), dir.resolve("ca.key"));
    String caCrt = Files.readString(dir.resolve("ca.crt"));
    Files.delete(dir.resolve("ca.key"));
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> GenerateCerts.run(dir, "hook", "sys", Duration.ofDays(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(
            dir.resolve("ca.key") + " is missing while " + dir.resolve("ca.crt"));
    assertThat(Files.readString(dir.resolve("ca.crt"))).isEqualTo(caCrt);
    assertThat(dir.resolve("tls.crt")).doesNotExist();

    CertificateAuthority ca = CertificateAuthority.generate("future-ca", Duration.ofDays(2));
    java.time.Instant before = ca.certificate().getNotBefore().toInstant().minusSeconds(60);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> GenerateCerts.withinCa(Duration.ofDays(1), ca, dir.resolve("ca.crt"), before))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(
            "ca.crt is not valid before " + ca.certificate().getNotBefore().toInstant());
  }

  @Test
  void aFailureNamesItsCauses() {
    RuntimeException e =
        new java.io.UncheckedIOException(
            "cannot write /x/ca.crt",
            new java.nio.file.FileSystemException("/x/ca.crt", null, "Not a directory"));
    org.assertj.core.api.Assertions.assertThat(GenerateCerts.reason(e))
        .isEqualTo("cannot write /x/ca.crt: /x/ca.crt: Not a directory");
  }

  @Test
  void aValidityThatIsNotAWholeNumberOfDaysIsNamed() throws Exception {
    java.lang.reflect.Method parse =
        Class.forName("dev.ironcore.maintenance.certs.GenerateCerts$Options")
            .getDeclaredMethod("parse", String[].class);
    parse.setAccessible(true);
    for (String[] bad :
        new String[][] {
          {"abc", "--validity-days must be a whole number of days, got \"abc\""},
          {"0", "--validity-days must be from 1 to 36500 (100 years), got 0"},
          // fresh eyes, session 44: 99999999 days ended in "cannot sign certificate", no reason
          {"99999999", "--validity-days must be from 1 to 36500 (100 years), got 99999999"}
        }) {
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> {
                try {
                  parse.invoke(
                      null,
                      (Object)
                          new String[] {
                            "--out",
                            "d",
                            "--service",
                            "s",
                            "--namespace",
                            "n",
                            "--validity-days",
                            bad[0]
                          });
                } catch (java.lang.reflect.InvocationTargetException e) {
                  throw e.getCause();
                }
              })
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(bad[1]);
    }
  }
}
