package dev.ironcore.maintenance.certs.install;

import dev.ironcore.maintenance.api.client.KubeconfigContext;
import dev.ironcore.maintenance.api.validation.LabelSyntax;
import dev.ironcore.maintenance.certs.GenerateCerts;
import dev.ironcore.maintenance.certs.KeyAlgorithm;
import dev.ironcore.maintenance.process.Cli;
import dev.ironcore.maintenance.process.DurationFlag;
import dev.ironcore.maintenance.process.FlagRange;
import dev.ironcore.maintenance.process.KubeconfigEnv;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code make certs} and {@code make rotate-certs}: issue, reuse or rotate the webhook server's CA
 * and serving certificate and install them into a cluster (see {@link CertificateInstall}). Exit
 * code 0 when done (or up to date, or a dry run), 1 on refused input or a failure (one line on
 * stderr, starting with {@code certs:}), 2 on bad flags.
 */
@Command(
    name = "certs",
    mixinStandardHelpOptions = true,
    versionProvider = dev.ironcore.maintenance.process.VersionInfo.Provider.class,
    description =
        "Issues or reuses (default) or rotates (--rotate) the webhook CA and serving certificate,"
            + " writes the serving pair and every caBundle.")
public final class CertsMain implements Callable<Integer> {

  @Option(names = "--rotate", description = "Rotate to a new CA and serving pair, with overlap.")
  boolean rotate;

