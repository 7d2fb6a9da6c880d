package dev.ironcore.maintenance.devtools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ironcore.maintenance.testkit.LocalControlPlane;
import dev.ironcore.maintenance.testkit.ManifestPaths;
import dev.ironcore.maintenance.testkit.SharedControlPlane;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code make uninstall} ({@code hack/uninstall.sh}, the real script) against a local
 * kube-apiserver of its own (it deletes cluster-wide objects, so not the shared one) with
 * manifests/local and manifests/deploy installed and CAPI Machines carrying our finalizer and
 * pre-drain hook beside foreign ones.
 */
class UninstallScriptTest {
  private static final String FINALIZER = "maintenance.ironcore.dev/machinepool-cleanup";
  private static final String HOOK =
      "pre-drain.delete.hook.machine.cluster.x-k8s.io/ironcore-maintenance";
  private static final String MACHINES = "machines.cluster.x-k8s.io";

  @TempDir Path dir;

  private final Path repo = ManifestPaths.overlay("local").getParent().getParent();

  @Test
  void removesOurInstallAndOurMarksOnCapiMachinesOnlyAndRefusesDuringADrain() throws Exception {
    try (LocalControlPlane cp =
        LocalControlPlane.start(SharedControlPlane.binDir(), dir.resolve("cp"))) {
      cp.kubectl("apply", "-k", repo.resolve("manifests/crds").toString()).orThrow();
      cp.kubectl("apply", "-k", repo.resolve("manifests/capi-local").toString()).orThrow();
      cp.kubectl("wait", "--for=condition=Established", "crd/" + MACHINES).orThrow();
      cp.kubectl("create", "namespace", "capi").orThrow();
      cp.kubectl("wait", "--for=condition=Established", "crd/machinepools.compute.ironcore.dev")
          .orThrow();
      // stored as v1alpha2: reading it as v1alpha1 needs a conversion
      cp.kubectlTool()
          .runWithInput(
              "apiVersion: compute.ironcore.dev/v1alpha2\nkind: MachinePool\n"
                  + "metadata: {name: pool-1}\nspec: {}\n",
              "create",
              "-f",
              "-")
          .orThrow();
      // created before our webhooks are installed (no webhook server runs here)
      machine(cp, "ours", "[example.com/foreign, " + FINALIZER + "]", true);
      machine(cp, "foreign", "[example.com/foreign]", false);
      machine(cp, "draining", "[" + FINALIZER + ", example.com/foreign]", true);
      cp.kubectl("delete", MACHINES, "-n", "capi", "draining", "--wait=false").orThrow();
      cp.kubectl("apply", "-k", repo.resolve("manifests/local").toString()).orThrow();
      cp.kubectl("apply", "-k", repo.resolve("manifests/deploy").toString()).orThrow();
      // the CRDs as a cluster install has them: conversion through our Service (local's use a URL)
      cp.kubectl("apply", "-k", repo.resolve("manifests/crds").toString()).orThrow();

      // a drain in progress: refused, nothing changed
      Run refused = run(cp, Map.of());
      assertThat(refused.exit).isEqualTo(1);
      assertThat(refused.stderr)
          .isEqualTo(
              "uninstall: refused, nothing changed: 1 CAPI Machine(s) being deleted still carry our"
                  + " pre-drain hook, a drain is in progress: capi/draining; wait for it, or"
                  + " FORCE=true (CAPI then deletes their nodes without our drain)\n");
      assertInstalled(cp);

      // DRY_RUN: the plan, nothing changed
      Run plan = run(cp, Map.of("DRY_RUN", "true", "FORCE", "true"));
      assertThat(plan.exit).isZero();
      assertThat(plan.stdout)
          .contains(
              "[uninstall] webhooks: would delete mutatingwebhookconfiguration/ironcore-maintenance\n")
          .contains(
              "[uninstall] machines: would remove our finalizer and pre-drain hook from CAPI Machine capi/ours\n")
          .contains(
              "[uninstall] DRY_RUN: nothing changed (2 webhook configuration(s), 2 CRD"
                  + " conversion(s), 7 workload object(s), 2 CAPI Machine(s), 10 RBAC object(s), 1"
                  + " namespace)\n")
          .contains(
              "[uninstall] FORCE=true: would remove our pre-drain hook from 1 CAPI Machine(s)")
          .doesNotContain(": deleted ")
          .doesNotContain("would delete namespace/ironcore-machinepool-lease");
      assertInstalled(cp);

      Run forced = run(cp, Map.of("FORCE", "true"));
      assertThat(forced.exit).as(forced.stderr).isZero();
      assertThat(forced.stdout)
          .contains("CAPI deletes their nodes without our drain")
          .contains("[uninstall] namespace: deleted namespace/ironcore-maintenance-system\n")
          .contains("manifests/crds: deleting them deletes every Machine and MachinePool")
          .endsWith("[uninstall] done: ironcore-maintenance is uninstalled from this cluster\n");
      for (String kind :
          new String[] {"mutatingwebhookconfiguration", "validatingwebhookconfiguration"}) {
        assertThat(
                cp.kubectl("get", kind, "ironcore-maintenance", "--ignore-not-found", "-o", "name")
                    .orThrow()
                    .stdout())
            .isEmpty();
      }
      assertThat(
              cp.kubectl(
                      "get",
                      "deployments,services,pdb",
                      "-n",
                      "ironcore-maintenance-system",
                      "-o",
                      "name")
                  .orThrow()
                  .stdout())
          .isEmpty();
      for (String name : new String[] {"ours", "foreign", "draining"}) {
        assertThat(marks(cp, name))
            .as(name)
            .isEqualTo(
                "draining".equals(name)
                    ? "[\"example.com/foreign\"] keep=" // the deleting one had no foreign
                    // annotation
                    : "[\"example.com/foreign\"] keep=yes");
      }
      assertThat(
              cp.kubectl(
                      "get",
                      "namespace",
                      "ironcore-machinepool-lease",
                      "-o",
                      "jsonpath={.status.phase}")
                  .orThrow()
                  .stdout())
          .isEqualTo("Active");
      // fresh eyes (session 41): the CRDs kept converting through the Service just deleted, and
      // every v1alpha1 read failed
      for (String crd :
          new String[] {"machines.compute.ironcore.dev", "machinepools.compute.ironcore.dev"}) {
        assertThat(
                cp.kubectl("get", "crd", crd, "-o", "jsonpath={.spec.conversion.strategy}")
                    .orThrow()
                    .stdout())
            .as(crd)
            .isEqualTo("None");
      }
      assertThat(
              cp.kubectl("get", "machinepools.v1alpha1.compute.ironcore.dev", "-o", "name")
                  .orThrow()
                  .stdout())
          .as("v1alpha1 reads work without our Service")
          .contains("machinepool.compute.ironcore.dev/pool-1");
      assertThat(cp.kubectl("get", "crd", "-o", "name").orThrow().stdout())
          .contains("customresourcedefinition.apiextensions.k8s.io/" + MACHINES)
          .contains(
              "customresourcedefinition.apiextensions.k8s.io/machinepools.compute.ironcore.dev")
          .contains("customresourcedefinition.apiextensions.k8s.io/machines.compute.ironcore.dev");

      // a second run (the namespace stays Terminating here: no namespace controller runs)
      Run again = run(cp, Map.of());
      assertThat(again.exit).isZero();
      assertThat(again.stdout)
          .endsWith(
              "[uninstall] nothing left to do: no webhook configuration, workload, RBAC or"
                  + " namespace ironcore-maintenance-system of ours, no CRD converting through our"
                  + " Service, no CAPI Machine with our finalizer or hook\n");
    }
  }

