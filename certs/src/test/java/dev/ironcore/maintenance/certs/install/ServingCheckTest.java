package dev.ironcore.maintenance.certs.install;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ironcore.maintenance.certs.CaBundle;
import dev.ironcore.maintenance.certs.CertificateAuthority;
import dev.ironcore.maintenance.certs.ServingPair;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Serving certificates kube-apiserver would refuse are found before anything is written. */
class ServingCheckTest {
  private static final List<String> DEFAULT_DNS =
      List.of(
          "ironcore-maintenance-webhook",
          "ironcore-maintenance-webhook.ironcore-maintenance-system.svc");

  private static X509Certificate leaf(CertificateAuthority ca, List<String> dns, List<String> ips) {
    return ServingPair.of(ca.issueServing("svc", dns, ips, Duration.ofHours(1))).leaf();
  }

  private static TrustSlot urlSlot(String url) {
    return new TrustSlot(
        "MutatingWebhookConfiguration ironcore-maintenance",
        "machine.ironcore.dev",
        CaBundle.empty(),
        new TrustSlot.Endpoint(0, url, null, null, 443));
  }

  private static TrustSlot serviceSlot(String namespace, String name) {
    return new TrustSlot(
        "CustomResourceDefinition machines.compute.ironcore.dev",
        "conversion",
        CaBundle.empty(),
        new TrustSlot.Endpoint(0, null, namespace, name, 443));
  }

  @Test
  void sansThatDoNotCoverTheUrlsHostAreRefusedNamingItTheCallerAndSans() {
    CertificateAuthority ca = CertificateAuthority.generate("ca", Duration.ofDays(1));
    assertThatThrownBy(
            () ->
                ServingCheck.requireCovers(
                    leaf(ca, List.of("foo.example.com"), List.of()),
                    List.of(urlSlot("https://127.0.0.1:40123/validate"))))
        .isInstanceOf(Refusal.class)
        .hasMessage(
            "the serving certificate's SANs (foo.example.com) do not cover 127.0.0.1, which"
                + " MutatingWebhookConfiguration ironcore-maintenance [machine.ironcore.dev] calls"
                + " (https://127.0.0.1:40123/validate); add 127.0.0.1 to SANS (--san)");
  }

  @Test
  void aServiceIsCalledAsNameNamespaceSvc() {
    CertificateAuthority ca = CertificateAuthority.generate("ca", Duration.ofDays(1));
    List<TrustSlot> slots =
        List.of(
            urlSlot("https://[::1]:9443/convert"),
            serviceSlot("ironcore-maintenance-system", "ironcore-maintenance-webhook"));
    assertThatCode(() -> ServingCheck.requireCovers(leaf(ca, DEFAULT_DNS, List.of("::1")), slots))
        .doesNotThrowAnyException();
    assertThatThrownBy(
            () ->
                ServingCheck.requireCovers(
                    leaf(ca, List.of("ironcore-maintenance-webhook"), List.of("::1")), slots))
        .hasMessageContaining(
            "do not cover ironcore-maintenance-webhook.ironcore-maintenance-system.svc, which"
                + " CustomResourceDefinition machines.compute.ironcore.dev [conversion] calls"
                + " (service ironcore-maintenance-system/ironcore-maintenance-webhook:443)");
  }

  @Test
  void ourOwnCaVerifies() {
    CertificateAuthority ca = CertificateAuthority.generate("ca", Duration.ofDays(1));
    assertThatCode(
            () ->
                ServingCheck.requireVerifies(
                    leaf(ca, DEFAULT_DNS, List.of("127.0.0.1")), ca.certificate(), Instant.now()))
        .doesNotThrowAnyException();
  }

  @Test
  void aCaWhoseNameConstraintsDoNotPermitTheSansIsRefused() throws Exception {
    CertificateAuthority ca = UserCas.nameConstrained();
    assertThatThrownBy(
            () ->
                ServingCheck.requireVerifies(
                    leaf(ca, DEFAULT_DNS, List.of()), ca.certificate(), Instant.now()))
        .isInstanceOf(Refusal.class)
        .hasMessageStartingWith("CA CN=user-ca-example-com (serial ")
        .hasMessageEndingWith(
            " has name constraints that do not permit the serving certificate's names ("
                + String.join(", ", DEFAULT_DNS)
                + "), so kube-apiserver would refuse it; set SANS (--san) to names it permits,"
                + " or use a CA without name constraints");
    assertThatCode(
            () ->
                ServingCheck.requireVerifies(
                    leaf(ca, List.of("webhook.example.com"), List.of()),
                    ca.certificate(),
                    Instant.now()))
        .doesNotThrowAnyException();
  }

  @Test
  void aCaWithoutKeyCertSignIsRefused() throws Exception {
    CertificateAuthority ca = UserCas.withoutKeyCertSign();
    assertThatThrownBy(
            () ->
                ServingCheck.requireVerifies(
                    leaf(ca, DEFAULT_DNS, List.of()), ca.certificate(), Instant.now()))
        .isInstanceOf(Refusal.class)
        .hasMessageContaining(
            "may not sign certificates (its keyUsage lacks keyCertSign, RFC 5280)");
  }

  @Test
  void aLeafOfAnotherCaIsRefused() {
    CertificateAuthority ca = CertificateAuthority.generate("ca", Duration.ofDays(1));
    CertificateAuthority other = CertificateAuthority.generate("other", Duration.ofDays(1));
    assertThatThrownBy(
            () ->
                ServingCheck.requireVerifies(
                    leaf(other, DEFAULT_DNS, List.of()), ca.certificate(), Instant.now()))
        .isInstanceOf(Refusal.class)
        .hasMessageStartingWith("the serving certificate would not verify against CA CN=ca");
  }
}
