package dev.ironcore.maintenance.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.certs.Serials;
import dev.ironcore.maintenance.server.tls.ServingCertificate;
import dev.ironcore.maintenance.server.tls.TestCertificates;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HealthEndpointsTest {
  @TempDir Path dir;

  private static String text(Reply reply) {
    return reply.status() + " " + new String(reply.body(), StandardCharsets.UTF_8);
  }

  @Test
  void anExpiredCertificateWithUnusableFilesFailsReadinessNamingBoth() throws Exception {
    TestCertificates certs = TestCertificates.create(dir); // valid for one hour from now
    Clock later = Clock.fixed(Instant.now().plus(Duration.ofDays(2)), ZoneOffset.UTC);
    ServingCertificate serving = ServingCertificate.load(certs.certFile(), certs.keyFile(), later);
    HealthEndpoints health = new HealthEndpoints(serving);
    assertThat(text(health.readyz(null)))
        .startsWith("500 certificate: serving certificate expired at ");
    assertThat(text(health.healthz(null))).isEqualTo("200 ok\n");

    Files.writeString(certs.certFile(), "junk");
    serving.reloadIfChanged();
    String readyz = text(health.readyz(null));
    assertThat(readyz)
        .startsWith("500 certificate: serving certificate expired at ")
        .contains(
            "\nwarning: cannot load "
                + certs.certFile()
                + " / "
                + certs.keyFile()
                + ": "
                + certs.certFile()
                + ": no CERTIFICATE block found in PEM text; still serving the previous"
                + " certificate (serial "
                + Serials.hex(serving.current()));
    assertThat(text(health.healthz(null))).isEqualTo("200 ok\n");
  }
}