  /**
   * A finalizer added by someone else between the script's read and its patch (a kubectl wrapper
   * adds it just before the first patch) fails the patch's test op; the retry removes ours only.
   */
  @Test
  void aConcurrentFinalizerChangeIsNotClobbered() throws Exception {
    try (LocalControlPlane cp =
        LocalControlPlane.start(SharedControlPlane.binDir(), dir.resolve("cp"))) {
      cp.kubectl("apply", "-k", repo.resolve("manifests/capi-local").toString()).orThrow();
      cp.kubectl("wait", "--for=condition=Established", "crd/" + MACHINES).orThrow();
      cp.kubectl("create", "namespace", "capi").orThrow();
      machine(cp, "raced", "[" + FINALIZER + "]", true);
      Path wrap = dir.resolve("wrap");
      Run run =
          run(
              cp,
              wrappedKubectl(
                  cp,
                  "if [[ \" $* \" == *\" patch \"* ]] && mkdir "
                      + wrap.resolve("once")
                      + " 2>/dev/null; then\n  \"$REAL\" patch "
                      + MACHINES
                      + " -n capi raced --type=json -p"
                      + " '[{\"op\":\"add\",\"path\":\"/metadata/finalizers/0\",\"value\":\"example.com/late\"}]'"
                      + " >/dev/null\nfi\n"));
      assertThat(run.exit).as(run.stderr).isZero();
      assertThat(Files.isDirectory(wrap.resolve("once"))).isTrue();
      assertThat(run.stdout)
          .contains(
              "[uninstall] machines: removed our finalizer and pre-drain hook from CAPI Machine"
                  + " capi/raced\n");
      assertThat(marks(cp, "raced")).isEqualTo("[\"example.com/late\"] keep=yes");
    }
  }

