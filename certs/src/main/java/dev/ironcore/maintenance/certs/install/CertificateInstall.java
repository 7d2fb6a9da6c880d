package dev.ironcore.maintenance.certs.install;

import dev.ironcore.maintenance.certs.CaBundle;
import dev.ironcore.maintenance.certs.CertificateAuthority;
import dev.ironcore.maintenance.certs.KeyAlgorithm;
import dev.ironcore.maintenance.certs.Pem;
import dev.ironcore.maintenance.certs.Renewal;
import dev.ironcore.maintenance.certs.Serials;
import dev.ironcore.maintenance.certs.ServingPair;
import java.io.PrintStream;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code make certs} ({@link Mode#ENSURE}) and {@code make rotate-certs} ({@link Mode#ROTATE}).
 *
 * <p>First everything is read and checked (CA files, webhook configurations, CRDs, the stored
 * serving pair), and a new serving certificate is issued in memory and checked as kube-apiserver
 * would verify it (its SANs cover every host the webhooks and CRDs call, it validates against the
 * CA with PKIX, it does not outlive the CA: {@link ServingCheck}, {@link ServingValidity}): bad
 * input is a {@link Refusal} before anything is written. Then a plan of steps is printed and
 * carried out, each step idempotent, so a run killed anywhere is completed by running again:
 *
 * <ol>
 *   <li>save a new CA (as {@code ca-next.*} while rotating, so a re-run resumes with it);
 *   <li>add the target CA to every caBundle, keeping the unexpired CAs already trusted;
 *   <li>issue a serving pair from the target CA and write it to the store, unless the stored one is
 *       from that CA, matches its key, covers the SANs, has the requested key type and more than a
 *       third of its validity left;
 *   <li>when a caBundle still trusts another CA: wait until every running server presents the new
 *       pair in a fresh TLS handshake that trusts only the target CA and checks the host name (when
 *       a new pair was issued under a CA already trusted alone, the same wait, but a server that
 *       cannot be reached is not waited for: both pairs are trusted meanwhile);
 *   <li>drop every other CA from the caBundles;
 *   <li>make {@code ca-next.*} the current CA.
 * </ol>
 *
 * With {@code dryRun} only the plan is printed.
 */
public final class CertificateInstall {

  /** What to do. */
  public enum Mode {
    /** Issue or reuse: change only what is missing, invalid or has less than a third left. */
    ENSURE,
    /** Rotate to a new CA and serving pair with overlap. */
    ROTATE
  }

  /**
   * @param mode ensure or rotate
   * @param dryRun print the plan only
   * @param commonName subject CN of the serving certificate (and {@code <cn>-ca} of a new CA)
   * @param dnsNames DNS SANs of the serving certificate
   * @param ipAddresses IP SANs of the serving certificate
   * @param keys key type of new keys (CA and serving); null keeps the type of the stored serving
   *     key (ECDSA when there is none) and never re-issues for the key type alone
   * @param validity lifetime of a new serving certificate; null for 365 days, shortened to end with
   *     an existing CA that expires sooner (an explicit value that outlives the CA, or the default
   *     under a new CA of {@code caValidity}, is refused)
   * @param caValidity lifetime of a new CA
   * @param waitTimeout how long to wait for the servers to present a new pair
   */
  public record Settings(
      Mode mode,
      boolean dryRun,
      String commonName,
      List<String> dnsNames,
      List<String> ipAddresses,
      KeyAlgorithm keys,
      Duration validity,
      Duration caValidity,
      Duration waitTimeout) {

    /** DNS and IP SANs together. */
    List<String> allNames() {
      List<String> out = new ArrayList<>(dnsNames);
      out.addAll(ipAddresses);
      return out;
    }
  }

  private final Settings settings;
  private final CaFiles caFiles;
  private final ServingPairStore store;
  private final TrustStore trust;
  private final ServerProbe probe;
  private final PrintStream out;
  private final Clock clock;
  private volatile boolean changing;
  private boolean issuesServing;
  private boolean createsCa;

  /**
   * @param settings what to do
   * @param caFiles where the CA is kept
   * @param store where the servers read their pair
   * @param trust the caBundles
   * @param probe how to see what the servers present
   * @param out progress output
   * @param clock judges expiry and the one-third rule
   */
  public CertificateInstall(
      Settings settings,
      CaFiles caFiles,
      ServingPairStore store,
      TrustStore trust,
      ServerProbe probe,
      PrintStream out,
      Clock clock) {
    this.settings = settings;
    this.caFiles = caFiles;
    this.store = store;
    this.trust = trust;
    this.probe = probe;
    this.out = out;
    this.clock = clock;
  }

  /** True once the first step began to change something (a failure then leaves work to resume). */
  public boolean changing() {
    return changing;
  }

  /** True when {@link #run} planned a new serving certificate (also in a dry run). */
  public boolean issuesServing() {
    return issuesServing;
  }

  /** True when {@link #run} planned a new CA (also in a dry run). */
  public boolean createsCa() {
    return createsCa;
  }

  /** A step of the plan: what it will do, and doing it. */
  private record Step(String description, Runnable action) {}

  /**
   * Checks, plans and (unless dry run) carries out.
   *
   * @throws Refusal on bad input, before anything is written
   * @throws IllegalStateException when the servers do not present the new pair in time (the old CA
   *     stays trusted; run again to continue)
   */
  public void run() {
    Instant now = clock.instant();
    boolean rotate = settings.mode() == Mode.ROTATE;
    // 1. check everything before writing anything
    CaFiles.State cas = caFiles.read(now, !rotate);
    ClusterTrust.Snapshot snapshot = trust.read();
    Optional<ServingPairStore.StoredPair> stored = store.read();
    Optional<ServingPair> pair = Optional.empty();
    String pairProblem = stored.isEmpty() ? "none stored yet" : null;
    if (stored.isPresent()) {
      try {
        pair =
            Optional.of(
                ServingPair.parse(stored.get().certificatePem(), stored.get().privateKeyPem()));
      } catch (IllegalArgumentException e) {
        pairProblem = CaFiles.oneLine(e.getMessage());
        // one of the two files missing is a pair missing, which make certs issues (fresh eyes: a
        // deleted tls.crt sent the user to make rotate-certs); garbage or a foreign key is refused
        boolean halfMissing =
            stored.get().certificatePem() == null || stored.get().privateKeyPem() == null;
        if (!rotate && cas.next().isEmpty() && !halfMissing) {
          throw new Refusal(
              "unusable serving pair in "
                  + store.describe()
                  + " ("
                  + pairProblem
                  + "); make rotate-certs replaces it");
        }
      }
    }
    out.println("serving pair: " + store.describe() + " (" + describePair(pair, pairProblem) + ")");
    out.println("CA directory: " + caFiles.dir());
    cas.notes().forEach(n -> out.println("note: " + n));
    snapshot.notes().forEach(n -> out.println("note: " + n));
    List<TrustSlot> slots = snapshot.slots();

    // 2. the CA every caBundle shall trust at the end
    CertificateAuthority target;
    boolean newCa = false;
    boolean pending;
    if (cas.next().isPresent()) {
      target = cas.next().get();
      pending = true;
      out.println("resuming the rotation to CA " + describe(target.certificate()));
    } else if (rotate) {
      target = newCa();
      newCa = true;
      pending = true;
    } else if (cas.current().isPresent()) {
      target = cas.current().get();
      pending = Renewal.due(target.certificate(), now);
      if (pending) {
        out.println(
            "CA "
                + describe(target.certificate())
                + " has less than a third of its validity left: rotating to a new CA");
        target = newCa();
        newCa = true;
      }
    } else {
      boolean fresh = stored.isEmpty() && slots.stream().allMatch(s -> s.bundle().isEmpty());
      if (!fresh
          && pair.isPresent()
          && servesWell(pair.get(), now)
          && trustedEverywhere(slots, pair.get())) {
        out.println(
            "up to date (no CA in "
                + caFiles.dir()
                + ", none needed): serving certificate expires "
                + pair.get().leaf().getNotAfter().toInstant());
        return;
      }
      target = newCa();
      newCa = true;
      pending = !fresh;
      if (pending) {
        out.println(
            "no CA in "
                + caFiles.dir()
                + " and the cluster trusts another one: rotating to a new CA");
      }
    }

    // 3. the plan
    createsCa = newCa;
    CertificateAuthority ca = target;
    X509Certificate caCert = target.certificate();
    List<Step> steps = new ArrayList<>();
    if (newCa) {
      boolean keepAsNext = pending;
      steps.add(
          new Step(
              "save the new CA "
                  + describe(caCert)
                  + (keepAsNext ? " as ca-next.crt/ca-next.key" : " as ca.crt/ca.key"),
              () -> {
                if (keepAsNext) {
                  caFiles.writeNext(ca);
                } else {
                  caFiles.writeCurrent(ca);
                }
              }));
    }
    long lacking = slots.stream().filter(s -> !s.bundle().contains(caCert)).count();
    // the CAs (still valid) the cluster trusts besides the target: named where they are dropped
    Set<X509Certificate> others = new LinkedHashSet<>();
    slots.forEach(
        s ->
            s.bundle().withoutExpired(now).certificates().stream()
                .filter(c -> !CaBundle.sameCertificate(c, caCert))
                .forEach(others::add));
    if (!newCa && !pending && !slots.isEmpty() && lacking == slots.size() && !others.isEmpty()) {
      // fresh eyes: make certs with another CERTS_DIR moved the cluster's trust without a word
      out.println(
          "note: no caBundle trusts the CA of "
              + caFiles.dir()
              + " ("
              + describe(caCert)
              + ") yet; they trust "
              + describeAll(others)
              + ": this run moves the cluster's trust to the CA of "
              + caFiles.dir()
              + " (was another CERTS_DIR used before? DRY_RUN=true shows the plan only)");
    }
    if (lacking > 0) {
      // an expired CA verifies nothing: the update drops it, and the plan says so
      Set<X509Certificate> expired = new LinkedHashSet<>();
      slots.forEach(
          s -> {
            Set<X509Certificate> kept =
                new HashSet<>(s.bundle().withoutExpired(now).certificates());
            s.bundle().certificates().stream().filter(c -> !kept.contains(c)).forEach(expired::add);
          });
      steps.add(
          new Step(
              "add the CA to "
                  + lacking
                  + " of "
                  + slots.size()
                  + " caBundles, keeping the CAs they trust now"
                  + (expired.isEmpty()
                      ? ""
                      : " except the expired " + describeAll(expired) + " (removed)"),
              () -> print(trust.update(b -> b.withoutExpired(clock.instant()).plus(caCert)))));
    }
    boolean issue =
        pair.isEmpty()
            || !CaBundle.signedBy(pair.get().leaf(), caCert)
            || !servesWell(pair.get(), now)
            || !store.consistent();
    issuesServing = issue;
    // the serving certificate kube-apiserver will verify: issued in memory and checked first
    ServingPair serving = issue ? null : pair.get();
    if (issue) {
      Duration validity = ServingValidity.of(settings.validity(), caCert, newCa, now);
      var issued =
          ca.issueServing(
              settings.commonName(),
              settings.dnsNames(),
              settings.ipAddresses(),
              validity,
              servingKeys(stored));
      serving = ServingPair.of(issued);
      ServingValidity.requireWithin(serving.leaf(), caCert, newCa, now);
      steps.add(
          new Step(
              "issue a serving certificate ("
                  + servingKeys(stored)
                  + ", valid "
                  + Lifetime.human(validity)
                  + (ServingValidity.shortened(settings.validity(), validity)
                      ? " (ending a minute before its CA)"
                      : "")
                  + ", SANs "
                  + String.join(", ", settings.allNames())
                  + ") and write it to "
                  + store.describe()
                  + (pairProblem == null && pair.isPresent()
                      ? " (replacing "
                          + why(
                              pair.get(),
                              caCert,
                              cas.current().map(CertificateAuthority::certificate),
                              now)
                          + ")"
                      : ""),
              () -> {
                store.write(issued.certificatePem(), issued.privateKeyPem());
                out.println("  written; expires " + issued.certificate().getNotAfter().toInstant());
              }));
    }
    ServingCheck.requireCovers(serving.leaf(), slots);
    ServingCheck.requireVerifies(serving.leaf(), caCert, now);
    boolean othersTrusted =
        slots.stream()
            .anyMatch(s -> !s.bundle().withoutExpired(now).plus(caCert).isExactly(caCert));
    Set<TrustSlot.Endpoint> endpoints = new LinkedHashSet<>();
    slots.forEach(s -> endpoints.add(s.endpoint()));
    if (issue && !othersTrusted && !endpoints.isEmpty()) {
      // the old and the new certificate are both trusted: nothing fails meanwhile, but "done"
      // should mean the servers present what was written
      steps.add(
          new Step(
              "wait until the running webhook server(s) present the new serving certificate "
                  + "(up to "
                  + settings.waitTimeout().toSeconds()
                  + " s; one not running reads it when it starts)",
              () ->
                  probe.awaitReloaded(
                      endpoints,
                      storedPair().leaf(),
                      caCert,
                      settings.waitTimeout(),
                      out::println)));
    }
    if (!issue && !othersTrusted && !endpoints.isEmpty()) {
      // nothing to issue, but a running server may not present the stored pair yet (fresh eyes:
      // the run after one whose wait timed out said "up to date" while the server still presented
      // the old certificate): "done" and "up to date" mean served
      ServingPair stored0 = serving;
      List<String> stale = probe.notPresenting(endpoints, stored0.leaf(), caCert);
      if (!stale.isEmpty()) {
        steps.add(
            new Step(
                "wait until the running webhook server(s) present the serving certificate of "
                    + store.describe()
                    + " ("
                    + String.join("; ", stale)
                    + "; up to "
                    + settings.waitTimeout().toSeconds()
                    + " s)",
                () ->
                    probe.awaitReloaded(
                        endpoints, stored0.leaf(), caCert, settings.waitTimeout(), out::println)));
      }
    }
    if (othersTrusted) {
      // before the other CAs go: the servers must present a certificate of the CA that stays
      // (the one issued above, or the stored one when none was)
      steps.add(
          new Step(
              "wait until the running webhook server(s) present "
                  + (issue
                      ? "the new serving certificate"
                      : "the serving certificate of " + store.describe())
                  + " (up to "
                  + settings.waitTimeout().toSeconds()
                  + " s)",
              () -> {
                ServingPair now2 = storedPair();
                probe.awaitPresented(
                    endpoints, now2.leaf(), caCert, settings.waitTimeout(), out::println);
              }));
    }
    if (othersTrusted) {
      steps.add(
          new Step(
              "drop every other CA from the caBundles (trust only "
                  + describe(caCert)
                  + (others.isEmpty() ? "" : "; dropped: " + describeAll(others))
                  + ")",
              () -> print(trust.update(b -> CaBundle.of(caCert)))));
    }
    if (pending) {
      steps.add(
          new Step(
              "make the new CA current (ca-next.* -> ca.* in " + caFiles.dir() + ")",
              () -> caFiles.promoteNext(ca)));
    }

    if (steps.isEmpty()) {
      out.println(
          "up to date: serving certificate expires "
              + pair.map(p -> p.leaf().getNotAfter().toInstant().toString()).orElse("?")
              + ", CA "
              + describe(caCert));
      return;
    }
    // a directory it cannot write is found now, not after the caBundles changed, and in a dry run
    // too (fresh eyes: DRY_RUN printed a plan the real run then refused)
    if (newCa || pending) { // the steps that save the new CA or make it current
      WritableDir.require(caFiles.dir(), "the CA directory");
    }
    if (issue) {
      store.requireWritable();
    }
    out.println((settings.dryRun() ? "plan (DRY_RUN, nothing is changed):" : "plan:"));
    for (int i = 0; i < steps.size(); i++) {
      out.println("  " + (i + 1) + ". " + steps.get(i).description());
    }
    if (settings.dryRun()) {
      return;
    }
    changing = true;
    for (int i = 0; i < steps.size(); i++) {
      out.println("[" + (i + 1) + "/" + steps.size() + "] " + steps.get(i).description());
      steps.get(i).action().run();
    }
    ServingPair done = storedPair();
    out.println(
        "done: serving certificate expires "
            + done.leaf().getNotAfter().toInstant()
            + " (serial "
            + Serials.hex(done.leaf())
            + "), CA "
            + describe(caCert));
  }

  private CertificateAuthority newCa() {
    KeyAlgorithm keys = settings.keys() == null ? KeyAlgorithm.ECDSA : settings.keys();
    return CertificateAuthority.generate(
        settings.commonName() + "-ca", settings.caValidity(), keys);
  }

  /** The requested key type, else that of the stored pair, else ECDSA. */
  private KeyAlgorithm servingKeys(Optional<ServingPairStore.StoredPair> stored) {
    if (settings.keys() != null) {
      return settings.keys();
    }
    // the key's type, else the certificate's: also when the other file is missing (fresh eyes:
    // an RSA tls.key whose tls.crt was deleted was re-issued as ECDSA)
    String algorithm = null;
    if (stored.isPresent()) {
      algorithm = keyAlgorithm(() -> Pem.decodePrivateKey(stored.get().privateKeyPem()));
      if (algorithm == null) {
        algorithm =
            keyAlgorithm(() -> Pem.decodeCertificate(stored.get().certificatePem()).getPublicKey());
      }
    }
    return algorithm != null && KeyAlgorithm.RSA.matches(algorithm)
        ? KeyAlgorithm.RSA
        : KeyAlgorithm.ECDSA;
  }

  /** The key's algorithm name; null when there is no readable key. */
  private static String keyAlgorithm(java.util.function.Supplier<java.security.Key> key) {
    try {
      return key.get().getAlgorithm();
    } catch (RuntimeException unreadable) {
      return null;
    }
  }

  /** The pair re-read from the store; it must be usable after our own write. */
  private ServingPair storedPair() {
    var s =
        store.read().orElseThrow(() -> new IllegalStateException(store.describe() + " is empty"));
    return ServingPair.parse(s.certificatePem(), s.privateKeyPem());
  }

  /** SANs (exactly), key type and remaining validity are as wanted, and it is valid already. */
  private boolean servesWell(ServingPair pair, Instant now) {
    return pair.sansAgainst(settings.allNames()).none()
        && (settings.keys() == null || settings.keys().matches(pair.privateKey().getAlgorithm()))
        && !notYetValid(pair.leaf(), now)
        && !Renewal.due(pair.leaf(), now);
  }

  /**
   * A certificate whose notBefore is still to come: kube-apiserver refuses it (fresh eyes, session
   * 46: a stored one made make certs blame the CA, "validity check failed; use another CA").
   */
  private static boolean notYetValid(X509Certificate certificate, Instant now) {
    return now.isBefore(certificate.getNotBefore().toInstant());
  }

  /**
   * Why the stored pair is replaced, for the plan.
   *
   * @param ca the CA the new pair is issued by
   * @param current the CA in use before this run (the previous one during a rotation)
   */
  private String why(
      ServingPair pair, X509Certificate ca, Optional<X509Certificate> current, Instant now) {
    if (!CaBundle.signedBy(pair.leaf(), ca)) {
      boolean ofPrevious =
          current.isPresent()
              && !current.get().equals(ca)
              && CaBundle.signedBy(pair.leaf(), current.get());
      return ofPrevious
          ? "the certificate issued by the previous CA (the certificate's serial "
              + Serials.hex(pair.leaf())
              + ", the CA's "
              + Serials.hex(current.get())
              + ")"
          : "a certificate issued by another CA ("
              + pair.leaf().getIssuerX500Principal().getName()
              + ")";
    }
    ServingPair.SanDifference sans = pair.sansAgainst(settings.allNames());
    if (!sans.none()) {
      return "a certificate "
          + (sans.missing().isEmpty()
              ? ""
              : "without the SAN(s) "
                  + String.join(", ", sans.missing())
                  + (sans.extra().isEmpty() ? "" : " and "))
          + (sans.extra().isEmpty()
              ? ""
              : "with SAN(s) no longer asked for: " + String.join(", ", sans.extra()));
    }
    if (settings.keys() != null && !settings.keys().matches(pair.privateKey().getAlgorithm())) {
      return "a key of type " + pair.privateKey().getAlgorithm();
    }
    if (Renewal.expired(pair.leaf(), now)) {
      return "an expired certificate";
    }
    if (notYetValid(pair.leaf(), now)) {
      return "a certificate not valid before " + pair.leaf().getNotBefore().toInstant();
    }
    return "a certificate with less than a third of its validity left";
  }

  private static boolean trustedEverywhere(List<TrustSlot> slots, ServingPair pair) {
    return slots.stream().allMatch(s -> s.bundle().signed(pair.leaf()));
  }

  private void print(List<String> lines) {
    if (lines.isEmpty()) {
      out.println("  nothing to change");
    }
    lines.forEach(l -> out.println("  " + l));
  }

  private static String describePair(Optional<ServingPair> pair, String problem) {
    if (pair.isEmpty()) {
      return problem;
    }
    X509Certificate leaf = pair.get().leaf();
    return "serial " + Serials.hex(leaf) + ", expires " + leaf.getNotAfter().toInstant();
  }

  /** {@code CN (serial …, expires …), CN (serial …, expires …)}. */
  private static String describeAll(Set<X509Certificate> cas) {
    return cas.stream()
        .map(CertificateInstall::describe)
        .collect(java.util.stream.Collectors.joining(", "));
  }

  /** {@code CN (serial …, expires …)}. */
  static String describe(X509Certificate c) {
    return c.getSubjectX500Principal().getName()
        + " (serial "
        + Serials.hex(c)
        + ", expires "
        + c.getNotAfter().toInstant()
        + ")";
  }
}