  @Option(
      names = "--dry-run",
      description = "Print the plan, change nothing (also DRY_RUN=true in the environment).")
  boolean dryRun;

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description =
          "Kubeconfig file (default: KUBECONFIG, ~/.kube/config or in-cluster); repeat it for"
              + " an install spread over several clusters (e.g. CAPI and IronCore API): their"
              + " caBundles change in lockstep, the Secret is written to each.")
  List<Path> kubeconfigs;

  @Option(
      names = "--namespace",
      paramLabel = "NAMESPACE",
      defaultValue = "ironcore-maintenance-system",
      description = "Namespace of the Service and Secret (default ${DEFAULT-VALUE}).")
  String namespace;

  @Option(
      names = "--service",
      paramLabel = "NAME",
      defaultValue = "ironcore-maintenance-webhook",
      description =
          "Service of the webhook server, for the default SANs (default ${DEFAULT-VALUE}).")
  String service;

  @Option(
      names = "--secret",
      paramLabel = "NAME",
      defaultValue = "ironcore-maintenance-webhook-tls",
      description = "kubernetes.io/tls Secret the server mounts (default ${DEFAULT-VALUE}).")
  String secret;

  @Option(
      names = "--webhook-configuration",
      paramLabel = "NAME",
      defaultValue = "ironcore-maintenance",
      description =
          "Name of the Mutating- and ValidatingWebhookConfiguration (default ${DEFAULT-VALUE}).")
  String webhookConfiguration;

  @Option(
      names = "--crds",
      paramLabel = "CRD",
      split = ",",
      defaultValue = "machines.compute.ironcore.dev,machinepools.compute.ironcore.dev",
      description =
          "CRDs whose webhook conversion caBundle is set, comma-separated; empty for none"
              + " (default ${DEFAULT-VALUE}).")
  List<String> crds;

  @Option(
      names = "--ca-dir",
      paramLabel = "DIR",
      required = true,
      description = "Directory of ca.crt/ca.key (and ca-next.* during a rotation).")
  Path caDir;

  @Option(
      names = "--serving-files",
      paramLabel = "DIR",
      description =
          "Write the serving pair as tls.crt/tls.key into this directory (make run) instead of"
              + " the Secret.")
  Path servingFiles;

  @Option(
      names = "--san",
      paramLabel = "SAN",
      description =
          "Subject alternative name (DNS name or IP), repeatable; replaces the default <svc>,"
              + " <svc>.<ns>, <svc>.<ns>.svc, <svc>.<ns>.svc.cluster.local, localhost, 127.0.0.1.")
  List<String> sans;

  @Option(
      names = "--key-algorithm",
      paramLabel = "ALGORITHM",
      converter = KeyAlgorithmConverter.class,
      description =
          "ecdsa (P-256) or rsa (2048) for new keys; a serving key of the other type is"
              + " re-issued. Default: keep the stored serving key's type, ecdsa for a new CA or"
              + " when none is stored.")
  KeyAlgorithm keyAlgorithm;

  @Option(
      names = "--validity",
      paramLabel = "DURATION",
      converter = DurationFlag.Converter.class,
      description =
          "Lifetime of a new serving certificate, e.g. 365d, 12h (default 365d, or until its CA"
              + " expires when that is sooner); never past its CA.")
  Duration validity;

  @Option(
      names = "--ca-validity",
      paramLabel = "DURATION",
      defaultValue = "3650d",
      converter = DurationFlag.Converter.class,
      description = "Lifetime of a new CA (default ${DEFAULT-VALUE}).")
  Duration caValidity;

  @Option(
      names = "--wait-timeout",
      paramLabel = "DURATION",
      defaultValue = "300s",
      converter = DurationFlag.Converter.class,
      description =
          "How long to wait for the servers to present a new pair, at least 10s (default"
              + " ${DEFAULT-VALUE}).")
  Duration waitTimeout;

  private final PrintStream out;
  private final PrintStream err;
  private final Map<String, String> env;

  /** Printing to System.out and System.err, reading System.getenv(). */
  public CertsMain() {
    this(System.out, System.err, System.getenv());
  }

  CertsMain(PrintStream out, PrintStream err, Map<String, String> env) {
    this.out = out;
    this.err = err;
    this.env = env;
  }

  /**
   * @param args see {@code --help}
   */
  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs the command as {@link #main} would, without exiting.
   *
   * @return the exit code
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    return run(args, out, err, System.getenv());
  }

  /** As {@link #run(String[], PrintStream, PrintStream)} with {@code env} as the environment. */
  static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
    CommandLine cl = Cli.of(new CertsMain(out, err, env));
    cl.setOut(new java.io.PrintWriter(out, true, StandardCharsets.UTF_8));
    cl.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));
    return cl.execute(args);
  }

  @Override
  public Integer call() {
    checkNames();
    SanList names = sanList();
    boolean dry = checkFlags() || dryRun;
    List<String> crdNames =
        crds == null
            ? List.of()
            : crds.stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
    List<KubernetesClient> clients = new ArrayList<>();
    CertificateInstall install = null;
    CaDirLock lock = null;
    try {
      for (Path kubeconfig :
          kubeconfigs == null || kubeconfigs.isEmpty() ? singleDefault() : kubeconfigs) {
        clients.add(client(kubeconfig));
      }
      if (clients.size() > 1) {
        // before the CA directory is created or locked: a refusal leaves nothing behind
        ClusterIdentity.sameCluster(clients, kubeconfigs)
            .ifPresent(
                reason -> {
                  throw new Refusal(reason);
                });
      }
      // a cluster install's CA directory belongs to the clusters it was made for (make run's
      // cluster is new each time: its CA directory is its own)
      List<String> uids = servingFiles != null ? List.of() : clusterUids(clients);
      if (!uids.isEmpty()) {
        var other = CaDirCluster.mismatch(caDir, uids);
        if (other.isPresent()) {
          throw new Refusal(other.get());
        }
      }
      lock = dry ? null : CaDirLock.acquire(caDir);
      List<ServingPairStore> secrets = new ArrayList<>();
      clients.forEach(c -> secrets.add(new SecretPairStore(c, namespace, secret)));
      ServingPairStore store =
          servingFiles != null
              ? new FilePairStore(servingFiles)
              : secrets.size() == 1 ? secrets.get(0) : new MultiPairStore(secrets);
      var settings =
          new CertificateInstall.Settings(
              rotate ? CertificateInstall.Mode.ROTATE : CertificateInstall.Mode.ENSURE,
              dry,
              service,
              names.dnsNames(),
              names.ipAddresses(),
              keyAlgorithm,
              validity,
              caValidity,
              waitTimeout);
      install =
          new CertificateInstall(
              settings,
              new CaFiles(caDir),
              store,
              servingFiles != null
                  ? new ClusterTrust(clients, webhookConfiguration, crdNames).ofLocalRun()
                  : new ClusterTrust(clients, webhookConfiguration, crdNames),
              new ServerProbe(clients),
              out,
              Clock.systemUTC());
      install.run();
      if (!dry) {
        CaDirCluster.record(caDir, uids);
      }
      unusedLifetimes(install).forEach(n -> out.println("note: " + n));
      return 0;
    } catch (Refusal e) {
      err.println("certs: " + e.getMessage() + " (nothing changed)");
      return 1;
    } catch (ClusterFailure e) {
      err.println(
          "certs: "
              + e.getMessage()
              + (e.noAnswer()
                  ? servingFiles != null
                      ? "; is the cluster (make run) up?"
                      : "; is the cluster up and KUBECONFIG right?"
                  : "")
              + (install != null && install.changing() ? "; run again to continue" : ""));
      return 1;
    } catch (KubernetesClientException e) {
      err.println("certs: cluster: " + CaFiles.oneLine(e.getMessage()));
      return 1;
    } catch (RuntimeException | IOException e) {
      err.println("certs: " + CaFiles.oneLine(e.getMessage()) + "; run again to continue");
      return 1;
    } finally {
      clients.forEach(KubernetesClient::close);
      if (lock != null) {
        lock.close();
      }
    }
  }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** The {@code kube-system} uid of every cluster; empty when one of them cannot be read. */
  private static List<String> clusterUids(List<KubernetesClient> clients) {
    List<String> uids = new ArrayList<>();
    for (KubernetesClient c : clients) {
      var uid = ClusterIdentity.uid(c);
      if (uid.isEmpty()) {
        return List.of();
      }
      uids.add(uid.get());
    }
    return uids;
  }

  /**
   * What a finished run did not use of the lifetimes asked for: {@code VALIDITY} when no serving
   * certificate was issued, {@code CA_VALIDITY} (when given) when no CA was made. Fresh eyes:
   * {@code VALIDITY=30d make certs} on a current install said "up to date" and nothing more.
   */
  private List<String> unusedLifetimes(CertificateInstall install) {
    List<String> notes = new ArrayList<>();
    if (validity != null && !install.issuesServing()) {
      notes.add(
          "VALIDITY (--validity) applies to a new serving certificate, and none was issued;"
              + " make rotate-certs issues one");
    }
    if (spec.commandLine().getParseResult().hasMatchedOption("--ca-validity")
        && !install.createsCa()) {
      notes.add(
          "CA_VALIDITY (--ca-validity) applies to a new CA, and none was made;"
              + " make rotate-certs makes one");
    }
    return notes;
  }

  /**
   * Shortest {@code WAIT_TIMEOUT}: the webhook server re-reads its pair every 10 s, so a shorter
   * wait for a new one would time out about as often as not (fresh eyes: {@code WAIT_TIMEOUT=5s}
   * was accepted).
   */
  static final Duration MIN_WAIT_TIMEOUT = Duration.ofSeconds(10);

  /** Shortest lifetime of a certificate this tool issues (cert-manager's minimum, too). */
  static final Duration MIN_VALIDITY = Duration.ofHours(1);

  /**
   * Shortest lifetime of a CA this tool issues: room for one serving certificate and the margin.
   */
  static final Duration MIN_CA_VALIDITY = Duration.ofHours(2);

  /**
   * Refuses a lifetime under {@code min} ({@link #MIN_VALIDITY}, {@link #MIN_CA_VALIDITY}): such a
   * certificate expires during a rotation (which waits up to {@code WAIT_TIMEOUT} for the servers)
   * or soon after it, and the webhooks fail closed from then on (fresh eyes: {@code VALIDITY=5s}
   * rotated "successfully" to a certificate that had expired when the run ended; a typo of {@code
   * 30m} for {@code 30d} would do the same half an hour later).
   */
  private void atLeast(String flag, Duration value, Duration min, String why) {
    if (value.compareTo(min) < 0) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          flag
              + " must be at least "
              + Lifetime.flagValue(min)
              + " (a certificate expiring during or right after the rotation takes the webhooks"
              + " down"
              + why
              + "), got "
              + dev.ironcore.maintenance.process.DurationFlag.format(value));
    }
  }

  /**
   * Durations that must be positive; kubeconfig files (flag or KUBECONFIG) that must exist, with a
   * current context that can be used ({@link KubeconfigContext}); {@code DRY_RUN} that must be
   * empty, true or false.
   *
   * @return whether {@code DRY_RUN} asks for a dry run
   */
  private boolean checkFlags() {
    if (validity != null) {
      FlagRange.positive(spec, "--validity (VALIDITY)", validity);
      atLeast("--validity (VALIDITY)", validity, MIN_VALIDITY, "");
    }
    FlagRange.positive(spec, "--ca-validity (CA_VALIDITY)", caValidity);
    atLeast(
        "--ca-validity (CA_VALIDITY)",
        caValidity,
        MIN_CA_VALIDITY,
        "; a CA outlives the serving certificates it issues, at least 1h each");
    FlagRange.positive(spec, "--wait-timeout (WAIT_TIMEOUT)", waitTimeout);
    if (waitTimeout.compareTo(MIN_WAIT_TIMEOUT) < 0) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--wait-timeout (WAIT_TIMEOUT) must be at least 10s (the webhook server re-reads its"
              + " pair every 10 s; in a cluster the kubelet first refreshes the mounted Secret,"
              + " within about a minute), got "
              + dev.ironcore.maintenance.process.DurationFlag.format(waitTimeout));
    }
    boolean dryRunEnv;
    try {
      dryRunEnv = EnvBoolean.parse("DRY_RUN", env.get("DRY_RUN"));
      if (kubeconfigs == null || kubeconfigs.isEmpty()) {
        KubeconfigEnv.check(env);
        KubeconfigContext.checkEnv(env);
        KubeconfigContext.noCluster(env)
            .ifPresent(
                reason -> {
                  throw new IllegalArgumentException(reason);
                });
      }
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    for (Path kubeconfig : kubeconfigs == null ? List.<Path>of() : kubeconfigs) {
      if (!Files.isRegularFile(kubeconfig) || !Files.isReadable(kubeconfig)) {
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            "--kubeconfig: no readable kubeconfig file at "
                + kubeconfig
                + (Files.exists(kubeconfig) ? "" : " (it does not exist)"));
      }
      try {
        KubeconfigContext.check(kubeconfig);
        // what fabric8's parser refuses too, as a flag error like the check's (review, session 41)
        KubeconfigContext.load(kubeconfig);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--kubeconfig: " + e.getMessage());
      }
    }
    sameApiServer(kubeconfigs == null ? List.of() : kubeconfigs)
        .ifPresent(
            reason -> {
              throw new CommandLine.ParameterException(spec.commandLine(), reason);
            });
    return dryRunEnv;
  }

  /**
   * Why two of the {@code --kubeconfig} files may not be given together: both reach the same API
   * server (their current contexts' {@code server} URLs, compared as fabric8 normalises them), so
   * one cluster would be asked and written twice (the Secret, the webhook configurations, the CRDs'
   * caBundles) as if it were two. Empty when every file names its own API server.
   */
  static Optional<String> sameApiServer(List<Path> kubeconfigs) {
    Map<String, Path> byServer = new LinkedHashMap<>();
    for (Path kubeconfig : kubeconfigs) {
      String server = config(kubeconfig).getMasterUrl();
      Path first = byServer.putIfAbsent(server.toLowerCase(Locale.ROOT), kubeconfig);
      if (first != null) {
        return Optional.of(
            "--kubeconfig: "
                + first
                + " and "
                + kubeconfig
                + " both reach the API server "
                + server
                + ": give one kubeconfig per cluster (make certs: leave IRONCORE_KUBECONFIG out"
                + " when the IronCore API is served by the cluster of KUBECONFIG)");
      }
    }
    return Optional.empty();
  }

  /**
   * The names of the objects this run reads and writes, each by Kubernetes' rule for its kind
   * ({@code ValidateNamespaceName}: an RFC 1123 label; {@code ValidateServiceName}: an RFC 1035
   * label; a Secret's, a webhook configuration's and a CRD's name: an RFC 1123 subdomain), before
   * anything changes (fresh eyes, session 51: a Secret name the API server refuses was found at
   * step 3 of 4, after the CA was saved and every caBundle trusted it; a bad Service or namespace
   * name was blamed on {@code --san}, which builds its default names from them).
   *
   * @throws CommandLine.ParameterException naming the flag, its make variable, the value and why
   */
  private void checkNames() {
    name("--namespace (CERTS_NAMESPACE)", namespace, LabelSyntax.dns1123LabelErrors(namespace));
    name("--service (CERTS_SERVICE)", service, LabelSyntax.dns1035LabelErrors(service));
    name("--secret (CERTS_SECRET)", secret, LabelSyntax.dns1123SubdomainErrors(secret));
    name(
        "--webhook-configuration (WEBHOOK_CONFIGURATION)",
        webhookConfiguration,
        LabelSyntax.dns1123SubdomainErrors(webhookConfiguration));
    for (String crd : crds == null ? List.<String>of() : crds) {
      String trimmed = crd.trim();
      if (!trimmed.isEmpty()) {
        name("--crds (CRDS)", trimmed, LabelSyntax.dns1123SubdomainErrors(trimmed));
      }
    }
  }

  private void name(String flag, String value, List<String> errors) {
    if (!errors.isEmpty()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          flag + ": '" + value + "' is not a valid name: " + String.join("; ", errors));
    }
  }

  /** The checked {@code --san} values, or the defaults when none is given. */
  private SanList sanList() {
    try {
      return SanList.parse(sans == null || sans.isEmpty() ? defaultSans() : sans);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  /** One null entry: the client's own discovery (KUBECONFIG, ~/.kube/config, in-cluster). */
  private static List<Path> singleDefault() {
    List<Path> one = new ArrayList<>();
    one.add(null);
    return one;
  }

  private List<String> defaultSans() {
    List<String> out = new ArrayList<>(GenerateCerts.servingDnsNames(service, namespace));
    out.add("127.0.0.1");
    return out;
  }

  /**
   * How long to wait for a TCP connection to the API server: this one-shot tool fails fast (with a
   * line naming the request and the cause) rather than retrying for half a minute as fabric8's
   * defaults do (10 retries with back-off).
   */
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  /** Retries of a request that got no answer (or a 5xx): one, then the failure is reported. */
  static final int REQUEST_RETRIES = 1;

  /**
   * A client of {@code kubeconfig} (null: KUBECONFIG, ~/.kube/config, in-cluster) that fails fast.
   * Relative file paths in the kubeconfig ({@code certificate-authority}, {@code
   * client-certificate}, {@code client-key}) are resolved against the file's directory, as kubectl
   * does, not against the working directory.
   */
  static KubernetesClient client(Path kubeconfig) throws IOException {
    try {
      Config config =
          kubeconfig == null
              ? KubeconfigContext.autoConfigure(System.getenv())
              : config(kubeconfig);
      config.setConnectionTimeout((int) CONNECT_TIMEOUT.toMillis());
      config.setRequestRetryBackoffLimit(REQUEST_RETRIES);
      // fabric8 reads the certificate files here: "cluster: An error has occurred." said nothing
      return KubeconfigContext.build(
          kubeconfig == null
              ? KubeconfigContext.source(System.getenv())
              : "--kubeconfig: kubeconfig " + kubeconfig,
          () -> dev.ironcore.maintenance.api.json.JsonMappers.client(config));
    } catch (KubeconfigContext.Unloadable e) {
      throw new Refusal(e.getMessage());
    }
  }

  /**
   * The fabric8 configuration of one kubeconfig file, relative paths in it resolved against its
   * directory.
   */
  static Config config(Path kubeconfig) {
    try {
      return KubeconfigContext.load(kubeconfig);
    } catch (KubeconfigContext.Unloadable e) {
      throw new Refusal(e.getMessage());
    }
  }

  static final class KeyAlgorithmConverter implements CommandLine.ITypeConverter<KeyAlgorithm> {
    @Override
    public KeyAlgorithm convert(String value) {
      try {
        return KeyAlgorithm.parse(value);
      } catch (IllegalArgumentException e) {
        // as the range checks name VALIDITY: the variable make users set (fresh eyes, session 46)
        throw new CommandLine.TypeConversionException(e.getMessage() + " (KEY_ALGORITHM in make)");
      }
    }
  }
}