  /**
   * Fresh eyes (session 41): a CAPI Machine deleted after the drain check but before the controller
   * stopped started a drain that no controller finished, and the script then removed its hook, so
   * CAPI deleted the node mid-drain. A kubectl wrapper deletes one while the script waits for the
   * controller's pods: the script stops before touching any Machine and says why; FORCE=true then
   * goes on.
   */
  @Test
  void aDrainStartedWhileItRunsStopsItBeforeTheMachineStep() throws Exception {
    try (LocalControlPlane cp =
        LocalControlPlane.start(SharedControlPlane.binDir(), dir.resolve("cp"))) {
      installedWithMachine(cp, "late", "[" + FINALIZER + ", example.com/foreign]");
      Path wrap = dir.resolve("wrap");
      Map<String, String> path =
          wrappedKubectl(
              cp,
              "if [[ \" $* \" == *\" wait --for=delete \"* ]] && mkdir "
                  + wrap.resolve("once")
                  + " 2>/dev/null; then\n  \"$REAL\" delete "
                  + MACHINES
                  + " -n capi late --wait=false >/dev/null\nfi\n");
      Run stopped = run(cp, path);
      assertThat(Files.isDirectory(wrap.resolve("once"))).isTrue();
      assertThat(stopped.exit).as(stopped.stdout).isEqualTo(1);
      assertThat(stopped.stderr)
          .isEqualTo(
              "uninstall: stopped before touching any CAPI Machine (the webhooks and workloads are"
                  + " deleted): a drain started while this ran: 1 CAPI Machine(s) deleted since the"
                  + " check carry our pre-drain hook: capi/late; no controller of ours runs now, so"
                  + " CAPI keeps their nodes: install again to let the drain finish, or make"
                  + " uninstall FORCE=true (CAPI then deletes their nodes without our drain; their"
                  + " pools keep the maintenance taints)\n");
      assertThat(marks(cp, "late"))
          .isEqualTo(
              "[\"" + FINALIZER + "\",\"example.com/foreign\"] keep=yes hook=ironcore-maintenance");
      // run again: no controller is left to finish that drain, and the refusal says so
      Run again = run(cp, Map.of());
      assertThat(again.exit).isEqualTo(1);
      assertThat(again.stderr)
          .isEqualTo(
              "uninstall: refused, nothing changed: 1 CAPI Machine(s) being deleted still carry our"
                  + " pre-drain hook, a drain is in progress: capi/late; no controller Deployment"
                  + " of ours is here to finish it: unless one of ours runs elsewhere (make"
                  + " run's), install again to let the drain finish, or FORCE=true (CAPI then"
                  + " deletes their nodes without our drain)\n");
      Run forced = run(cp, Map.of("FORCE", "true"));
      assertThat(forced.exit).as(forced.stderr).isZero();
      assertThat(marks(cp, "late")).isEqualTo("[\"example.com/foreign\"] keep=yes");
    }
  }

  /**
   * Review (session 43): the CAPI Machines' second read, after the workloads were deleted, ended
   * the script under {@code set -e} with kubectl's error only. It now says where it stopped.
   */
  @Test
  void aFailingSecondReadOfTheMachinesSaysWhereItStopped() throws Exception {
    try (LocalControlPlane cp =
        LocalControlPlane.start(SharedControlPlane.binDir(), dir.resolve("cp"))) {
      installedWithMachine(cp, "ours", "[" + FINALIZER + "]");
      // the second list of every CAPI Machine fails as an API server that went away would
      Map<String, String> path =
          wrappedKubectl(
              cp,
              "if [[ \" $* \" == *\" get "
                  + MACHINES
                  + " -A \"* ]] && ! mkdir "
                  + dir.resolve("first")
                  + " 2>/dev/null; then\n"
                  + "  echo 'Unable to connect to the server: EOF' >&2; exit 1\nfi\n");
      Run stopped = run(cp, path);
      assertThat(stopped.exit).as(stopped.stdout).isEqualTo(1);
      assertThat(stopped.stderr)
          .isEqualTo(
              "uninstall: stopped before touching any CAPI Machine (the webhooks and workloads are"
                  + " deleted): cannot list machines.cluster.x-k8s.io: Unable to connect to the"
                  + " server: EOF; run make uninstall again\n");
      assertThat(marks(cp, "ours"))
          .isEqualTo("[\"" + FINALIZER + "\"] keep=yes hook=ironcore-maintenance");
      Run again = run(cp, Map.of());
      assertThat(again.exit).as(again.stderr).isZero();
      assertThat(marks(cp, "ours")).isEqualTo(" keep=yes");
    }
  }

