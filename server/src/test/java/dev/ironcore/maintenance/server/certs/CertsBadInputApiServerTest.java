package dev.ironcore.maintenance.server.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ironcore.maintenance.certs.CertificateAuthority;
import dev.ironcore.maintenance.certs.Renewal;
import dev.ironcore.maintenance.certs.ServingPair;
import dev.ironcore.maintenance.testkit.FreePorts;
import dev.ironcore.maintenance.testkit.TestCluster;
import dev.ironcore.maintenance.testkit.TestClusters;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code make certs} against a cluster install (the {@code kubernetes.io/tls} Secret) refuses bad
 * input: exit code 1, one line on stderr, and the Secret, every caBundle and the CA files exactly
 * as before (compared byte for byte).
 */
class CertsBadInputApiServerTest {
  @TempDir static Path tmp;

  static TestCluster cp;
  static CertsWorld world;
  static String namespace;
  static Path caDir;

  @BeforeAll
  static void installWithSecret() {
    cp = TestClusters.shared();
    String id = "certs-bad-" + UUID.randomUUID().toString().substring(0, 6);
    // nothing carries the objectSelector label and nothing listens there: never called
    world = CertsWorld.install(cp, id, "https://127.0.0.1:" + FreePorts.pick(1).get(0), false);
    namespace = id;
    cp.kubectl("create", "namespace", namespace).orThrow();
    caDir = tmp.resolve("ca");
    CertsWorld.Run first = CertsWorld.run(args());
    assertThat(first.exitCode()).as(first.err()).isZero();
    Secret s = secret("webhook-tls");
    assertThat(s.getType()).isEqualTo("kubernetes.io/tls");
    ServingPair pair = ServingPair.parse(decoded(s, "tls.crt"), decoded(s, "tls.key"));
    assertThat(pair.covers(List.of("svc", "svc." + namespace + ".svc", "127.0.0.1"))).isTrue();
  }

  static List<String> args(String... extra) {
    List<String> a = new ArrayList<>(world.flags());
    a.add("--namespace=" + namespace);
    a.add("--service=svc");
    a.add("--secret=webhook-tls");
    a.add("--ca-dir=" + caDir);
    a.addAll(List.of(extra));
    return a;
  }

  @Test
  void emptyCaIsRefused() throws IOException {
    refusedWith(() -> Files.writeString(caDir.resolve("ca.crt"), ""), "ca.crt", args());
  }

  @Test
  void garbageCaIsRefused() throws IOException {
    refusedWith(
        () -> Files.writeString(caDir.resolve("ca.crt"), "-----BEGIN CERTIFICATE-----\nnope\n"),
        "ca.crt",
        args());
  }

