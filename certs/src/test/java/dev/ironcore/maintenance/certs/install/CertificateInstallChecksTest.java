package dev.ironcore.maintenance.certs.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ironcore.maintenance.certs.CaBundle;
import dev.ironcore.maintenance.certs.CertificateAuthority;
import dev.ironcore.maintenance.certs.ServingPair;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A serving certificate kube-apiserver would refuse, or one that would outlive its CA, is refused
 * before anything is written: the CA files, the serving files (as make run's) and every caBundle
 * (held in memory, each calling {@code https://127.0.0.1:PORT} as make run's webhooks do) stay as
 * they were, byte for byte.
 */
class CertificateInstallChecksTest {
  private static final String URL = "https://127.0.0.1:40123/validate";
  private static final List<String> DNS =
      List.of("ironcore-maintenance-webhook", "ironcore-maintenance-webhook.ns.svc", "localhost");

  @TempDir Path dir;
  private CaFiles caFiles;
  private FilePairStore store;
  private MemoryTrust trust;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  @BeforeEach
  void setUp() {
    caFiles = new CaFiles(dir.resolve("ca"));
    store = new FilePairStore(dir.resolve("serving"));
    trust = new MemoryTrust(URL, "m1", "m2", "conversion");
  }

  private static CertificateInstall.Settings settings(
      CertificateInstall.Mode mode,
      List<String> dns,
      List<String> ips,
      Duration validity,
      Duration caValidity) {
    return new CertificateInstall.Settings(
        mode,
        false,
        "ironcore-maintenance-webhook",
        dns,
        ips,
        null,
        validity,
        caValidity == null ? Duration.ofDays(3650) : caValidity,
        Duration.ofSeconds(5));
  }

  /** The same settings with DRY_RUN on. */
  private static CertificateInstall.Settings dryRun(CertificateInstall.Settings s) {
    return new CertificateInstall.Settings(
        s.mode(),
        true,
        s.commonName(),
        s.dnsNames(),
        s.ipAddresses(),
        s.keys(),
        s.validity(),
        s.caValidity(),
        s.waitTimeout());
  }

  private void run(CertificateInstall.Settings s) {
    run(s, Clock.systemUTC());
  }

  private void run(CertificateInstall.Settings s, Clock clock) {
    new CertificateInstall(
            s,
            caFiles,
            store,
            trust,
            new ServerProbe(List.of()),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            clock)
        .run();
  }

  /** Every file under {@code dir} (symlinks as their targets) with its content. */
  private Map<String, String> files() throws IOException {
    Map<String, String> all = new TreeMap<>();
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.toList()) {
        if (Files.isSymbolicLink(p)) {
          all.put(dir.relativize(p).toString(), "-> " + Files.readSymbolicLink(p));
        } else if (Files.isRegularFile(p)) {
          all.put(dir.relativize(p).toString(), Files.readString(p));
        }
      }
    }
    return all;
  }

  /** Runs {@code s}, expects a refusal starting with {@code message}; nothing may change. */
  private void refusedUnchanged(CertificateInstall.Settings s, String message) throws IOException {
    Map<String, String> before = files();
    List<CaBundle> bundles = trust.bundles();
    assertThatThrownBy(() -> run(s)).isInstanceOf(Refusal.class).hasMessageContaining(message);
    assertThat(files()).isEqualTo(before);
    assertThat(trust.bundles()).isEqualTo(bundles);
  }

  private void installed() {
    run(settings(CertificateInstall.Mode.ENSURE, DNS, List.of("127.0.0.1"), null, null));
  }

  @Test
  void aUserCaWithNameConstraintsIsRefusedBeforeAnythingIsWritten() throws Exception {
    UserCas.nameConstrained()
        .writeTo(dir.resolve("ca").resolve("ca.crt"), dir.resolve("ca").resolve("ca.key"));
    refusedUnchanged(
        settings(CertificateInstall.Mode.ENSURE, DNS, List.of("127.0.0.1"), null, null),
        "has name constraints that do not permit the serving certificate's names");
    assertThat(trust.bundles()).allMatch(CaBundle::isEmpty);
    assertThat(store.read()).isEmpty();
  }

  @Test
  void aUserCaWithoutKeyCertSignIsRefusedBeforeAnythingIsWritten() throws Exception {
    UserCas.withoutKeyCertSign()
        .writeTo(dir.resolve("ca").resolve("ca.crt"), dir.resolve("ca").resolve("ca.key"));
    refusedUnchanged(
        settings(CertificateInstall.Mode.ENSURE, DNS, List.of("127.0.0.1"), null, null),
        "its keyUsage lacks keyCertSign");
  }

  @Test
  void sansThatDoNotCoverTheCalledHostAreRefusedBeforeAnythingIsWritten() throws Exception {
    installed();
    refusedUnchanged(
        settings(CertificateInstall.Mode.ROTATE, List.of("foo.example.com"), List.of(), null, null),
        "the serving certificate's SANs (foo.example.com) do not cover 127.0.0.1, which"
            + " MutatingWebhookConfiguration test [m1] calls ("
            + URL
            + "); add 127.0.0.1 to SANS");
    assertThat(dir.resolve("ca").resolve("ca-next.crt")).doesNotExist();
  }

  @Test
  void anExplicitValidityBeyondANewCaIsRefused() throws Exception {
    installed();
    var tooLong =
        settings(
            CertificateInstall.Mode.ROTATE,
            DNS,
            List.of("127.0.0.1"),
            Duration.ofHours(3),
            Duration.ofHours(2));
    refusedUnchanged(
        tooLong,
        ", and kube-apiserver would refuse it once the CA has expired; set VALIDITY (--validity)"
            + " to at most 1h, or set CA_VALIDITY (--ca-validity) longer");
    assertThatThrownBy(() -> run(tooLong))
        .hasMessageMatching(
            "the serving certificate would expire at \\S+, not 1 minute before its CA"
                + " CN=ironcore-maintenance-webhook-ca \\(expires \\S+\\), .*");
  }

  /**
   * Fresh eyes (session 37): {@code CA_VALIDITY=365d make rotate-certs} was refused, the default
   * 365-day serving certificate outliving the new CA by the minute the run took; the default now
   * ends with a new CA as it does with an existing one (a first {@code make certs} here: the same
   * {@code ServingValidity} decision, with no server to wait for).
   */
  @Test
  void theDefaultValidityUnderANewShorterCaEndsWithIt() throws Exception {
    // a first make certs (the new CA, nothing to wait for) takes the path of a rotation here
    run(
        settings(
            CertificateInstall.Mode.ENSURE, DNS, List.of("127.0.0.1"), null, Duration.ofDays(365)));
    X509Certificate ca = caFiles.read(Instant.now(), true).current().orElseThrow().certificate();
    ServingPair pair =
        ServingPair.parse(
            store.read().orElseThrow().certificatePem(),
            store.read().orElseThrow().privateKeyPem());
    assertThat(pair.leaf().getNotAfter()).isBeforeOrEqualTo(ca.getNotAfter());
    assertThat(pair.leaf().getNotAfter().toInstant())
        .isAfter(ca.getNotAfter().toInstant().minus(Duration.ofMinutes(2)));
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("(ending a minute before its CA)");
  }

  @Test
  void anExplicitValidityBeyondAnExistingCaIsRefused() throws Exception {
    CertificateAuthority.generate("short-ca", Duration.ofDays(10))
        .writeTo(dir.resolve("ca").resolve("ca.crt"), dir.resolve("ca").resolve("ca.key"));
    refusedUnchanged(
        settings(
            CertificateInstall.Mode.ENSURE, DNS, List.of("127.0.0.1"), Duration.ofDays(30), null),
        "set VALIDITY (--validity) to at most 9d, or rotate to a new CA (make rotate-certs)");
  }

  @Test
  void theDefaultValidityUnderAnExistingCaEndsWithIt() throws Exception {
    CertificateAuthority ca = CertificateAuthority.generate("short-ca", Duration.ofDays(10));
    ca.writeTo(dir.resolve("ca").resolve("ca.crt"), dir.resolve("ca").resolve("ca.key"));
    installed();
    ServingPair pair =
        ServingPair.parse(
            store.read().orElseThrow().certificatePem(),
            store.read().orElseThrow().privateKeyPem());
    assertThat(pair.leaf().getNotAfter()).isBeforeOrEqualTo(ca.certificate().getNotAfter());
    assertThat(pair.leaf().getNotAfter().toInstant())
        .isAfter(ca.certificate().getNotAfter().toInstant().minus(Duration.ofMinutes(2)));
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("(ending a minute before its CA)");
  }

  /**
   * Fresh eyes (session 37): with {@code tls.crt} gone, {@code make certs} sent the user to {@code
   * make rotate-certs}, while a missing pair is one it issues.
   */
  @Test
  void aPairMissingOneFileIsIssuedAnew() throws Exception {
    installed();
    String oldKey = store.read().orElseThrow().privateKeyPem();
    Files.delete(store.certFile());
    out.reset();
    run(settings(CertificateInstall.Mode.ENSURE, DNS, List.of("127.0.0.1"), null, null));
    var stored = store.read().orElseThrow();
    ServingPair.parse(stored.certificatePem(), stored.privateKeyPem()); // a usable pair again
    assertThat(stored.privateKeyPem()).isNotEqualTo(oldKey);
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("(tls.crt is missing)")
        .contains("issue a serving certificate");
  }

  /** Fresh eyes (session 38): an RSA tls.key whose tls.crt was deleted was re-issued as ECDSA. */
  @Test
  void aPairMissingItsCertificateKeepsItsKeyType() throws Exception {
    run(
        new CertificateInstall.Settings(
            CertificateInstall.Mode.ENSURE,
            false,
            "ironcore-maintenance-webhook",
            DNS,
            List.of("127.0.0.1"),
            dev.ironcore.maintenance.certs.KeyAlgorithm.RSA,
            null,
            Duration.ofDays(3650),
            Duration.ofSeconds(5)));
    Files.delete(store.certFile());
    out.reset();
    run(settings(CertificateInstall.Mode.ENSURE, DNS, List.of("127.0.0.1"), null, null));
    var stored = store.read().orElseThrow();
    assertThat(ServingPair.parse(stored.certificatePem(), stored.privateKeyPem()).privateKey())
        .extracting(java.security.Key::getAlgorithm)
        .isEqualTo("RSA");
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("issue a serving certificate (RSA");
  }

  @Test
  void aPairOfGarbageIsStillRefusedByMakeCerts() throws Exception {
    installed();
    Files.writeString(dir.resolve("serving").resolve("..data").resolve("tls.crt"), "garbage");
    refusedUnchanged(
        settings(CertificateInstall.Mode.ENSURE, DNS, List.of("127.0.0.1"), null, null),
        "); make rotate-certs replaces it");
  }

  /**
   * A stored pair the webhook server would refuse to load is no usable pair (fresh eyes, session
   * 46: a tls.crt with an unrelated second certificate was "up to date" while the server refused
   * it, so the next pod start would have failed).
   */
  @Test
  void aStoredChainTheServerWouldNotLoadIsRefusedByMakeCerts() throws Exception {
    installed();
    Path crt = dir.resolve("serving").resolve("..data").resolve("tls.crt");
    Files.writeString(
        crt,
        Files.readString(crt)
            + CertificateAuthority.generate("other", Duration.ofDays(1)).certificatePem());
    refusedUnchanged(
        settings(CertificateInstall.Mode.ENSURE, DNS, List.of("127.0.0.1"), null, null),
        "unusable serving pair in ");
    assertThatThrownBy(
            () ->
                run(
                    settings(
                        CertificateInstall.Mode.ENSURE, DNS, List.of("127.0.0.1"), null, null)))
        .hasMessageContaining("is not the issuer of certificate 1")
        .hasMessageContaining("make rotate-certs replaces it");
  }

  /**
   * A stored serving certificate whose validity has not begun is issued anew, not blamed on the CA
   * (fresh eyes, session 46: "would not verify against CA ...: validity check failed; use another
   * CA").
   */
  @Test
  void aStoredCertificateNotYetValidIsIssuedAnew() throws Exception {
    installed();
    CertificateAuthority ca =
        CertificateAuthority.load(
            dir.resolve("ca").resolve("ca.crt"), dir.resolve("ca").resolve("ca.key"));
    String[] pair = UserCas.servingNotYetValid(ca, DNS, List.of("127.0.0.1"));
    Path data = dir.resolve("serving").resolve("..data");
    Files.writeString(data.resolve("tls.crt"), pair[0]);
    Files.writeString(data.resolve("tls.key"), pair[1]);
    run(settings(CertificateInstall.Mode.ENSURE, DNS, List.of("127.0.0.1"), null, null));
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("(replacing a certificate not valid before ");
    var stored = store.read().orElseThrow();
    assertThat(
            ServingPair.parse(stored.certificatePem(), stored.privateKeyPem())
                .leaf()
                .getNotBefore()
                .toInstant())
        .isBefore(java.time.Instant.now());
  }

  /** A CA whose validity has not begun is named as such (PKIX says "validity check failed"). */
  @Test
  void aCaNotYetValidIsRefusedSayingSince() throws Exception {
    UserCas.notYetValid()
        .writeTo(dir.resolve("ca").resolve("ca.crt"), dir.resolve("ca").resolve("ca.key"));
    refusedUnchanged(
        settings(CertificateInstall.Mode.ENSURE, DNS, List.of("127.0.0.1"), null, null),
        "is not valid before ");
  }

  /** Fresh eyes (session 37): DRY_RUN printed a plan that the real run then refused. */
  @Test
  void aDryRunRefusesAPairDirectoryTheRunCouldNotCreate() throws Exception {
    Files.writeString(dir.resolve("file"), "a file, not a directory");
    store = new FilePairStore(dir.resolve("file").resolve("serving"));
    var dryRun =
        dryRun(settings(CertificateInstall.Mode.ENSURE, DNS, List.of("127.0.0.1"), null, null));
    refusedUnchanged(dryRun, "the serving pair's directory ");
    assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("plan");
  }

  @Test
  void aShortValidityIsPrintedInItsUnit() {
    run(
        settings(
            CertificateInstall.Mode.ENSURE,
            DNS,
            List.of("127.0.0.1"),
            Duration.ofSeconds(20),
            null));
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("issue a serving certificate (ECDSA, valid 20s, SANs ");
  }

  @Test
  void aSanNoLongerAskedForIsDroppedAndTheSameSansInAnotherOrderOrCaseAreKept() {
    installed();
    ServingPair first = storedPair();
    out.reset();
    run(
        settings(
            CertificateInstall.Mode.ENSURE,
            List.of(
                "IRONCORE-maintenance-webhook.ns.svc", "localhost", "ironcore-maintenance-webhook"),
            List.of("127.0.0.1"),
            null,
            null));
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("up to date");
    assertThat(storedPair().leaf()).isEqualTo(first.leaf());

    out.reset();
    List<String> fewer =
        List.of("ironcore-maintenance-webhook", "ironcore-maintenance-webhook.ns.svc");
    run(settings(CertificateInstall.Mode.ENSURE, fewer, List.of("127.0.0.1"), null, null));
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("(replacing a certificate with SAN(s) no longer asked for: localhost)");

    out.reset();
    List<String> swapped = List.of("ironcore-maintenance-webhook", "other.example.com");
    run(settings(CertificateInstall.Mode.ENSURE, swapped, List.of("127.0.0.1"), null, null));
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains(
            "(replacing a certificate without the SAN(s) other.example.com and with SAN(s) no"
                + " longer asked for: ironcore-maintenance-webhook.ns.svc)");
    run(settings(CertificateInstall.Mode.ENSURE, fewer, List.of("127.0.0.1"), null, null));
    assertThat(storedPair().subjectAlternativeNames())
        .containsExactlyInAnyOrder(
            "ironcore-maintenance-webhook", "ironcore-maintenance-webhook.ns.svc", "127.0.0.1");

    out.reset();
    run(settings(CertificateInstall.Mode.ENSURE, fewer, List.of("127.0.0.1"), null, null));
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("up to date");
  }

  private ServingPair storedPair() {
    var s = store.read().orElseThrow();
    return ServingPair.parse(s.certificatePem(), s.privateKeyPem());
  }

  /**
   * Fresh eyes: a CA directory that could not be written was found only after the caBundles had
   * been changed (a rotation with an unwritable serving directory stopped at step 3), and the
   * message did not say why.
   */
  @Test
  void aCaDirectoryThatCannotBeCreatedIsRefusedBeforeAnythingChanges() throws Exception {
    installed();
    Files.writeString(dir.resolve("afile"), "x");
    caFiles = new CaFiles(dir.resolve("afile").resolve("sub"));
    refusedUnchanged(
        settings(CertificateInstall.Mode.ROTATE, DNS, List.of("127.0.0.1"), null, null),
        "the CA directory "
            + dir.resolve("afile").resolve("sub")
            + " cannot be created: "
            + dir.resolve("afile")
            + " is not a directory");
  }

  @Test
  void aServingDirectoryThatCannotBeCreatedIsRefusedBeforeAnyCaBundleChanges() throws Exception {
    installed();
    Files.writeString(dir.resolve("bfile"), "x");
    store = new FilePairStore(dir.resolve("bfile").resolve("serving"));
    refusedUnchanged(
        settings(CertificateInstall.Mode.ROTATE, DNS, List.of("127.0.0.1"), null, null),
        "the serving pair's directory " + dir.resolve("bfile").resolve("serving"));
  }

  @Test
  void thePlanNamesTheExpiredCaItDropsFromTheCaBundles() {
    // fresh eyes: "keeping the CAs they trust now" while the update dropped an expired one
    CertificateAuthority old = CertificateAuthority.generate("old-ca", Duration.ofDays(1));
    trust.update(b -> CaBundle.of(old.certificate()));
    run(
        settings(CertificateInstall.Mode.ENSURE, DNS, List.of("127.0.0.1"), null, null),
        Clock.offset(Clock.systemUTC(), Duration.ofDays(2)));
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains(
            "add the CA to 3 of 3 caBundles, keeping the CAs they trust now except the expired"
                + " CN=old-ca (serial ")
        .contains(") (removed)");
    assertThat(trust.bundles()).noneMatch(b -> b.contains(old.certificate()));
  }

  @Test
  void withNoCertificateToIssueThePlanWaitsForTheStoredOneBeforeDroppingOtherCas() {
    installed();
    CertificateAuthority other = CertificateAuthority.generate("other-ca", Duration.ofDays(30));
    trust.update(b -> b.plus(other.certificate()));
    out.reset();
    CertificateInstall.Settings s =
        settings(CertificateInstall.Mode.ENSURE, DNS, List.of("127.0.0.1"), null, null);
    run(dryRun(s));
    // fresh eyes: the plan waited for "the new serving certificate" where none was issued
    assertThat(out.toString(StandardCharsets.UTF_8))
        .doesNotContain("issue a serving certificate")
        .doesNotContain("the new serving certificate")
        .contains("wait until the running webhook server(s) present the serving certificate of ")
        .contains("drop every other CA from the caBundles");
  }

  @Test
  void aCaDirectoryWhoseCaTheClusterDoesNotTrustSaysItMovesTheTrustAndNamesTheDroppedCa() {
    installed();
    CaFiles firstDir = caFiles;
    X509Certificate first =
        caFiles.read(Instant.now(), false).current().orElseThrow().certificate();
    // a run with another CERTS_DIR: its own CA, which no caBundle trusts (DRY_RUN: the move
    // waits for a running server to present the new certificate, and none runs here)
    caFiles = new CaFiles(dir.resolve("other-ca"));
    CertificateAuthority.generate("other-ca", Duration.ofDays(3650))
        .writeTo(
            dir.resolve("other-ca").resolve("ca.crt"), dir.resolve("other-ca").resolve("ca.key"));
    out.reset();
    CertificateInstall.Settings s =
        settings(CertificateInstall.Mode.ENSURE, DNS, List.of("127.0.0.1"), null, null);
    CertificateInstall.Settings dryRun = dryRun(s);
    run(dryRun);
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains(
            "note: no caBundle trusts the CA of "
                + dir.resolve("other-ca")
                + " (CN=other-ca (serial ")
        .contains(") yet; they trust " + CertificateInstall.describe(first))
        .contains("this run moves the cluster's trust to the CA of ")
        .contains("dropped: " + CertificateInstall.describe(first) + ")");
    assertThat(trust.bundles()).allMatch(b -> b.isExactly(first));
    // the CA directory the cluster trusts: nothing to move, no note
    caFiles = firstDir;
    out.reset();
    run(dryRun);
    assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("note:").contains("up to date");
  }

  @Test
  void aGoodInstallPasses() {
    installed();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("valid 365 days").contains("done:");
    assertThat(trust.bundles()).allMatch(b -> b.certificates().size() == 1);
  }
}