  /**
   * The IronCore cluster of two clusters: no CAPI Machines served, the Machine step skipped; a
   * MachinePool in a drain (condition Maintenance) refuses the run, which the CAPI cluster's
   * controller runs through our RBAC here (fresh eyes, session 45: uninstalled mid-drain without a
   * word), unless FORCE=true.
   */
  @Test
  void inTheIronCoreClusterOfTwoClustersTheMachineStepIsSkipped() throws Exception {
    try (LocalControlPlane cp =
        LocalControlPlane.start(SharedControlPlane.binDir(), dir.resolve("cp"))) {
      cp.kubectl("apply", "-k", repo.resolve("manifests/crds").toString()).orThrow();
      cp.kubectl("wait", "--for=condition=Established", "crd/machinepools.compute.ironcore.dev")
          .orThrow();
      // before the webhooks, which call a Service nothing serves here: two pools in a drain, one
      // drained and kept (Drained stays on it for good: not a drain in progress), one without
      // status
      for (String pool : java.util.List.of("pool-a", "pool-kept", "pool-new", "pool-bare")) {
        cp.kubectlTool()
            .runWithInput(
                "apiVersion: compute.ironcore.dev/v1alpha2\nkind: MachinePool\n"
                    + "metadata:\n  name: "
                    + pool
                    + "\n",
                "create",
                "-f",
                "-")
            .orThrow();
      }
      maintenance(cp, "pool-a", "False", "Draining");
      maintenance(cp, "pool-new", "False", "DrainQueued");
      maintenance(cp, "pool-kept", "True", "Drained");
      cp.kubectl("apply", "-k", repo.resolve("manifests/two-clusters/ironcore").toString())
          .orThrow();
      Run refused = run(cp, Map.of());
      assertThat(refused.exit).isEqualTo(1);
      assertThat(refused.stderr)
          .isEqualTo(
              "uninstall: refused, nothing changed: 2 MachinePool(s) are in a drain (condition"
                  + " Maintenance): pool-a (Draining), pool-new (DrainQueued); the CAPI cluster's controller runs it"
                  + " through what this removes here: uninstall the CAPI cluster first"
                  + " (docs/two-clusters.md) or wait for the drain; FORCE=true goes on (where the"
                  + " CAPI cluster is uninstalled already, these conditions are left from it)\n");
      assertThat(cp.kubectl("get", "validatingwebhookconfiguration", "ironcore-maintenance").ok())
          .as("nothing changed")
          .isTrue();
      // a dry run shows its plan, then why a run would be refused (exit 1)
      Run plan = run(cp, Map.of("DRY_RUN", "true"));
      assertThat(plan.exit).isEqualTo(1);
      assertThat(plan.stdout)
          .contains(
              "[uninstall] webhooks: would delete"
                  + " validatingwebhookconfiguration/ironcore-maintenance\n")
          .contains("[uninstall] DRY_RUN: nothing changed (");
      assertThat(plan.stderr)
          .isEqualTo(
              refused
                      .stderr
                      .replace(
                          "uninstall: refused, nothing changed: ",
                          "uninstall: DRY_RUN: a real run would be refused (nothing changed): ")
                      .replace("\n", "")
                  + "; with FORCE=true it would go ahead as planned above\n");
      assertThat(cp.kubectl("get", "validatingwebhookconfiguration", "ironcore-maintenance").ok())
          .as("nothing changed")
          .isTrue();
      Run run = run(cp, Map.of("FORCE", "true"));
      assertThat(run.stdout)
          .contains(
              "[uninstall] FORCE=true: going on although 2 MachinePool(s) are in a drain (pool-a"
                  + " (Draining), pool-new (DrainQueued)): the drain stops there, a tainted pool keeps its maintenance"
                  + " taints\n");
      assertThat(run.exit).as(run.stderr).isZero();
      assertThat(run.stdout)
          .contains(
              "[uninstall] CAPI Machines: machines.cluster.x-k8s.io is not served here (the"
                  + " IronCore cluster of a two-cluster install?): no Machine to clean\n")
          .contains(
              "[uninstall] webhooks: deleted mutatingwebhookconfiguration/ironcore-maintenance\n")
          .contains("[uninstall] workloads: deleted deployment/ironcore-maintenance-webhook")
          .doesNotContain("machines: ")
          .contains(
              "[uninstall] left in place: namespace ironcore-machinepool-lease (IronCore's, holds"
                  + " every poollet Lease), the CRDs (manifests/crds: deleting them deletes every"
                  + " Machine and MachinePool stored in them) and any maintenance.ironcore.dev"
                  + " taints on MachinePools (a drain cut short by FORCE=true leaves them)\n")
          .endsWith("[uninstall] done: ironcore-maintenance is uninstalled from this cluster\n");
      assertThat(
              cp.kubectl("get", "namespace", "ironcore-machinepool-lease", "-o", "name")
                  .orThrow()
                  .stdout())
          .isEqualTo("namespace/ironcore-machinepool-lease\n");
      assertThat(run(cp, Map.of()).stdout).contains("[uninstall] nothing left to do: ");
    }
  }

