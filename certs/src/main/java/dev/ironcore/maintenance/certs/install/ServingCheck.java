package dev.ironcore.maintenance.certs.install;

import java.security.GeneralSecurityException;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.PKIXParameters;
import java.security.cert.PKIXReason;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.GeneralSubtree;
import org.bouncycastle.asn1.x509.NameConstraintValidatorException;
import org.bouncycastle.asn1.x509.NameConstraints;
import org.bouncycastle.asn1.x509.PKIXNameConstraintValidator;
import org.bouncycastle.cert.jcajce.JcaX509CertificateHolder;

/**
 * Whether kube-apiserver would accept a serving certificate, checked before anything is written:
 * its SANs must cover every host the webhook configurations and CRDs call ({@link HostMatch}), and
 * it must verify against the CA with PKIX path validation ({@link CertPathValidator}: validity,
 * signature, the CA's name constraints), the CA being fit to sign a TLS server certificate (a CA by
 * basicConstraints, keyCertSign when it has a keyUsage, serverAuth when it has an extended key
 * usage). Go's {@code crypto/x509} (kube-apiserver) enforces the SANs, validity, name constraints
 * and extended key usage; it does not check a root's keyUsage or basicConstraints, which RFC 5280
 * requires and which are refused here anyway (Java's own PKIX refuses such a CA).
 */
final class ServingCheck {
  private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
  private static final String ANY_USAGE = "2.5.29.37.0";
  private static final int KEY_CERT_SIGN = 5;

  private ServingCheck() {}

  /**
   * @param slots every caBundle and where its calls go
   * @return each host the API server verifies ({@link TrustSlot.Endpoint#verifiedHost()}), with the
   *     first caller and its call target, in the order of {@code slots}
   */
  static Map<String, TrustSlot> hosts(List<TrustSlot> slots) {
    Map<String, TrustSlot> out = new LinkedHashMap<>();
    slots.forEach(s -> out.putIfAbsent(s.endpoint().verifiedHost(), s));
    return out;
  }

  /**
   * @param leaf the serving certificate about to be written (or kept)
   * @param slots every caBundle and where its calls go
   * @throws Refusal naming the first host the SANs do not cover, who calls it, and SANS
   */
  static void requireCovers(X509Certificate leaf, List<TrustSlot> slots) {
    for (Map.Entry<String, TrustSlot> h : hosts(slots).entrySet()) {
      if (!HostMatch.covers(leaf, h.getKey())) {
        TrustSlot s = h.getValue();
        throw new Refusal(
            "the serving certificate's SANs ("
                + String.join(", ", HostMatch.names(leaf))
                + ") do not cover "
                + h.getKey()
                + ", which "
                + s.describe()
                + " calls ("
                + s.endpoint().describe()
                + "); add "
                + h.getKey()
                + " to SANS (--san)");
      }
    }
  }

  /**
   * @param leaf the serving certificate about to be written (or kept)
   * @param ca the CA the caBundles will trust
   * @param now when the API server would verify
   * @throws Refusal naming what about the CA or the chain kube-apiserver would refuse
   */
  static void requireVerifies(X509Certificate leaf, X509Certificate ca, Instant now) {
    String caName = CertificateInstall.describe(ca);
    if (now.isBefore(ca.getNotBefore().toInstant())) {
      // PKIX says only "validity check failed" (fresh eyes, session 46)
      throw new Refusal(
          "CA "
              + caName
              + " is not valid before "
              + ca.getNotBefore().toInstant()
              + " (now "
              + now
              + ": was it made on a machine whose clock runs ahead?); make rotate-certs replaces"
              + " it with a new CA, or use another CA");
    }
    if (ca.getBasicConstraints() < 0) {
      throw new Refusal("CA " + caName + " is not a CA (basicConstraints); use another CA");
    }
    boolean[] usage = ca.getKeyUsage();
    if (usage != null && (usage.length <= KEY_CERT_SIGN || !usage[KEY_CERT_SIGN])) {
      throw new Refusal(
          "CA "
              + caName
              + " may not sign certificates (its keyUsage lacks keyCertSign, RFC 5280); use a CA"
              + " with keyUsage keyCertSign");
    }
    List<String> eku = extendedKeyUsage(ca);
    if (eku != null && !eku.contains(SERVER_AUTH) && !eku.contains(ANY_USAGE)) {
      throw new Refusal(
          "CA "
              + caName
              + " is limited to extended key usages "
              + eku
              + " without serverAuth, so kube-apiserver would refuse a serving certificate it"
              + " issues; use a CA without that limit");
    }
    try {
      pkix(leaf, ca, now);
    } catch (CertPathValidatorException e) {
      if (e.getReason() == PKIXReason.INVALID_NAME) {
        throw nameConstraintsRefusal(leaf, caName);
      }
      throw new Refusal(
          "the serving certificate would not verify against CA "
              + caName
              + ": "
              + CaFiles.oneLine(e.getMessage())
              + "; use another CA");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("no PKIX validation in this JVM: " + e, e);
    }
  }

