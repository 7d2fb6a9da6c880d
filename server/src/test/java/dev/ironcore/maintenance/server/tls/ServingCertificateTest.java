package dev.ironcore.maintenance.server.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServingCertificateTest {
  @TempDir Path dir;

  @Test
  void loadsAndReloadsOnlyWhenTheFilesChange() {
    TestCertificates certs = TestCertificates.create(dir);
    ServingCertificate serving = ServingCertificate.load(certs.certFile(), certs.keyFile());
    assertThat(serving.current().getSubjectX500Principal().getName()).contains("CN=webhook-test");
    assertThat(serving.problem()).isEmpty();
    assertThat(serving.reloadIfChanged()).isFalse();

    certs.issueServing("rotated").writeTo(certs.certFile(), certs.keyFile());
    assertThat(serving.reloadIfChanged()).isTrue();
    assertThat(serving.current().getSubjectX500Principal().getName()).contains("CN=rotated");
    assertThat(serving.problem()).isEmpty();
  }

  @Test
  void brokenFilesKeepTheOldCertificateAndReportAProblemUntilFixed() throws Exception {
    TestCertificates certs = TestCertificates.create(dir);
    ServingCertificate serving = ServingCertificate.load(certs.certFile(), certs.keyFile());
    String good = Files.readString(certs.certFile());

    Files.writeString(certs.certFile(), "not a certificate");
    assertThat(serving.reloadIfChanged()).isFalse();
    assertThat(serving.problem())
        .hasValueSatisfying(p -> assertThat(p).contains(certs.certFile().toString()));
    assertThat(serving.current().getSubjectX500Principal().getName()).contains("CN=webhook-test");

    Files.delete(certs.keyFile());
    assertThat(serving.reloadIfChanged()).isFalse();
    assertThat(serving.problem()).isPresent();

    certs.issueServing("fixed").writeTo(certs.certFile(), certs.keyFile());
    assertThat(serving.reloadIfChanged()).isTrue();
    assertThat(serving.problem()).isEmpty();
    assertThat(good).isNotEqualTo(Files.readString(certs.certFile()));
  }

  @Test
  void mismatchedKeyIsRejectedAtStartup() {
    TestCertificates certs = TestCertificates.create(dir);
    Path otherKey = dir.resolve("other.key");
    certs.issueServing("other").writeTo(dir.resolve("other.crt"), otherKey);
    assertThatThrownBy(() -> ServingCertificate.load(certs.certFile(), otherKey))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void expiredCertificateIsAProblem() {
    TestCertificates certs = TestCertificates.create(dir);
    Clock later = Clock.fixed(Instant.now().plus(Duration.ofDays(2)), ZoneOffset.UTC);
    assertThat(ServingCertificate.load(certs.certFile(), certs.keyFile(), later).problem())
        .hasValueSatisfying(p -> assertThat(p).contains("expired"));
  }
}