  /**
   * Fresh eyes (session 45): a kubeconfig without a usable current-context was reported as "the
   * cluster does not answer" (kubectl then talks to localhost:8080); each is one line naming it.
   */
  @Test
  void aKubeconfigThatCannotBeUsedIsSaidAsSuch() throws Exception {
    LocalControlPlane cp = SharedControlPlane.get();
    String cluster =
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server:"
            + " 'https://127.0.0.1:1'}\nusers:\n- name: u\n  user: {token: t}\n";
    Path noContext = Files.writeString(dir.resolve("no-context"), cluster);
    Path unknownContext =
        Files.writeString(dir.resolve("unknown-context"), cluster + "current-context: nosuch\n");
    Path notYaml = Files.writeString(dir.resolve("not-yaml"), "clusters: [\n");
    Path directory = Files.createDirectories(dir.resolve("a-directory"));
    assertThat(run(cp, Map.of("KUBECONFIG", noContext.toString())))
        .isEqualTo(
            new Run(
                2,
                "",
                "uninstall: KUBECONFIG "
                    + noContext
                    + ": no current-context is set (kubectl config use-context NAME)\n"));
    assertThat(run(cp, Map.of("KUBECONFIG", unknownContext.toString())))
        .isEqualTo(
            new Run(
                2,
                "",
                "uninstall: KUBECONFIG "
                    + unknownContext
                    + ": current-context nosuch cannot be used: cannot locate context nosuch\n"));
    Run yaml = run(cp, Map.of("KUBECONFIG", notYaml.toString()));
    assertThat(yaml.exit).isEqualTo(2);
    assertThat(yaml.stderr).startsWith("uninstall: KUBECONFIG " + notYaml + ": cannot be read: ");
    assertThat(run(cp, Map.of("KUBECONFIG", directory.toString())))
        .isEqualTo(
            new Run(2, "", "uninstall: KUBECONFIG " + directory + ": not a file (a directory?)\n"));
  }

  /**
   * Fresh eyes (session 51): a kubeconfig naming a certificate-authority file that is not there
   * read "the cluster does not answer"; kubectl failing before it sends a request is the
   * kubeconfig's, said as such, while a server that does not answer still says so.
   */
  @Test
  void aKubeconfigNamingAMissingFileIsNotBlamedOnTheCluster() throws Exception {
    LocalControlPlane cp = SharedControlPlane.get();
    String context = "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n";
    Path badCa =
        Files.writeString(
            dir.resolve("bad-ca"),
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server:"
                + " 'https://127.0.0.1:1', certificate-authority: /nonexistent/ca.crt}\n"
                + "users:\n- name: u\n  user: {token: t}\n"
                + context);
    Path badCert =
        Files.writeString(
            dir.resolve("bad-cert"),
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server:"
                + " 'https://127.0.0.1:1'}\nusers:\n- name: u\n  user: {client-certificate:"
                + " /nonexistent/u.crt, client-key: /nonexistent/u.key}\n"
                + context);
    Path noServer =
        Files.writeString(
            dir.resolve("no-server"),
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:"
                + " {insecure-skip-tls-verify: true}\nusers:\n- name: u\n  user: {token: t}\n"
                + context);
    Path noAnswer =
        Files.writeString(
            dir.resolve("no-answer"),
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server:"
                + " 'https://127.0.0.1:1'}\nusers:\n- name: u\n  user: {token: t}\n"
                + context);
    assertThat(run(cp, Map.of("KUBECONFIG", badCa.toString(), "DRY_RUN", "true")))
        .isEqualTo(
            new Run(
                2,
                "",
                "uninstall: KUBECONFIG "
                    + badCa
                    + ": current-context x cannot be used, kubectl sent no request: unable to read"
                    + " certificate-authority /nonexistent/ca.crt for c due to open"
                    + " /nonexistent/ca.crt: no such file or directory\n"));
    // kubectl's "Error in configuration:" with one "* ..." line per error: one line
    assertThat(run(cp, Map.of("KUBECONFIG", badCert.toString())))
        .isEqualTo(
            new Run(
                2,
                "",
                "uninstall: KUBECONFIG "
                    + badCert
                    + ": current-context x cannot be used, kubectl sent no request: unable to read"
                    + " client-cert /nonexistent/u.crt for u due to open /nonexistent/u.crt: no"
                    + " such file or directory; unable to read client-key /nonexistent/u.key for u"
                    + " due to open /nonexistent/u.key: no such file or directory\n"));
    assertThat(run(cp, Map.of("KUBECONFIG", noServer.toString())))
        .isEqualTo(
            new Run(
                2,
                "",
                "uninstall: KUBECONFIG "
                    + noServer
                    + ": current-context x cannot be used: its cluster names no server\n"));
    Run noAnswerRun = run(cp, Map.of("KUBECONFIG", noAnswer.toString()));
    assertThat(noAnswerRun.exit).isEqualTo(2);
    assertThat(noAnswerRun.stderr)
        .isEqualTo(
            "uninstall: KUBECONFIG "
                + noAnswer
                + ": the cluster does not answer: The connection to the server 127.0.0.1:1 was"
                + " refused - did you specify the right host or port?\n");
  }