  /**
   * PKIX path validation of {@code leaf} under {@code ca}. The JDK takes no name constraints from a
   * trust anchor, so a self-signed CA is also put into the path, under an anchor of its own name
   * and key: the validator then checks it as an issuer (basicConstraints, keyCertSign, validity)
   * and applies its name constraints to the leaf. A CA issued by another (an intermediate in
   * ca.crt, which kube-apiserver trusts as a root) is the anchor itself, its name constraints
   * checked with BouncyCastle's validator.
   */
  private static void pkix(X509Certificate leaf, X509Certificate ca, Instant now)
      throws GeneralSecurityException {
    boolean selfIssued = ca.getSubjectX500Principal().equals(ca.getIssuerX500Principal());
    TrustAnchor anchor =
        selfIssued
            ? new TrustAnchor(ca.getSubjectX500Principal(), ca.getPublicKey(), null)
            : new TrustAnchor(ca, null);
    List<X509Certificate> path = selfIssued ? List.of(leaf, ca) : List.of(leaf);
    PKIXParameters params = new PKIXParameters(Set.of(anchor));
    params.setRevocationEnabled(false);
    params.setDate(Date.from(now));
    CertPathValidator.getInstance("PKIX")
        .validate(CertificateFactory.getInstance("X.509").generateCertPath(path), params);
    if (!selfIssued) {
      anchorNameConstraints(leaf, ca);
    }
  }

  /** The name constraints of a CA that is the trust anchor, applied to {@code leaf}'s SANs. */
  private static void anchorNameConstraints(X509Certificate leaf, X509Certificate ca) {
    byte[] ext = ca.getExtensionValue(Extension.nameConstraints.getId());
    if (ext == null) {
      return;
    }
    NameConstraints nc = NameConstraints.getInstance(ASN1OctetString.getInstance(ext).getOctets());
    PKIXNameConstraintValidator v = new PKIXNameConstraintValidator();
    if (nc.getPermittedSubtrees() != null) {
      v.intersectPermittedSubtree(nc.getPermittedSubtrees());
    }
    if (nc.getExcludedSubtrees() != null) {
      for (GeneralSubtree t : nc.getExcludedSubtrees()) {
        v.addExcludedSubtree(t);
      }
    }
    try {
      GeneralNames sans =
          GeneralNames.fromExtensions(
              new JcaX509CertificateHolder(leaf).getExtensions(), Extension.subjectAlternativeName);
      for (GeneralName g : sans == null ? new GeneralName[0] : sans.getNames()) {
        v.checkPermitted(g);
        v.checkExcluded(g);
      }
    } catch (NameConstraintValidatorException e) {
      throw nameConstraintsRefusal(leaf, CertificateInstall.describe(ca));
    } catch (java.security.cert.CertificateEncodingException e) {
      throw new IllegalStateException("cannot read the serving certificate", e);
    }
  }

  private static Refusal nameConstraintsRefusal(X509Certificate leaf, String caName) {
    return new Refusal(
        "CA "
            + caName
            + " has name constraints that do not permit the serving certificate's names ("
            + String.join(", ", HostMatch.names(leaf))
            + "), so kube-apiserver would refuse it; set SANS (--san) to names it permits, or"
            + " use a CA without name constraints");
  }

  private static List<String> extendedKeyUsage(X509Certificate ca) {
    try {
      return ca.getExtendedKeyUsage();
    } catch (CertificateParsingException e) {
      throw new Refusal("CA " + CertificateInstall.describe(ca) + ": unreadable extendedKeyUsage");
    }
  }
}
