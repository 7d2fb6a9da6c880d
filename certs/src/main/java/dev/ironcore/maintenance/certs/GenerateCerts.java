package dev.ironcore.maintenance.certs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Command line: writes a webhook CA and serving certificate as PEM files.
 *
 * <pre>
 * GenerateCerts --out DIR --service NAME --namespace NS [--validity-days N]
 * </pre>
 *
 * Writes {@code DIR/ca.crt}, {@code DIR/ca.key} (kept if both already exist, so a caBundle stays
 * valid across runs), and always a fresh {@code DIR/tls.crt}, {@code DIR/tls.key} with SANs NAME,
 * NAME.NS, NAME.NS.svc, NAME.NS.svc.cluster.local, localhost and 127.0.0.1. Exit code 0 on success,
 * 2 on bad arguments, 1 on other errors.
 */
public final class GenerateCerts {

  private GenerateCerts() {}

  private static final String USAGE =
      "usage: GenerateCerts --out DIR --service NAME --namespace NS [--validity-days N]";

  public static void main(String[] args) {
    if (java.util.Arrays.asList(args).contains("--help")
        || java.util.Arrays.asList(args).contains("-h")) {
      System.out.println(USAGE);
      return;
    }
    Options o;
    try {
      o = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("GenerateCerts: " + e.getMessage());
      System.err.println(USAGE);
      System.exit(2);
      return;
    }
    try {
      CertificateAuthority ca = run(o.out, o.service, o.namespace, Duration.ofDays(o.validityDays));
      expiringCa(ca, o.out.resolve("ca.crt"), Instant.now()).ifPresent(System.err::println);
      System.out.println(o.out.toAbsolutePath());
    } catch (RuntimeException e) {
      // not a usage error (fresh eyes: a garbage ca.crt was followed by the usage line); the
      // causes' messages too (fresh eyes, session 44: "java.io.UncheckedIOException: cannot write
      // .../ca.crt" without why)
      System.err.println("GenerateCerts: " + reason(e));
      System.exit(1);
    }
  }

