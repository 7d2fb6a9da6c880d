package dev.ironcore.maintenance.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.certs.CertificateAuthority;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ManifestsTest {

  private static final List<String> CRDS =
      List.of(
          "machinepools.compute.ironcore.dev",
          "machines.compute.ironcore.dev",
          "machines.cluster.x-k8s.io");

  private static Kubectl kustomizer() {
    String dir = System.getProperty(SharedControlPlane.BIN_DIR_PROPERTY);
    return new Kubectl(Kubectl.locate(dir == null ? null : java.nio.file.Path.of(dir)), null);
  }

  @Test
  void defaultOverlayHasNoCrdsAndUsesTheService() {
    List<GenericKubernetesResource> objs =
        RenderedManifests.render(kustomizer(), ManifestPaths.overlay("default"));
    Map<String, Long> kinds =
        objs.stream()
            .collect(
                Collectors.groupingBy(GenericKubernetesResource::getKind, Collectors.counting()));
    assertThat(kinds).doesNotContainKey("CustomResourceDefinition");
    assertThat(kinds)
        .containsEntry("Deployment", 2L)
        .containsEntry("Service", 3L)
        .containsEntry("PodDisruptionBudget", 2L)
        .containsEntry("Namespace", 2L)
        .containsEntry("MutatingWebhookConfiguration", 1L)
        .containsEntry("ValidatingWebhookConfiguration", 1L);
    String yaml =
        kustomizer()
            .run("kustomize", ManifestPaths.overlay("default").toString())
            .orThrow()
            .stdout();
    assertThat(yaml).contains("name: ironcore-maintenance-webhook").doesNotContain("url:");
  }

  @Test
  void monitoringOverlayScrapesBothProcessesAndAlertsOnExportedMetrics() {
    List<GenericKubernetesResource> objs =
        RenderedManifests.render(kustomizer(), ManifestPaths.overlay("monitoring"));
    assertThat(objs)
        .extracting(GenericKubernetesResource::getKind)
        .containsExactlyInAnyOrder(
            "ServiceMonitor", "ServiceMonitor", "PrometheusRule", "PrometheusRule");
    String yaml =
        kustomizer()
            .run("kustomize", ManifestPaths.overlay("monitoring").toString())
            .orThrow()
            .stdout();
    assertThat(yaml)
        .contains("expr: max(ironcore_maintenance_drains_stuck) > 0")
        .contains("ironcore_maintenance_drain_oldest_age_seconds")
        .contains("increase(ironcore_maintenance_drain_write_failures_total[10m])")
        .contains("increase(ironcore_maintenance_eviction_failures_total[10m])")
        .contains("max(ironcore_maintenance_pools_renewing_slower_than_grace) > 0")
        .contains("ironcore_maintenance_pools{ready=\"Unknown\"}")
        .contains("ironcore_maintenance_serving_certificate_expiry_seconds")
        .contains("max(ironcore_maintenance_serving_certificate_reload_failing) > 0")
        .contains("sum(up{job=\"ironcore-maintenance-webhook-metrics\"}) < 1")
        .contains("ironcore_maintenance_conversion_results_total{result=\"failure\"}")
        .contains("ironcore_maintenance_admission_decisions_total{decision=\"errored\"}")
        .contains("increase(ironcore_maintenance_webhook_connection_limit_reached_total[10m])");
  }

  /**
   * Each ServiceMonitor of manifests/monitoring, applied after manifests/default (or after
   * two-clusters/capi; two-clusters/ironcore-monitoring after two-clusters/ironcore), reaches a
   * port that serves {@code /metrics}: its selector matches a Service of the install, its endpoint
   * names one of that Service's ports, whose targetPort is a container port of the Deployment the
   * Service selects, and that container serves {@code /metrics} there on its {@code
   * --metrics-bind-address} (plain HTTP; the webhook server also on its HTTPS {@code --port} for an
   * https endpoint). The overlay also redefines nothing the install has (an object applied twice
   * under one name keeps the last version: an earlier overlay turned the controller's metrics
   * Service to the health port, and every scrape got 404), and no ServiceMonitor selects nothing
   * (two-clusters/ironcore runs no controller).
   */
  @Test
  void everyServiceMonitorScrapesAPortThatServesMetrics() {
    assertMonitorsScrapeMetrics("default", "monitoring", 2);
    assertMonitorsScrapeMetrics("two-clusters/capi", "monitoring", 2);
    assertMonitorsScrapeMetrics("two-clusters/ironcore", "two-clusters/ironcore-monitoring", 1);
    assertThat(
            kindsAndNames(
                RenderedManifests.render(
                    kustomizer(), ManifestPaths.overlay("two-clusters/ironcore-monitoring"))))
        .containsExactlyInAnyOrder(
            "ServiceMonitor/ironcore-maintenance-webhook",
            "PrometheusRule/ironcore-maintenance-webhook");
  }

  private void assertMonitorsScrapeMetrics(String install, String overlay, int monitorCount) {
    List<GenericKubernetesResource> installed =
        RenderedManifests.render(kustomizer(), ManifestPaths.overlay(install));
    List<GenericKubernetesResource> monitoring =
        RenderedManifests.render(kustomizer(), ManifestPaths.overlay(overlay));
    assertThat(kindsAndNames(monitoring)).doesNotContainAnyElementsOf(kindsAndNames(installed));
    List<GenericKubernetesResource> monitors =
        monitoring.stream().filter(o -> o.getKind().equals("ServiceMonitor")).toList();
    assertThat(monitors).as(overlay).hasSize(monitorCount);
    for (GenericKubernetesResource monitor : monitors) {
      Map<?, ?> spec = map(monitor, "spec");
      Map<?, ?> wanted = (Map<?, ?>) ((Map<?, ?>) spec.get("selector")).get("matchLabels");
      List<GenericKubernetesResource> services =
          installed.stream()
              .filter(o -> o.getKind().equals("Service"))
              .filter(o -> o.getMetadata().getLabels().entrySet().containsAll(wanted.entrySet()))
              .toList();
      String who = install + " + " + overlay + ": " + monitor.getMetadata().getName();
      assertThat(services).as(who + " selects one Service").hasSize(1);
      if (monitor.getMetadata().getName().endsWith("-webhook")) {
        // IronCoreMaintenanceWebhookDown reads `up` of the job the Prometheus Operator names after
        // the Service (no jobLabel)
        assertThat(spec.containsKey("jobLabel")).isFalse();
        assertThat(
                monitoring.stream()
                    .filter(o -> o.getKind().equals("PrometheusRule"))
                    .map(o -> String.valueOf(o.getAdditionalProperties().get("spec"))))
            .as(who + ": the webhook's up series")
            .anyMatch(
                rules ->
                    rules.contains("up{job=\"" + services.get(0).getMetadata().getName() + "\"}"));
      }
      Map<?, ?> endpoint = (Map<?, ?>) ((List<?>) spec.get("endpoints")).get(0);
      Map<?, ?> servicePort =
          ((List<?>) map(services.get(0), "spec").get("ports"))
              .stream()
                  .map(Map.class::cast)
                  .filter(p -> p.get("name").equals(endpoint.get("port")))
                  .findFirst()
                  .orElseThrow(
                      () -> new AssertionError(who + ": no Service port " + endpoint.get("port")));
      Map<?, ?> selector = (Map<?, ?>) map(services.get(0), "spec").get("selector");
      GenericKubernetesResource deployment =
          installed.stream()
              .filter(o -> o.getKind().equals("Deployment"))
              .filter(
                  o ->
                      ((Map<?, ?>) ((Map<?, ?>) map(o, "spec").get("selector")).get("matchLabels"))
                          .equals(selector))
              .findFirst()
              .orElseThrow();
      Map<?, ?> container =
          (Map<?, ?>)
              ((List<?>)
                      ((Map<?, ?>)
                              ((Map<?, ?>) map(deployment, "spec").get("template")).get("spec"))
                          .get("containers"))
                  .get(0);
      Object containerPort =
          ((List<?>) container.get("ports"))
              .stream()
                  .map(Map.class::cast)
                  .filter(p -> p.get("name").equals(servicePort.get("targetPort")))
                  .map(p -> p.get("containerPort"))
                  .findFirst()
                  .orElseThrow(() -> new AssertionError(who + ": no container port"));
      List<String> args = ((List<?>) container.get("args")).stream().map(String::valueOf).toList();
      String servesMetrics =
          "https".equals(endpoint.get("scheme"))
              ? "--port=" + containerPort
              : "--metrics-bind-address=:" + containerPort;
      assertThat(args).as(who + " scrapes " + endpoint).contains(servesMetrics);
      assertThat(endpoint.get("path")).isEqualTo("/metrics");
    }
  }

  private static Map<?, ?> map(GenericKubernetesResource o, String field) {
    return (Map<?, ?>) o.getAdditionalProperties().get(field);
  }

  @Test
  void twoClusterOverlaysRegisterEachWebhookWhereItsResourceIsStored() {
    List<GenericKubernetesResource> capi =
        RenderedManifests.render(kustomizer(), ManifestPaths.overlay("two-clusters/capi"));
    assertThat(names(capi, "MutatingWebhookConfiguration"))
        .containsExactly("capi-machine.maintenance.ironcore.dev");
    assertThat(names(capi, "ValidatingWebhookConfiguration")).isEmpty();
    assertThat(kindsAndNames(capi))
        .contains(
            "Deployment/ironcore-maintenance-controller",
            "ClusterRole/ironcore-maintenance-controller-capi",
            "Role/ironcore-maintenance-controller-leader-election")
        .doesNotContain(
            "ClusterRole/ironcore-maintenance-controller", "Namespace/ironcore-machinepool-lease");
    assertThat(
            Serialization.asYaml(
                capi.stream()
                    .filter(
                        o -> o.getMetadata().getName().equals("ironcore-maintenance-controller"))
                    .filter(o -> o.getKind().equals("Deployment"))
                    .findFirst()
                    .orElseThrow()))
        .contains(
            "--ironcore-kubeconfig=/etc/ironcore-maintenance/ironcore/kubeconfig",
            "secretName: \"ironcore-maintenance-ironcore-kubeconfig\"");
    // no IronCore API in the CAPI cluster: its webhook server must not watch IronCore Machines
    assertThat(
            Serialization.asYaml(
                capi.stream()
                    .filter(o -> o.getMetadata().getName().equals("ironcore-maintenance-webhook"))
                    .filter(o -> o.getKind().equals("Deployment"))
                    .findFirst()
                    .orElseThrow()))
        .contains("--no-eviction-warnings", "automountServiceAccountToken: false");

    List<GenericKubernetesResource> ironcore =
        RenderedManifests.render(kustomizer(), ManifestPaths.overlay("two-clusters/ironcore"));
    assertThat(names(ironcore, "MutatingWebhookConfiguration"))
        .containsExactly(
            "machine.maintenance.ironcore.dev", "machinepool.maintenance.ironcore.dev");
    assertThat(names(ironcore, "ValidatingWebhookConfiguration"))
        .containsExactly(
            "machine.validate.maintenance.ironcore.dev",
            "machinepool.validate.maintenance.ironcore.dev");
    assertThat(kindsAndNames(ironcore))
        .contains(
            "Deployment/ironcore-maintenance-webhook",
            "ClusterRole/ironcore-maintenance-controller",
            "Role/ironcore-maintenance-controller-pool-leases",
            "ServiceAccount/ironcore-maintenance-controller")
        .doesNotContain(
            "Deployment/ironcore-maintenance-controller",
            "ClusterRole/ironcore-maintenance-controller-capi");
    // the controller runs in the CAPI cluster: of its objects the IronCore one gets only its
    // identity and RBAC (anything added to manifests/deploy for the controller, e.g. a
    // PodDisruptionBudget or a metrics Service, must be dropped in two-clusters/ironcore too)
    assertThat(
            ironcore.stream()
                .filter(
                    o -> o.getMetadata().getName().startsWith("ironcore-maintenance-controller"))
                .map(GenericKubernetesResource::getKind)
                .distinct())
        .isSubsetOf("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding");
  }

  private static List<String> kindsAndNames(List<GenericKubernetesResource> objs) {
    return objs.stream().map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList();
  }

  /** Names of the webhooks in the configurations of {@code kind}. */
  private static List<Object> names(List<GenericKubernetesResource> objs, String kind) {
    return objs.stream()
        .filter(o -> o.getKind().equals(kind))
        .flatMap(o -> ((List<?>) o.getAdditionalProperties().get("webhooks")).stream())
        .map(h -> ((Map<?, ?>) h).get("name"))
        .map(Object.class::cast)
        .toList();
  }

  @Test
  void localOverlayInstallsIntoControlPlane() {
    LocalControlPlane cp = SharedControlPlane.get();
    String caPem = CertificateAuthority.generate("hook-ca", Duration.ofDays(1)).certificatePem();
    String caB64 = Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.UTF_8));

    List<GenericKubernetesResource> applied =
        WebhookInstaller.install(
            cp, ManifestPaths.overlay("local"), "https://127.0.0.1:45123", caPem);
    assertThat(applied)
        .extracting(GenericKubernetesResource::getKind)
        .contains("CustomResourceDefinition", "ClusterRole", "MutatingWebhookConfiguration")
        .doesNotContain("Deployment");

    KubernetesClient c = cp.client();
    for (String name : CRDS) {
      CustomResourceDefinition crd =
          c.apiextensions().v1().customResourceDefinitions().withName(name).get();
      assertThat(WebhookInstaller.established(crd)).as(name).isTrue();
    }
    List<MutatingWebhook> mutating =
        c.admissionRegistration()
            .v1()
            .mutatingWebhookConfigurations()
            .withName("ironcore-maintenance")
            .get()
            .getWebhooks();
    assertThat(mutating)
        .extracting(w -> w.getClientConfig().getUrl())
        .containsExactly(
            "https://127.0.0.1:45123/mutate/capi-machine",
            "https://127.0.0.1:45123/mutate/machine",
            "https://127.0.0.1:45123/mutate/machinepool");
    assertThat(mutating)
        .allSatisfy(
            w -> {
              assertThat(w.getClientConfig().getCaBundle()).isEqualTo(caB64);
              assertThat(w.getClientConfig().getService()).isNull();
              assertThat(w.getFailurePolicy()).isEqualTo("Fail");
              assertThat(w.getSideEffects()).isEqualTo("None");
            });
    List<ValidatingWebhook> validating =
        c.admissionRegistration()
            .v1()
            .validatingWebhookConfigurations()
            .withName("ironcore-maintenance")
            .get()
            .getWebhooks();
    assertThat(validating)
        .extracting(w -> w.getClientConfig().getUrl())
        .containsExactly(
            "https://127.0.0.1:45123/validate/machine",
            "https://127.0.0.1:45123/validate/machinepool");

    // both compute CRDs serve v1alpha1 and v1alpha2 (storage), converted by our /convert
    for (String name : CRDS.subList(0, 2)) {
      CustomResourceDefinition crd =
          c.apiextensions().v1().customResourceDefinitions().withName(name).get();
      assertThat(crd.getSpec().getVersions())
          .extracting(v -> v.getName() + (v.getStorage() ? "*" : ""))
          .as(name)
          .containsExactly("v1alpha1", "v1alpha2*");
      var conversion = crd.getSpec().getConversion();
      assertThat(conversion.getStrategy()).isEqualTo("Webhook");
      assertThat(conversion.getWebhook().getConversionReviewVersions()).containsExactly("v1");
      assertThat(conversion.getWebhook().getClientConfig().getUrl())
          .isEqualTo("https://127.0.0.1:45123/convert");
      assertThat(conversion.getWebhook().getClientConfig().getCaBundle()).isEqualTo(caB64);
      assertThat(conversion.getWebhook().getClientConfig().getService()).isNull();
    }

    // installing again with another port just moves the webhooks
    WebhookInstaller.install(cp, ManifestPaths.overlay("local"), "https://127.0.0.1:45124", caPem);
    assertThat(
            c.admissionRegistration()
                .v1()
                .validatingWebhookConfigurations()
                .withName("ironcore-maintenance")
                .get()
                .getWebhooks()
                .get(0)
                .getClientConfig()
                .getUrl())
        .isEqualTo("https://127.0.0.1:45124/validate/machine");

    // served versions answer (CAPI v1beta1 and v1beta2); listing needs no webhook
    assertThat(cp.kubectl("get", "machines.v1beta1.cluster.x-k8s.io", "-A").orThrow().exitCode())
        .isZero();
    assertThat(cp.kubectl("get", "machinepools.compute.ironcore.dev").orThrow().exitCode())
        .isZero();

    // leave no webhooks behind that point at nothing: other tests share this control plane
    c.admissionRegistration()
        .v1()
        .mutatingWebhookConfigurations()
        .withName("ironcore-maintenance")
        .delete();
    c.admissionRegistration()
        .v1()
        .validatingWebhookConfigurations()
        .withName("ironcore-maintenance")
        .delete();

    // the CRD schema keeps unknown fields and leaves effect validation to the webhook (written in
    // v1alpha2, the storage version, so no conversion call is needed: no server runs here)
    cp.kubectlTool()
        .runWithInput(
            """
        apiVersion: compute.ironcore.dev/v1alpha2
        kind: MachinePool
        metadata:
          name: manifests-test-pool
        spec:
          providerID: test://pool
          taints:
          - {key: k, effect: SomethingElse, extra: kept}
          somethingIronCoreHas: {a: 1}
        """,
            "apply",
            "-f",
            "-")
        .orThrow();
    String json =
        cp.kubectl("get", "machinepools.compute.ironcore.dev", "manifests-test-pool", "-o", "json")
            .orThrow()
            .stdout();
    assertThat(json).contains("\"somethingIronCoreHas\"", "\"extra\": \"kept\"", "SomethingElse");
    cp.kubectl("delete", "machinepools.compute.ironcore.dev", "manifests-test-pool").orThrow();
  }
}
