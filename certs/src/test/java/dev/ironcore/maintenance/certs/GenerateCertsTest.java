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
  }
}