  /**
   * Fresh eyes (session 51): DRY_RUN=true during a drain showed the refusal only, no plan. It shows
   * the plan (what FORCE=true would do), then why a run would be refused, and exits 1 as the run
   * does; the run itself is refused before anything changes, as before.
   */
  @Test
  void aDryRunDuringADrainShowsThePlanThenWhyARunWouldBeRefused() throws Exception {
    try (LocalControlPlane cp =
        LocalControlPlane.start(SharedControlPlane.binDir(), dir.resolve("cp"))) {
      installedWithMachine(cp, "draining", "[" + FINALIZER + ", example.com/foreign]");
      cp.kubectl("delete", MACHINES, "-n", "capi", "draining", "--wait=false").orThrow();
      String marked =
          "[\"" + FINALIZER + "\",\"example.com/foreign\"] keep= hook=ironcore-maintenance";
      assertThat(marks(cp, "draining")).isEqualTo(marked);
      String reason =
          "1 CAPI Machine(s) being deleted still carry our pre-drain hook, a drain is in progress:"
              + " capi/draining; wait for it, or FORCE=true (CAPI then deletes their nodes without"
              + " our drain)";

      Run plan = run(cp, Map.of("DRY_RUN", "true"));
      assertThat(plan.exit).as(plan.stderr).isEqualTo(1);
      assertThat(plan.stdout)
          .contains(
              "[uninstall] workloads: would delete deployment/ironcore-maintenance-controller"
                  + " (namespace ironcore-maintenance-system)\n")
          .contains(
              "[uninstall] machines: would remove our finalizer and pre-drain hook from CAPI"
                  + " Machine capi/draining\n")
          .contains("[uninstall] namespace: would delete namespace/ironcore-maintenance-system\n")
          .endsWith(
              "[uninstall] DRY_RUN: nothing changed (0 webhook configuration(s), 0 CRD"
                  + " conversion(s), 7 workload object(s), 1 CAPI Machine(s), 0 RBAC object(s), 1"
                  + " namespace)\n")
          // what FORCE=true would do is the plan, its line on the drain too (review, session 51)
          .contains(
              "[uninstall] FORCE=true: would remove our pre-drain hook from 1 CAPI Machine(s) being"
                  + " deleted (capi/draining): CAPI deletes their nodes without our drain\n")
          .doesNotContain(": deleted ");
      assertThat(plan.stderr)
          .isEqualTo(
              "uninstall: DRY_RUN: a real run would be refused (nothing changed): "
                  + reason
                  + "; with FORCE=true it would go ahead as planned above\n");
      assertThat(marks(cp, "draining")).isEqualTo(marked);

      Run refused = run(cp, Map.of());
      assertThat(refused)
          .isEqualTo(
              new Run(1, refused.stdout, "uninstall: refused, nothing changed: " + reason + "\n"));
      assertThat(refused.stdout).doesNotContain("would ").doesNotContain(": deleted ");
      assertThat(marks(cp, "draining")).isEqualTo(marked);
      assertThat(
              cp.kubectl(
                      "get",
                      "deployment",
                      "-n",
                      "ironcore-maintenance-system",
                      "ironcore-maintenance-controller",
                      "-o",
                      "name")
                  .ok())
          .as("nothing changed")
          .isTrue();
    }
  }

  /** Pool {@code name}'s condition Maintenance, written to its status as the controller does. */
  private static void maintenance(LocalControlPlane cp, String name, String status, String reason) {
    cp.kubectl(
            "patch",
            "machinepools.compute.ironcore.dev",
            name,
            "--subresource=status",
            "--type=merge",
            "-p",
            "{\"status\":{\"conditions\":[{\"type\":\"Maintenance\",\"status\":\""
                + status
                + "\",\"reason\":\""
                + reason
                + "\",\"message\":\"m\",\"lastTransitionTime\":\"2026-12-07T00:00:00Z\"}]}}")
        .orThrow();
  }

