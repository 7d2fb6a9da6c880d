package dev.ironcore.maintenance.certs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;

/**
 * A leaf certificate with its private key, both as PEM text.
 *
 * @param certificatePem one {@code CERTIFICATE} block
 * @param privateKeyPem the key as PKCS#8 ({@code -----BEGIN PRIVATE KEY-----})
 */
public record IssuedCertificate(String certificatePem, String privateKeyPem) {

  /** The parsed certificate. */
  public X509Certificate certificate() {
    return Pem.decodeCertificate(certificatePem);
  }

  /** The parsed private key. */
  public PrivateKey privateKey() {
    return Pem.decodePrivateKey(privateKeyPem);
  }

  /**
   * Writes the certificate and the key (UTF-8), creating parent directories; the key file gets
   * owner-only permissions where the file system supports POSIX permissions.
   *
   * @throws UncheckedIOException if a file cannot be written
   */
  public void writeTo(Path certFile, Path keyFile) {
    writeFile(certFile, certificatePem, false);
    writeFile(keyFile, privateKeyPem, true);
  }

  static void writeFile(Path file, String text, boolean secret) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      if (secret) {
        PrivateFiles.write(file, text);
      } else {
        Files.writeString(file, text, StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