  @Test
  void expiredCaIsRefused() throws IOException {
    CertificateAuthority expired =
        CertificateAuthority.generate("expired-ca", Duration.ofSeconds(1));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> Renewal.expired(expired.certificate(), Instant.now()));
    refusedWith(
        () -> expired.writeTo(caDir.resolve("ca.crt"), caDir.resolve("ca.key")), "expired", args());
  }

  @Test
  void caKeyOfAnotherCaIsRefused() throws IOException {
    CertificateAuthority other = CertificateAuthority.generate("other", Duration.ofDays(1));
    refusedWith(
        () -> Files.writeString(caDir.resolve("ca.key"), other.privateKeyPem()),
        "is not the private key",
        args());
  }

  @Test
  void missingWebhookConfigurationIsRefused() throws IOException {
    refusedWith(() -> {}, "MutatingWebhookConfiguration", withFlag("--webhook-configuration=nope"));
  }

  @Test
  void missingCrdIsRefused() throws IOException {
    refusedWith(
        () -> {},
        "CustomResourceDefinition nopes.example.dev not found",
        withFlag("--crds=" + world.conversionCrd() + ",nopes.example.dev"));
  }

  /**
   * Two kubeconfigs that name one API server differently ({@code 127.0.0.1} and {@code localhost}):
   * the URL comparison cannot tell, the cluster's identity (namespace {@code kube-system}'s uid)
   * can; the Secret and caBundles were written twice as if they were two clusters.
   */
  @Test
  void twoKubeconfigsOfOneClusterUnderDifferentNamesAreRefused() throws IOException {
    String config = Files.readString(cp.kubeconfig());
    assertThat(config).contains("https://127.0.0.1:");
    Path other =
        Files.writeString(
            tmp.resolve("kubeconfig-localhost"),
            config.replace("https://127.0.0.1:", "https://localhost:"));
    List<String> a = new ArrayList<>(args());
    a.add("--kubeconfig=" + other);
    refusedWith(
        () -> {},
        ") reach one cluster (namespace kube-system has uid "
            + cp.client().namespaces().withName("kube-system").get().getMetadata().getUid()
            + " in both): give one kubeconfig per cluster",
        a);
  }

  @Test
  void missingNamespaceIsRefused() throws IOException {
    refusedWith(() -> {}, "namespace nope-ns not found", withFlag("--namespace=nope-ns"));
  }

  @Test
  void secretOfTheWrongTypeIsRefused() throws IOException {
    cp.client()
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withNamespace(namespace)
                .withName("opaque")
                .endMetadata()
                .withType("Opaque")
                .withStringData(Map.of("tls.crt", "x"))
                .build())
        .serverSideApply();
    refusedWith(() -> {}, "not kubernetes.io/tls", withFlag("--secret=opaque"));
  }

  @Test
  void secretWithAMismatchedPairIsRefused() throws IOException {
    CertificateAuthority other = CertificateAuthority.generate("other", Duration.ofDays(1));
    Secret s = secret("webhook-tls");
    String otherKey =
        other.issueServing("x", List.of("svc"), List.of(), Duration.ofDays(1)).privateKeyPem();
    cp.client()
        .resource(
            new SecretBuilder(s)
                .addToData(
                    "tls.key",
                    Base64.getEncoder().encodeToString(otherKey.getBytes(StandardCharsets.UTF_8)))
                .build())
        .update();
    refusedWith(() -> {}, "unusable serving pair in Secret ", args());
    refusedWith(() -> {}, "tls.key is not the private key of tls.crt", args());
    Secret broken = secret("webhook-tls");
    cp.client().resource(new SecretBuilder(broken).withData(s.getData()).build()).update();
  }

  private static List<String> withFlag(String flag) {
    List<String> a = new ArrayList<>(args());
    a.removeIf(x -> x.startsWith(flag.substring(0, flag.indexOf('=') + 1)));
    a.add(flag);
    return a;
  }

  /**
   * Fresh eyes (session 37): {@code VALIDITY=30d make certs} on a current install said "up to date"
   * and nothing more; the lifetimes it did not use are now named, and nothing changes.
   */
  @Test
  void lifetimesAskedForButNotUsedAreNamed() throws IOException {
    Map<String, Object> before = state();
    CertsWorld.Run run = CertsWorld.run(args("--validity=30d", "--ca-validity=730d"));
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("up to date")
        .contains(
            "note: VALIDITY (--validity) applies to a new serving certificate, and none was"
                + " issued; make rotate-certs issues one")
        .contains(
            "note: CA_VALIDITY (--ca-validity) applies to a new CA, and none was made; make"
                + " rotate-certs makes one");
    assertThat(state()).isEqualTo(before);
    CertsWorld.Run plain = CertsWorld.run(args());
    assertThat(plain.out()).contains("up to date").doesNotContain("VALIDITY");
  }

  interface Change {
    void apply() throws IOException;
  }

  /** Applies {@code change} to the inputs, runs, checks the refusal and compares, restores. */
  private static synchronized void refusedWith(Change change, String message, List<String> args)
      throws IOException {
    Map<String, String> files = caFiles();
    change.apply();
    Map<String, Object> before = state();
    CertsWorld.Run run = CertsWorld.run(args);
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err().strip()).startsWith("certs: ").contains(message).doesNotContain("\n");
    assertThat(state()).isEqualTo(before);
    // the next test starts from the good CA again
    for (var e : files.entrySet()) {
      Files.writeString(caDir.resolve(e.getKey()), e.getValue());
    }
  }

  /** The Secrets of the namespace, every caBundle and the CA files. */
  private static Map<String, Object> state() throws IOException {
    Map<String, Object> out = new TreeMap<>();
    cp.client()
        .secrets()
        .inNamespace(namespace)
        .list()
        .getItems()
        .forEach(
            s ->
                out.put(
                    "secret/" + s.getMetadata().getName(),
                    s.getType()
                        + " "
                        + new TreeMap<>(s.getData())
                        + " rv "
                        + s.getMetadata().getResourceVersion()));
    out.putAll(world.caBundles());
    out.putAll(caFiles());
    return out;
  }

  private static Map<String, String> caFiles() throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> files = Files.list(caDir)) {
      for (Path f : files.toList()) {
        out.put(f.getFileName().toString(), Files.readString(f));
      }
    }
    return out;
  }

  private static Secret secret(String name) {
    return cp.client().secrets().inNamespace(namespace).withName(name).get();
  }

  private static String decoded(Secret s, String key) {
    return new String(Base64.getDecoder().decode(s.getData().get(key)), StandardCharsets.UTF_8);
  }
}
