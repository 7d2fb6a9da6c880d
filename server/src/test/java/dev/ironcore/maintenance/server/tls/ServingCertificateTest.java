package dev.ironcore.maintenance.server.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ironcore.maintenance.certs.IssuedCertificate;
import dev.ironcore.maintenance.certs.install.FilePairStore;
import dev.ironcore.maintenance.testkit.SettableClock;
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

  private ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> events;

  /** ServingCertificate's log lines from now until the test ends. */
  private ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> log() {
    events = new ch.qos.logback.core.read.ListAppender<>();
    events.start();
    logger().addAppender(events);
    return events;
  }

  private static ch.qos.logback.classic.Logger logger() {
    return (ch.qos.logback.classic.Logger)
        org.slf4j.LoggerFactory.getLogger(ServingCertificate.class);
  }

  @org.junit.jupiter.api.AfterEach
  void detachLog() {
    if (events != null) {
      logger().detachAppender(events);
    }
  }

  @Test
  void loadsAndReloadsOnlyWhenTheFilesChange() {
    TestCertificates certs = TestCertificates.create(dir);
    ServingCertificate serving = ServingCertificate.load(certs.certFile(), certs.keyFile());
    assertThat(serving.current().getSubjectX500Principal().getName()).contains("CN=webhook-test");
    assertThat(serving.reloadProblem()).isEmpty();
    assertThat(serving.reloadIfChanged()).isFalse();

    certs.issueServing("rotated").writeTo(certs.certFile(), certs.keyFile());
    assertThat(serving.reloadIfChanged()).isTrue();
    assertThat(serving.current().getSubjectX500Principal().getName()).contains("CN=rotated");
    assertThat(serving.reloadProblem()).isEmpty();
  }

  @Test
  void brokenFilesKeepTheOldCertificateAndReportAProblemUntilFixed() throws Exception {
    TestCertificates certs = TestCertificates.create(dir);
    ServingCertificate serving = ServingCertificate.load(certs.certFile(), certs.keyFile());
    String good = Files.readString(certs.certFile());

    Files.writeString(certs.certFile(), "not a certificate");
    assertThat(serving.reloadIfChanged()).isFalse();
    assertThat(serving.reloadProblem())
        .hasValueSatisfying(p -> assertThat(p).contains(certs.certFile().toString()));
    assertThat(serving.current().getSubjectX500Principal().getName()).contains("CN=webhook-test");
    assertThat(serving.servingProblem()).isEmpty(); // the previous pair is still valid to serve

    // the same pair put back: nothing to reload, and no problem any more
    Files.writeString(certs.certFile(), good);
    assertThat(serving.reloadIfChanged()).isFalse();
    assertThat(serving.reloadProblem()).isEmpty();

    Files.delete(certs.keyFile());
    assertThat(serving.reloadIfChanged()).isFalse();
    assertThat(serving.reloadProblem()).isPresent();

    certs.issueServing("fixed").writeTo(certs.certFile(), certs.keyFile());
    assertThat(serving.reloadIfChanged()).isTrue();
    assertThat(serving.reloadProblem()).isEmpty();
    assertThat(good).isNotEqualTo(Files.readString(certs.certFile()));
  }

  @Test
  void aMalformedFileIsRefusedAtStartupNamingIt() throws Exception {
    TestCertificates certs = TestCertificates.create(dir);
    Path garbage = dir.resolve("garbage.pem");
    Files.writeString(garbage, "not a certificate");
    assertThatThrownBy(() -> ServingCertificate.load(garbage, certs.keyFile()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(garbage + ": ")
        .hasMessageContaining("no CERTIFICATE block");
    assertThatThrownBy(() -> ServingCertificate.load(certs.certFile(), garbage))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(garbage + ": ");
  }

  @Test
  void aFileThatCannotBeReadIsRefusedNamingItAndWhy() throws Exception {
    TestCertificates certs = TestCertificates.create(dir);
    Path missing = dir.resolve("missing.crt");
    assertThatThrownBy(() -> ServingCertificate.load(missing, certs.keyFile()))
        .isInstanceOf(java.io.UncheckedIOException.class)
        .hasMessage("cannot read " + missing + ": no such file");
    Path directory = Files.createDirectories(dir.resolve("a-directory"));
    assertThatThrownBy(() -> ServingCertificate.load(certs.certFile(), directory))
        .isInstanceOf(java.io.UncheckedIOException.class)
        .hasMessageStartingWith("cannot read " + directory + ": ");
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
  void followsTheKubeletDataSymlinkSwapAndNeverLoadsAHalfWrittenOrMismatchedPair()
      throws Exception {
    TestCertificates certs = TestCertificates.create(dir.resolve("src"));
    Path mount = dir.resolve("mount");
    FilePairStore store = new FilePairStore(mount); // the kubelet's ..data layout
    store.write(Files.readString(certs.certFile()), Files.readString(certs.keyFile()));
    assertThat(Files.isSymbolicLink(store.certFile())).isTrue();
    ServingCertificate serving = ServingCertificate.load(store.certFile(), store.keyFile());
    String first = serving.current().getSerialNumber().toString();

    IssuedCertificate next = certs.issueServing("after-swap");
    store.write(next.certificatePem(), next.privateKeyPem());
    assertThat(serving.reloadIfChanged()).isTrue();
    assertThat(serving.current()).isEqualTo(next.certificate());
    assertThat(serving.reloadProblem()).isEmpty();

    // a certificate without its key: the key of another pair under the new certificate
    IssuedCertificate lone = certs.issueServing("without-key");
    store.write(lone.certificatePem(), next.privateKeyPem());
    assertThat(serving.reloadIfChanged()).isFalse();
    assertThat(serving.current()).isEqualTo(next.certificate());
    assertThat(serving.reloadProblem())
        .hasValueSatisfying(p -> assertThat(p).contains("private key"));
    // the key file missing entirely
    Files.delete(mount.resolve("..data").toRealPath().resolve("tls.key"));
    assertThat(serving.reloadIfChanged()).isFalse();
    assertThat(serving.current()).isEqualTo(next.certificate());
    assertThat(first).isNotEqualTo(serving.current().getSerialNumber().toString());

    IssuedCertificate fixed = certs.issueServing("fixed");
    store.write(fixed.certificatePem(), fixed.privateKeyPem());
    assertThat(serving.reloadIfChanged()).isTrue();
    assertThat(serving.current()).isEqualTo(fixed.certificate());
    assertThat(serving.reloadProblem()).isEmpty();
  }

  @Test
  void warnsWhenTheCertificateExpiresWithinTheWindow() {
    TestCertificates certs = TestCertificates.create(dir); // valid for one hour
    Clock now = Clock.systemUTC();
    assertThat(
            ServingCertificate.load(certs.certFile(), certs.keyFile(), now, Duration.ofDays(30))
                .expiresSoon())
        .isTrue();
    assertThat(
            ServingCertificate.load(certs.certFile(), certs.keyFile(), now, Duration.ofMinutes(30))
                .expiresSoon())
        .isFalse();
    assertThat(
            ServingCertificate.load(certs.certFile(), certs.keyFile(), now, Duration.ZERO)
                .expiresSoon())
        .isFalse();
  }

  @Test
  void describeNamesTheFileSubjectSerialExpiryAndTimeLeft() {
    TestCertificates certs = TestCertificates.create(dir); // valid for one hour
    Instant notAfter =
        ServingCertificate.load(certs.certFile(), certs.keyFile())
            .current()
            .getNotAfter()
            .toInstant();
    Clock tenMinutesBefore = Clock.fixed(notAfter.minus(Duration.ofMinutes(10)), ZoneOffset.UTC);
    ServingCertificate serving =
        ServingCertificate.load(
            certs.certFile(), certs.keyFile(), tenMinutesBefore, Duration.ofDays(30));
    assertThat(serving.describe())
        .startsWith(certs.certFile() + " (CN=webhook-test")
        .contains(", serial ")
        .endsWith(", valid until " + notAfter + ", 10m0s left)");
  }

  @Test
  void anExpiredOrNotYetValidCertificateIsAServingProblem() {
    TestCertificates certs = TestCertificates.create(dir);
    Clock later = Clock.fixed(Instant.now().plus(Duration.ofDays(2)), ZoneOffset.UTC);
    ServingCertificate expired = ServingCertificate.load(certs.certFile(), certs.keyFile(), later);
    assertThat(expired.servingProblem()).hasValueSatisfying(p -> assertThat(p).contains("expired"));
    assertThat(expired.reloadProblem()).isEmpty();
    Clock earlier = Clock.fixed(Instant.now().minus(Duration.ofDays(2)), ZoneOffset.UTC);
    assertThat(ServingCertificate.load(certs.certFile(), certs.keyFile(), earlier).servingProblem())
        .hasValueSatisfying(p -> assertThat(p).contains("not valid before"));
    assertThat(ServingCertificate.load(certs.certFile(), certs.keyFile()).servingProblem())
        .isEmpty();
  }

  @Test
  void aPairThatIsExpiredOrNotYetValidIsNeverSwappedInForTheServedOne() {
    TestCertificates certs = TestCertificates.create(dir); // valid for one hour from now
    Instant start = Instant.now();
    SettableClock clock = new SettableClock(start);
    ServingCertificate serving =
        ServingCertificate.load(certs.certFile(), certs.keyFile(), clock, Duration.ZERO);
    java.security.cert.X509Certificate served = serving.current();

    // valid for ten minutes, read when the clock says half an hour later: expired
    certs
        .ca()
        .issueServing(
            "short", java.util.List.of("localhost"), java.util.List.of(), Duration.ofMinutes(10))
        .writeTo(certs.certFile(), certs.keyFile());
    clock.set(start.plus(Duration.ofMinutes(30)));
    assertThat(serving.reloadIfChanged()).isFalse();
    assertThat(serving.current()).isEqualTo(served);
    assertThat(serving.reloadProblem())
        .hasValueSatisfying(
            p -> assertThat(p).contains(certs.certFile() + ": the certificate expired at "));
    assertThat(serving.servingProblem()).isEmpty();

    // the same files when the clock says ten minutes before they were issued: not yet valid
    clock.set(start.minus(Duration.ofMinutes(10)));
    assertThat(serving.reloadIfChanged()).isFalse();
    assertThat(serving.current()).isEqualTo(served);
    assertThat(serving.reloadProblem())
        .hasValueSatisfying(p -> assertThat(p).contains("the certificate is not valid before "));
    // the next check finds the same problem in the same words, so it is logged once
    String problem = serving.reloadProblem().orElseThrow();
    clock.set(start.minus(Duration.ofMinutes(9)));
    assertThat(serving.reloadIfChanged()).isFalse();
    assertThat(serving.reloadProblem()).contains(problem);

    // back at the start the pair is valid and is loaded
    clock.set(start);
    assertThat(serving.reloadIfChanged()).isTrue();
    assertThat(serving.current().getSubjectX500Principal().getName()).contains("CN=short");
    assertThat(serving.reloadProblem()).isEmpty();
  }

  /** Review (session 51): a window under a day was logged as "warning window 0 days". */
  @Test
  void aWarningWindowUnderTwoDaysIsWrittenAsTheFlagIs() {
    TestCertificates certs = TestCertificates.create(dir); // valid for one hour from now
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> events = log();
    ServingCertificate.load(
        certs.certFile(), certs.keyFile(), new SettableClock(Instant.now()), Duration.ofHours(12));
    assertThat(events.list)
        .singleElement()
        .extracting(e -> e.getFormattedMessage())
        .asString()
        .contains("(warning window 12h0m0s)");
  }

  @Test
  void theServedCertificateExpiringWhileRunningIsLoggedAsAnErrorOnce() {
    TestCertificates certs = TestCertificates.create(dir); // valid for one hour from now
    Instant start = Instant.now();
    SettableClock clock = new SettableClock(start);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> events = log();
    ServingCertificate serving =
        ServingCertificate.load(certs.certFile(), certs.keyFile(), clock, Duration.ofDays(30));
    assertThat(events.list).hasSize(1);
    assertThat(events.list.get(0).getLevel()).isEqualTo(ch.qos.logback.classic.Level.WARN);
    assertThat(events.list.get(0).getFormattedMessage())
        .containsPattern(", in (59m[0-9]+s|1h0m0s) ")
        .contains("(warning window 30 days)")
        .doesNotContain("in 0 h");

    clock.set(start.plus(Duration.ofMinutes(59)).plusSeconds(30));
    serving.reloadIfChanged();
    assertThat(events.list).hasSize(1); // already warned about this certificate today

    clock.set(start.plus(Duration.ofHours(2)));
    serving.reloadIfChanged();
    serving.reloadIfChanged();
    assertThat(events.list).hasSize(2);
    assertThat(events.list.get(1).getLevel()).isEqualTo(ch.qos.logback.classic.Level.ERROR);
    assertThat(events.list.get(1).getFormattedMessage())
        .startsWith("serving certificate expired at ")
        .contains("/readyz fails until");
  }
}