  /**
   * Fresh eyes (session 50): DRY_RUN=yes (or 1), which make certs refuses, uninstalled for real; a
   * value other than true or false (any letter case) is refused before anything is read.
   */
  @Test
  void aDryRunOrForceOtherThanTrueOrFalseIsRefusedBeforeAnythingChanges() throws Exception {
    try (LocalControlPlane cp =
        LocalControlPlane.start(SharedControlPlane.binDir(), dir.resolve("cp"))) {
      installedWithMachine(cp, "bool-vars", "[" + FINALIZER + "]");
      java.util.function.Supplier<String> installed =
          () ->
              cp.kubectl("get", "deployment,clusterrole,serviceaccount", "-A", "-o", "name")
                      .orThrow()
                      .stdout()
                  + marks(cp, "bool-vars");
      String before = installed.get();
      assertThat(before).contains("deployment.apps/ironcore-maintenance-controller");
      for (Map.Entry<String, String> e :
          List.of(
              Map.entry("DRY_RUN", "yes"), Map.entry("DRY_RUN", "1"), Map.entry("FORCE", "y"))) {
        assertThat(run(cp, Map.of(e.getKey(), e.getValue())))
            .isEqualTo(
                new Run(
                    2,
                    "",
                    "uninstall: "
                        + e.getKey()
                        + "='"
                        + e.getValue()
                        + "': use true or false (or leave "
                        + e.getKey()
                        + " empty); nothing changed\n"));
      }
      assertThat(installed.get()).isEqualTo(before);
      Run plan = run(cp, Map.of("DRY_RUN", "TRUE"));
      assertThat(plan.exit).as(plan.stderr).isZero();
      assertThat(plan.stdout).contains("DRY_RUN: nothing is changed").contains("would delete");
      assertThat(installed.get()).isEqualTo(before);
    }
  }

  /**
   * Fresh eyes (session 50): with make run running against the cluster and no CAPI Machine of ours
   * to notice its controller by, the uninstall went through beside it. A live make run (its
   * .local/run.pid) whose kubeconfig names this API server refuses it before anything changes.
   */
  @Test
  void aMakeRunRunningAgainstTheClusterRefusesIt() throws Exception {
    LocalControlPlane cp = SharedControlPlane.get();
    Path checkout = dir.resolve("checkout");
    Files.createDirectories(checkout.resolve("hack"));
    Files.createDirectories(checkout.resolve(".local"));
    Files.copy(repo.resolve("hack/uninstall.sh"), checkout.resolve("hack/uninstall.sh"));
    Files.copy(cp.kubeconfig(), checkout.resolve(".local/kubeconfig"));
    // make run holds .local/run.lock while it runs (and writes its pid to .local/run.pid)
    Process makeRun = CertsScriptTest.holdingTheLock(checkout, 120).start();
    try {
      Files.writeString(checkout.resolve(".local/run.pid"), makeRun.pid() + "\n");
      await()
          .atMost(java.time.Duration.ofSeconds(10))
          .until(() -> CertsScriptTest.locked(checkout));
      Run refused = run(checkout, cp, Map.of());
      assertThat(refused.exit).isEqualTo(1);
      assertThat(refused.stderr)
          .isEqualTo(
              "uninstall: refused, nothing changed: make run (pid "
                  + makeRun.pid()
                  + ") runs its controller and webhook server against this cluster ("
                  + server(cp)
                  + ", as .local/kubeconfig); stop it first (Ctrl-C, or kill $(cat"
                  + " .local/run.pid)), then run make uninstall again\n");
      // the same API server under another name (fresh eyes: localhost went past the URL match)
      Path byName =
          Files.writeString(
              dir.resolve("localhost.kubeconfig"),
              Files.readString(cp.kubeconfig())
                  .replace("https://127.0.0.1:", "https://localhost:"));
      assertThat(byName).content().contains("https://localhost:");
      Run viaLocalhost = run(checkout, cp, Map.of("KUBECONFIG", byName.toString()));
      assertThat(viaLocalhost.exit).as(viaLocalhost.stderr).isEqualTo(1);
      assertThat(viaLocalhost.stderr)
          .startsWith("uninstall: refused, nothing changed: make run (pid ");
    } finally {
      makeRun.destroy();
      makeRun.waitFor();
    }
    // make run stopped (its pid file stays behind after a kill -9): no refusal
    Run plan = run(checkout, cp, Map.of("DRY_RUN", "true"));
    assertThat(plan.exit).as(plan.stderr).isZero();
  }

  private static String server(LocalControlPlane cp) {
    return cp.kubectl("config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}")
        .orThrow()
        .stdout();
  }