  /** The messages of {@code e} and its causes, each once, joined by {@code ": "}. */
  static String reason(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String part =
          t.getMessage() == null || t.getMessage().isBlank()
              ? t.getClass().getSimpleName()
              : t.getMessage();
      if (!out.toString().contains(part)) {
        out.append(out.length() == 0 ? "" : ": ").append(part);
      }
    }
    return out.toString();
  }

  /**
   * Does the work of {@link #main}; returns the CA used (existing or new).
   *
   * @param out directory, created if missing
   * @param service service name, e.g. {@code ironcore-maintenance-webhook}
   * @param namespace service namespace
   * @param validity lifetime of a new CA and of the serving certificate
   */
  public static CertificateAuthority run(
      Path out, String service, String namespace, Duration validity) {
    Path caCrt = out.resolve("ca.crt");
    Path caKey = out.resolve("ca.key");
    CertificateAuthority ca;
    if (Files.exists(caCrt) != Files.exists(caKey)) {
      // fresh eyes: a lone ca.crt was overwritten by a new CA, silently
      Path present = Files.exists(caCrt) ? caCrt : caKey;
      Path missing = Files.exists(caCrt) ? caKey : caCrt;
      throw new IllegalStateException(
          missing
              + " is missing while "
              + present
              + " exists: restore it, or delete "
              + present
              + " too for a new CA (make run then installs the new ca.crt itself)");
    }
    if (Files.exists(caCrt)) {
      ca = CertificateAuthority.load(caCrt, caKey);
    } else {
      ca = CertificateAuthority.generate(service + "-ca", validity);
      ca.writeTo(caCrt, caKey);
    }
    ca.issueServing(
            service,
            servingDnsNames(service, namespace),
            List.of("127.0.0.1"),
            withinCa(validity, ca, caCrt, Instant.now()))
        .writeTo(out.resolve("tls.crt"), out.resolve("tls.key"));
    return ca;
  }

  /** How long before a CA's end {@link #main} warns (as the webhook server does for its pair). */
  static final Duration CA_WARNING = Duration.ofDays(30);

  /**
   * A warning when the CA in {@code caCrt} ends within {@link #CA_WARNING} of {@code now} (the
   * serving certificates it issues end with it; fresh eyes: make run started with a CA 4 minutes
   * from its end and said nothing), empty otherwise.
   */
  static java.util.Optional<String> expiringCa(CertificateAuthority ca, Path caCrt, Instant now) {
    Instant end = ca.certificate().getNotAfter().toInstant();
    if (end.isAfter(now.plus(CA_WARNING))) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(
        "GenerateCerts: warning: the CA "
            + caCrt
            + " expires at "
            + end
            + " (in "
            + dev.ironcore.maintenance.process.DurationFlag.days(Duration.between(now, end))
            + "), and with it every serving certificate it issues: delete it and its ca.key"
            + " for a new CA (make run then installs the new ca.crt itself; a cluster's caBundles"
            + " need it), or rotate a cluster's with make rotate-certs");
  }

  /**
   * {@code validity}, shortened to end a minute before the CA does: a serving certificate never
   * outlives its CA (kube-apiserver would refuse it from then on).
   *
   * @throws IllegalStateException when the CA expires within that minute or has expired (nothing is
   *     written)
   */
  static Duration withinCa(Duration validity, CertificateAuthority ca, Path caCrt, Instant now) {
    Instant caStart = ca.certificate().getNotBefore().toInstant();
    if (caStart.isAfter(now)) {
      // fresh eyes: make run started everything, then its webhook server failed its health check
      throw new IllegalStateException(
          caCrt
              + " is not valid before "
              + caStart
              + ": delete it and its ca.key for a new CA (make run then installs the new ca.crt"
              + " itself), or wait until then");
    }
    Instant caEnd = ca.certificate().getNotAfter().toInstant();
    Duration room = Duration.between(now, caEnd.minus(Duration.ofMinutes(1)));
    if (room.isNegative() || room.isZero()) {
      throw new IllegalStateException(
          caCrt
              + (caEnd.isAfter(now) ? " expires at " : " expired at ")
              + caEnd
              + ": delete it and its ca.key for a new CA (make run then installs the new ca.crt"
              + " itself; a cluster's caBundles need it), or rotate a cluster's with make"
              + " rotate-certs");
    }
    return validity.compareTo(room) > 0 ? room : validity;
  }

  /** The DNS SANs of a service serving certificate, in the order written. */
  public static List<String> servingDnsNames(String service, String namespace) {
    return List.of(
        service,
        service + "." + namespace,
        service + "." + namespace + ".svc",
        service + "." + namespace + ".svc.cluster.local",
        "localhost");
  }

  private static final class Options {
    Path out;
    String service;
    String namespace;
    long validityDays = 365;

    static Options parse(String[] args) {
      Options o = new Options();
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        String v;
        int eq = a.indexOf('=');
        if (eq > 0) {
          v = a.substring(eq + 1);
          a = a.substring(0, eq);
        } else {
          if (i + 1 >= args.length) {
            throw new IllegalArgumentException("missing value for " + a);
          }
          v = args[++i];
        }
        switch (a) {
          case "--out" -> o.out = Path.of(v);
          case "--service" -> o.service = v;
          case "--namespace" -> o.namespace = v;
          case "--validity-days" -> o.validityDays = days(v);
          default -> throw new IllegalArgumentException("unknown flag " + a);
        }
      }
      if (o.out == null || o.service == null || o.namespace == null) {
        throw new IllegalArgumentException("--out, --service and --namespace are required");
      }
      return o;
    }

    /** 100 years: far beyond any use, far inside X.509's dates (up to the year 9999). */
    static final long MAX_DAYS = 36_500;

    /** A whole number of days, from 1 to {@link #MAX_DAYS}. */
    private static long days(String v) {
      long days;
      try {
        days = Long.parseLong(v.strip());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "--validity-days must be a whole number of days, got \"" + v + "\"");
      }
      if (days < 1 || days > MAX_DAYS) {
        throw new IllegalArgumentException(
            "--validity-days must be from 1 to " + MAX_DAYS + " (100 years), got " + days);
      }
      return days;
    }
  }
}
