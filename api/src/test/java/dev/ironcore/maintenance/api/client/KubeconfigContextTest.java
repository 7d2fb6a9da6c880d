package dev.ironcore.maintenance.api.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeconfigContextTest {
  @TempDir Path dir;

  private Path file(String name, String contexts, String current) throws Exception {
    return Files.writeString(
        dir.resolve(name),
        "apiVersion: v1\nkind: Config\n"
            + "clusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:6443'}\n"
            + "users:\n- name: u\n  user: {token: t}\n"
            + "contexts:\n"
            + contexts
            + (current == null ? "" : "current-context: " + current + "\n"));
  }

  /**
   * No KUBECONFIG, no ~/.kube/config and not in a pod: fabric8 would try
   * https://kubernetes.default.svc/; said in one line instead. Any one of them is enough.
   */
  @Test
  void noClusterIsSaidWhenNothingNamesOne() throws Exception {
    Path home = Files.createDirectories(dir.resolve("home"));
    assertThat(KubeconfigContext.noCluster(Map.of("HOME", home.toString())))
        .contains(
            "no cluster to talk to: KUBECONFIG is unset, "
                + home.resolve(".kube/config")
                + " does not exist and this is not a pod (KUBERNETES_SERVICE_HOST and"
                + " KUBERNETES_SERVICE_PORT are not both set); set KUBECONFIG");
    assertThat(
            KubeconfigContext.noCluster(
                Map.of("HOME", home.toString(), "KUBERNETES_SERVICE_HOST", "10.0.0.1")))
        .as("a host without a port is not a pod, as for client-go")
        .isPresent();
    assertThat(
            KubeconfigContext.noCluster(
                Map.of(
                    "HOME",
                    home.toString(),
                    "KUBERNETES_SERVICE_HOST",
                    "10.0.0.1",
                    "KUBERNETES_SERVICE_PORT",
                    "443")))
        .isEmpty();
    assertThat(KubeconfigContext.noCluster(Map.of("HOME", home.toString(), "KUBECONFIG", "/x")))
        .isEmpty();
    Path config = Files.createDirectories(home.resolve(".kube")).resolve("config");
    Files.writeString(config, "");
    assertThat(KubeconfigContext.noCluster(Map.of("HOME", home.toString())))
        .get()
        .asString()
        .contains(config + " is empty");
    Files.writeString(config, " \n\n");
    assertThat(KubeconfigContext.noCluster(Map.of("HOME", home.toString())))
        .as("only whitespace: fabric8 failed with a NullPointerException on it")
        .get()
        .asString()
        .contains(config + " is empty");
    Files.delete(config);
    Files.createDirectories(config);
    assertThat(KubeconfigContext.noCluster(Map.of("HOME", home.toString())))
        .get()
        .asString()
        .contains(config + " is not a file");
    Files.delete(config);
    Files.writeString(config, "apiVersion: v1\n");
    assertThat(KubeconfigContext.noCluster(Map.of("HOME", home.toString()))).isEmpty();
  }

  @Test
  void aUsableCurrentContextPasses() throws Exception {
    Path ok = file("ok", "- name: x\n  context: {cluster: c, user: u}\n", "x");
    assertThatCode(() -> KubeconfigContext.check(ok)).doesNotThrowAnyException();
    Path anonymous = file("anonymous", "- name: x\n  context: {cluster: c}\n", "x");
    assertThatCode(() -> KubeconfigContext.check(anonymous))
        .as("a context without a user: no credentials, as kubectl allows")
        .doesNotThrowAnyException();
  }

  @Test
  void aCurrentContextThatIsNotInTheFileIsNamed() throws Exception {
    Path f = file("kc", "- name: x\n  context: {cluster: c, user: u}\n", "foo");
    assertThatThrownBy(() -> KubeconfigContext.check(f))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("kubeconfig " + f + ": current-context \"foo\" is not a context of the file");
  }

  @Test
  void noCurrentContextIsRefused() throws Exception {
    Path f = file("kc", "- name: x\n  context: {cluster: c, user: u}\n", null);
    assertThatThrownBy(() -> KubeconfigContext.check(f))
        .hasMessage("kubeconfig " + f + ": no current-context is set");
  }

  @Test
  void aContextNamingAMissingClusterOrUserIsNamed() throws Exception {
    Path cluster = file("cluster", "- name: x\n  context: {cluster: gone, user: u}\n", "x");
    assertThatThrownBy(() -> KubeconfigContext.check(cluster))
        .hasMessage(
            "kubeconfig "
                + cluster
                + ": context \"x\" names cluster \"gone\", which is not in the file");
    Path user = file("user", "- name: x\n  context: {cluster: c, user: bob}\n", "x");
    assertThatThrownBy(() -> KubeconfigContext.check(user))
        .hasMessage(
            "kubeconfig " + user + ": context \"x\" names user \"bob\", which is not in the file");
    Path none = file("none", "- name: x\n  context: {user: u}\n", "x");
    assertThatThrownBy(() -> KubeconfigContext.check(none))
        .hasMessage("kubeconfig " + none + ": context \"x\" names no cluster");
  }

  /** kubectl's merge: the first file that sets a current-context chooses it. */
  @Test
  void aKubeconfigListIsMergedAsKubectlMergesIt() throws Exception {
    Path first = Files.writeString(dir.resolve("first"), "apiVersion: v1\ncurrent-context: y\n");
    Path second = file("second", "- name: y\n  context: {cluster: c, user: u}\n", "other");
    String both = first + java.io.File.pathSeparator + second;
    assertThatCode(() -> KubeconfigContext.checkEnv(Map.of("KUBECONFIG", both)))
        .as("the context, its cluster and user defined in the second file")
        .doesNotThrowAnyException();
    Path typo = Files.writeString(dir.resolve("typo"), "apiVersion: v1\ncurrent-context: z\n");
    String withTypo = typo + java.io.File.pathSeparator + second;
    assertThatThrownBy(() -> KubeconfigContext.checkEnv(Map.of("KUBECONFIG", withTypo)))
        .as("fabric8 would go on to the second file's current-context; kubectl refuses")
        .hasMessage(
            "KUBECONFIG=" + withTypo + ": current-context \"z\" is not a context of these files");
  }

  @Test
  void withoutKubeconfigTheHomeDirectorysConfigIsChecked() throws Exception {
    assertThatCode(() -> KubeconfigContext.checkEnv(Map.of("HOME", dir.toString())))
        .as("no ~/.kube/config: in-cluster")
        .doesNotThrowAnyException();
    Files.createDirectories(dir.resolve(".kube"));
    Path config = file(".kube/config", "- name: x\n  context: {cluster: c, user: u}\n", "foo");
    assertThatThrownBy(() -> KubeconfigContext.checkEnv(Map.of("HOME", dir.toString())))
        .hasMessage(
            "kubeconfig " + config + ": current-context \"foo\" is not a context of the file");
  }

  /**
   * Fresh eyes (session 40): KUBECONFIG naming a private key or a ServiceAccount token put up to
   * 256 characters of it into the log (fabric8's parser quotes the value it cannot map). Refused
   * here with the file, what is wrong and where, never the content.
   */
  @Test
  void whatIsNotAKubeconfigIsRefusedWithoutItsContent() throws Exception {
    String key =
        "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIMFpzk6ZetSECRETKEYMATERIAL\n-----END EC PRIVATE KEY-----\n";
    Path pem = Files.writeString(dir.resolve("tls.key"), key);
    assertThatThrownBy(() -> KubeconfigContext.checkEnv(Map.of("KUBECONFIG", pem.toString())))
        .hasMessage(
            "KUBECONFIG="
                + pem
                + ": the file is not a kubeconfig: it holds a text, not a mapping of clusters, contexts"
                + " and users (its content is not shown: it may be a credential)");
    Path token = Files.writeString(dir.resolve("token"), "eyJhbGciOiJSUzI1NiJ9.SIGNATURE-SECRET");
    Path good = file("good", "- name: x\n  context: {cluster: c}\n", "x");
    String list = good + java.io.File.pathSeparator + token;
    assertThatThrownBy(() -> KubeconfigContext.checkEnv(Map.of("KUBECONFIG", list)))
        .as("in a list, the file is named")
        .hasMessage(
            "KUBECONFIG="
                + list
                + ": "
                + token
                + " is not a kubeconfig: it holds a text, not a mapping of clusters, contexts"
                + " and users (its content is not shown: it may be a credential)");
    Path tokenAsUser =
        Files.writeString(
            dir.resolve("token-as-user"),
            Files.readString(good)
                .replace("user: {token: t}", "user: eyJhbGciOiJSUzI1NiJ9.SECRET"));
    assertThatThrownBy(() -> KubeconfigContext.check(tokenAsUser))
        .hasMessage(
            "kubeconfig "
                + tokenAsUser
                + ": the file is not a kubeconfig: users[0].user is a text, not a mapping (its content is"
                + " not shown: it may be a credential)");
    Path clustersText = Files.writeString(dir.resolve("clusters-text"), "clusters: secret\n");
    assertThatThrownBy(() -> KubeconfigContext.check(clustersText))
        .hasMessageContaining(": the file is not a kubeconfig: clusters is a text, not a list");
    Path garbage = Files.writeString(dir.resolve("garbage"), "token: abc\nnot: yaml: [\n");
    assertThatThrownBy(() -> KubeconfigContext.check(garbage))
        .hasMessage("kubeconfig " + garbage + ": the file is not YAML (line 2, column 10)");
    // fresh eyes, second round: strings where fabric8 reads a mapping, a list or a boolean
    java.util.Map<String, String> nested =
        java.util.Map.of(
            "user: {token: t}", "user: {exec: SECRETEXEC}",
            "user: {token: t}\n", "user: {auth-provider: {config: SECRETAP}}\n",
            "cluster: {server: 'https://127.0.0.1:6443'}",
                "cluster: {server: 'https://127.0.0.1:6443', insecure-skip-tls-verify: SECRETBOOL}",
            "kind: Config\n", "kind: Config\npreferences: SECRETPREF\n");
    java.util.List<String> expected =
        java.util.List.of(
            "users[0].user.exec is a text, not a mapping",
            "users[0].user.auth-provider.config is a text, not a mapping",
            "clusters[0].cluster.insecure-skip-tls-verify is a text, not true or false",
            "preferences is a text, not a mapping");
    java.util.List<String> seen = new java.util.ArrayList<>();
    int n = 0;
    for (var e : nested.entrySet()) {
      Path f =
          Files.writeString(
              dir.resolve("nested-" + n++),
              Files.readString(good).replace(e.getKey(), e.getValue()));
      assertThatThrownBy(() -> KubeconfigContext.check(f))
          .message()
          .doesNotContain("SECRET")
          .satisfies(m -> seen.add(m.substring(m.indexOf("kubeconfig: ") + 12, m.indexOf(" ("))));
    }
    assertThat(seen).containsExactlyInAnyOrderElementsOf(expected);
    Path ok =
        Files.writeString(
            dir.resolve("bools"),
            Files.readString(good)
                .replace(
                    "cluster: {server: 'https://127.0.0.1:6443'}",
                    "cluster: {server: 'https://127.0.0.1:6443', insecure-skip-tls-verify: true}")
                .replace(
                    "user: {token: t}",
                    "user: {exec: {command: x, args: [a], env: [{name: n, value: v}]}}"));
    assertThatCode(() -> KubeconfigContext.check(ok)).doesNotThrowAnyException();
    // quoted, as client-go refuses it: TLS verification must not be skipped here alone
    Path quoted =
        Files.writeString(
            dir.resolve("quoted-bool"),
            Files.readString(good)
                .replace(
                    "cluster: {server: 'https://127.0.0.1:6443'}",
                    "cluster: {server: 'https://127.0.0.1:6443', insecure-skip-tls-verify:"
                        + " \"true\"}"));
    assertThatThrownBy(() -> KubeconfigContext.check(quoted))
        .hasMessageContaining(
            ": clusters[0].cluster.insecure-skip-tls-verify is the text \"true\", not a boolean:"
                + " write it unquoted (kubectl refuses the quoted form too)");
    Path binary = Files.write(dir.resolve("binary"), new byte[] {'a', ':', ' ', (byte) 0xE9, '\n'});
    assertThatThrownBy(() -> KubeconfigContext.check(binary))
        .hasMessage("kubeconfig " + binary + ": the file is not UTF-8 text (a kubeconfig is YAML)");
    // fresh eyes, third round: the parser's own words quoted the file (an undefined alias, a
    // duplicate key that fabric8 refuses, an unknown escape)
    // (an undefined alias passes this check's parser; fabric8's refuses it: loadFailure below)
    Path duplicate =
        Files.writeString(
            dir.resolve("duplicate"),
            Files.readString(good)
                .replace("user: {token: t}", "user: {token: a, token: SECRETDUP}"));
    assertThatThrownBy(() -> KubeconfigContext.check(duplicate))
        .hasMessageStartingWith("kubeconfig " + duplicate + ": the file is not YAML (line ");
    Path escape = Files.writeString(dir.resolve("escape"), "token: \"\\qSECRET\"\n");
    assertThatThrownBy(() -> KubeconfigContext.check(escape))
        .hasMessageStartingWith("kubeconfig " + escape + ": the file is not YAML (line ");
    for (Path p :
        java.util.List.of(pem, token, tokenAsUser, clustersText, garbage, duplicate, escape)) {
      assertThatThrownBy(() -> KubeconfigContext.check(p))
          .message()
          .doesNotContain("SECRET")
          .doesNotContain("MHcC")
          .doesNotContain("abc");
    }
  }

  /** What fabric8's parser threw is described by place and kind, never by its message. */
  @Test
  void aLoadFailureNamesThePlaceNotTheValue() {
    record Shape(int port) {}
    Exception e =
        org.junit.jupiter.api.Assertions.assertThrows(
            Exception.class,
            () ->
                new com.fasterxml.jackson.databind.ObjectMapper(
                        new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
                    .readValue("port: SECRET\n", Shape.class));
    assertThat(e.getMessage()).contains("SECRET");
    assertThat(KubeconfigContext.loadFailure(new RuntimeException("An error has occurred.", e)))
        .isEqualTo(
            "cannot be read as a kubeconfig at port (line 1, column 7): a value of the wrong type"
                + " (its content is not shown: it may be a credential)");
    assertThat(KubeconfigContext.loadFailure(new IllegalStateException("other"))).isNull();
    Exception snake =
        org.junit.jupiter.api.Assertions.assertThrows(
            Exception.class, () -> new org.yaml.snakeyaml.Yaml().load("a: b\na: *SECRETALIAS\n"));
    assertThat(KubeconfigContext.loadFailure(new RuntimeException(snake)))
        .startsWith("the file is not YAML as fabric8 reads it (line 2, column ")
        .doesNotContain("SECRET");
  }

  /**
   * The one loader every process uses: a file the check passes but fabric8's parser refuses (a
   * token given as a list) is named by file and place, never quoted, and carries no cause (the
   * parser's message quotes it); a good file loads with its context's server and relative paths
   * resolved against its directory.
   */
  @Test
  void loadNamesTheFileAndPlaceOfWhatFabric8Refuses() throws Exception {
    Path listToken =
        Files.writeString(
            dir.resolve("list-token"),
            "apiVersion: v1\nkind: Config\n"
                + "clusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:6443'}\n"
                + "users:\n- name: u\n  user: {token: [SECRET-TOKEN]}\n"
                + "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n");
    assertThatCode(() -> KubeconfigContext.check(listToken)).doesNotThrowAnyException();
    assertThatThrownBy(() -> KubeconfigContext.load(listToken))
        .isInstanceOf(KubeconfigContext.Unloadable.class)
        .hasNoCause()
        .hasMessage(
            "kubeconfig "
                + listToken
                + ": cannot be read as a kubeconfig at users[0].user.token: a value of the wrong"
                + " type (its content is not shown: it may be a credential)")
        .message()
        .doesNotContain("SECRET");

    Files.createDirectories(dir.resolve("pki"));
    Path good =
        Files.writeString(
            dir.resolve("good"),
            "apiVersion: v1\nkind: Config\n"
                + "clusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:6443',"
                + " certificate-authority: pki/ca.crt}\n"
                + "users:\n- name: u\n  user: {token: t}\n"
                + "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n");
    var config = KubeconfigContext.load(good);
    assertThat(config.getMasterUrl()).isEqualTo("https://127.0.0.1:6443/");
    assertThat(config.getCaCertFile()).isEqualTo(dir.resolve("pki/ca.crt").toString());
  }

  /**
   * fabric8 reads a kubeconfig's certificate files only when it builds the client, failing with "An
   * error has occurred." and the path as its cause: build names the source and the missing file.
   */
  @Test
  void buildNamesTheMissingCertificateFile() throws Exception {
    Path missingCa =
        Files.writeString(
            dir.resolve("missing-ca"),
            "apiVersion: v1\nkind: Config\n"
                + "clusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:6443',"
                + " certificate-authority: nowhere/ca.crt}\n"
                + "users:\n- name: u\n  user: {token: t}\n"
                + "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n");
    var config = KubeconfigContext.load(missingCa);
    assertThatThrownBy(
            () ->
                KubeconfigContext.build(
                    "KUBECONFIG=" + missingCa,
                    () -> dev.ironcore.maintenance.api.json.JsonMappers.client(config)))
        .isInstanceOf(KubeconfigContext.Unloadable.class)
        .hasMessage(
            "KUBECONFIG="
                + missingCa
                + ": cannot build a client of it: no such file "
                + dir.resolve("nowhere/ca.crt"));
    Path noCa =
        Files.writeString(
            dir.resolve("no-ca"),
            Files.readString(missingCa).replace(", certificate-authority: nowhere/ca.crt", ""));
    var good = KubeconfigContext.load(noCa);
    try (var client =
        KubeconfigContext.build(
            "KUBECONFIG=" + noCa,
            () -> dev.ironcore.maintenance.api.json.JsonMappers.client(good))) {
      assertThat(client.getMasterUrl().toString()).isEqualTo("https://127.0.0.1:6443/");
    }
  }

  /**
   * Fresh eyes (session 38): an empty file named by KUBECONFIG or a flag made fabric8 use its
   * defaults (https://kubernetes.default.svc/), failing 20 s later without saying why.
   */
  @Test
  void namedFilesThatAreAllEmptyAreRefused() throws Exception {
    Path empty = Files.writeString(dir.resolve("empty"), "");
    Path blank = Files.writeString(dir.resolve("blank"), "\n\n");
    assertThatThrownBy(() -> KubeconfigContext.checkEnv(Map.of("KUBECONFIG", empty.toString())))
        .hasMessage(
            "KUBECONFIG="
                + empty
                + ": the file is empty (no cluster, no context; kubectl refuses it too)");
    String both = empty + java.io.File.pathSeparator + blank;
    assertThatThrownBy(() -> KubeconfigContext.checkEnv(Map.of("KUBECONFIG", both)))
        .hasMessage(
            "KUBECONFIG="
                + both
                + ": these files are empty (no cluster, no context; kubectl"
                + " refuses it too)");
    assertThatThrownBy(() -> KubeconfigContext.check(blank))
        .hasMessage(
            "kubeconfig "
                + blank
                + ": the file is empty (no cluster, no context; kubectl refuses"
                + " it too)");
    Path good = file("good", "- name: x\n  context: {cluster: c}\n", "x");
    assertThatCode(
            () ->
                KubeconfigContext.checkEnv(
                    Map.of("KUBECONFIG", empty + java.io.File.pathSeparator + good)))
        .as("an empty file beside a usable one is skipped, as kubectl and fabric8 skip it")
        .doesNotThrowAnyException();
  }
}