  @Test
  void withoutKubeconfigItRefusesWithOneLine() throws Exception {
    ProcessBuilder pb = new ProcessBuilder("bash", repo.resolve("hack/uninstall.sh").toString());
    pb.environment().remove("KUBECONFIG");
    pb.environment().put("PATH", SharedControlPlane.binDir() + ":" + System.getenv("PATH"));
    Process p = pb.redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(2);
    assertThat(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
        .isEqualTo(
            "uninstall: KUBECONFIG is not set: name the cluster to uninstall from (KUBECONFIG=..."
                + " make uninstall)\n");
  }

  private void assertInstalled(LocalControlPlane cp) {
    assertThat(
            cp.kubectl("get", "mutatingwebhookconfiguration", "ironcore-maintenance", "-o", "name")
                .ok())
        .isTrue();
    assertThat(
            cp.kubectl(
                    "get",
                    "deployment",
                    "-n",
                    "ironcore-maintenance-system",
                    "ironcore-maintenance-controller",
                    "-o",
                    "name")
                .ok())
        .isTrue();
    assertThat(
            cp.kubectl("get", "clusterrole", "ironcore-maintenance-controller", "-o", "name").ok())
        .isTrue();
    assertThat(marks(cp, "ours"))
        .isEqualTo(
            "[\"example.com/foreign\",\"" + FINALIZER + "\"] keep=yes hook=ironcore-maintenance");
    assertThat(marks(cp, "draining"))
        .isEqualTo(
            "[\"" + FINALIZER + "\",\"example.com/foreign\"] keep= hook=ironcore-maintenance");
  }

  /**
   * The CAPI Machine CRD, CAPI Machine {@code name} (ours: finalizers as given, our hook) in
   * namespace capi, and our workloads (manifests/deploy), as a cluster install has them.
   */
  private void installedWithMachine(LocalControlPlane cp, String name, String finalizers) {
    cp.kubectl("apply", "-k", repo.resolve("manifests/capi-local").toString()).orThrow();
    cp.kubectl("wait", "--for=condition=Established", "crd/" + MACHINES).orThrow();
    cp.kubectl("create", "namespace", "capi").orThrow();
    machine(cp, name, finalizers, true);
    cp.kubectl("create", "namespace", "ironcore-maintenance-system").orThrow();
    cp.kubectl("apply", "-k", repo.resolve("manifests/deploy").toString()).orThrow();
  }

  /**
   * A kubectl wrapper in {@code dir/wrap} that runs {@code before} (bash; {@code $REAL} is the real
   * kubectl) and then the real kubectl with the same arguments: a fault injected between the
   * script's steps.
   *
   * @return the environment that puts it first on the script's PATH
   */
  private Map<String, String> wrappedKubectl(LocalControlPlane cp, String before)
      throws java.io.IOException {
    Path wrap = Files.createDirectories(dir.resolve("wrap"));
    Files.writeString(
        wrap.resolve("kubectl"),
        "#!/usr/bin/env bash\nREAL="
            + cp.kubectlTool().binary()
            + "\n"
            + before
            + "exec \"$REAL\" \"$@\"\n");
    Files.setPosixFilePermissions(
        wrap.resolve("kubectl"), PosixFilePermissions.fromString("rwxr-xr-x"));
    return Map.of("PATH", wrap + ":" + cp.binDir() + ":" + System.getenv("PATH"));
  }

  /** finalizers, the foreign annotation and (when there) our hook annotation of one Machine. */
  private static String marks(LocalControlPlane cp, String name) {
    String json =
        jsonpath(
            cp, name, "{.metadata.finalizers} keep={.metadata.annotations.example\\.com/keep}");
    String hook =
        jsonpath(
            cp,
            name,
            "{.metadata.annotations.pre-drain\\.delete\\.hook\\.machine\\.cluster\\.x-k8s\\.io/ironcore-maintenance}");
    return hook.isEmpty() ? json : json + " hook=" + hook;
  }

  /**
   * {@code kubectl get} of CAPI Machine {@code name} in namespace capi, {@code -o jsonpath=...}.
   */
  private static String jsonpath(LocalControlPlane cp, String name, String path) {
    return cp.kubectl("get", MACHINES, "-n", "capi", name, "-o", "jsonpath=" + path)
        .orThrow()
        .stdout();
  }

  private static void machine(LocalControlPlane cp, String name, String finalizers, boolean ours) {
    String annotations =
        ("draining".equals(name) ? "" : "    example.com/keep: \"yes\"\n")
            + (ours ? "    " + HOOK + ": ironcore-maintenance\n" : "");
    cp.kubectlTool()
        .runWithInput(
            "apiVersion: cluster.x-k8s.io/v1beta2\nkind: Machine\nmetadata:\n  name: "
                + name
                + "\n  namespace: capi\n  finalizers: "
                + finalizers
                + "\n  annotations:\n"
                + annotations
                + "spec:\n  clusterName: c\n",
            "create",
            "-f",
            "-")
        .orThrow();
  }

  private record Run(int exit, String stdout, String stderr) {}

  private Run run(LocalControlPlane cp, Map<String, String> env) throws Exception {
    return run(repo, cp, env);
  }

  private Run run(Path checkout, LocalControlPlane cp, Map<String, String> env) throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder("bash", checkout.resolve("hack/uninstall.sh").toString());
    pb.environment().put("KUBECONFIG", cp.kubeconfig().toString());
    pb.environment().put("PATH", cp.binDir() + ":" + System.getenv("PATH"));
    pb.environment().remove("DRY_RUN");
    pb.environment().remove("FORCE");
    pb.environment().putAll(env);
    Process p = pb.start();
    CompletableFuture<byte[]> err =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return p.getErrorStream().readAllBytes();
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return new Run(p.exitValue(), out, new String(err.get(), StandardCharsets.UTF_8));
  }
}
