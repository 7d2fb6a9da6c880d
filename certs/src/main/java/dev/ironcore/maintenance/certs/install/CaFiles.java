package dev.ironcore.maintenance.certs.install;

import dev.ironcore.maintenance.certs.CertificateAuthority;
import dev.ironcore.maintenance.certs.Renewal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The CA kept in a local directory: {@code ca.crt}/{@code ca.key} (the current CA) and, while a
 * rotation is under way, {@code ca-next.crt}/{@code ca-next.key} (the CA being rotated to). Every
 * file is written to a temporary name and renamed into place, so a kill never leaves half a file;
 * {@code ca-next.*} is removed only after it has been copied to {@code ca.*}.
 */
public final class CaFiles {
  private final Path dir;

  /**
   * @param dir the directory (created on first write)
   */
  public CaFiles(Path dir) {
    this.dir = dir.toAbsolutePath();
  }

  /** The directory. */
  public Path dir() {
    return dir;
  }

  /**
   * What the directory holds.
   *
   * @param current {@code ca.*}; empty when absent, or when a rotation is pending and the files are
   *     mid-promotion
   * @param next {@code ca-next.*}: a rotation is under way
   * @param notes what was found and is not used, for the user (e.g. a lone {@code ca-next.key})
   */
  public record State(
      Optional<CertificateAuthority> current,
      Optional<CertificateAuthority> next,
      List<String> notes) {}

  /**
   * Reads and checks the CA files.
   *
   * @param now to judge expiry
   * @param refuseExpired whether an expired current CA is bad input (for {@code certs}; {@code
   *     rotate-certs} replaces it)
   * @throws Refusal when a file is empty, malformed, the key does not match, only one of a pair
   *     exists, or (with {@code refuseExpired}) the current CA has expired
   */
  public State read(Instant now, boolean refuseExpired) {
    Optional<CertificateAuthority> next = pair("ca-next.crt", "ca-next.key", true);
    if (next.isPresent()) {
      expiredCheck(next.get(), "ca-next.crt", now, true);
      // ca.* may be half-promoted after a kill: the rotation rewrites it, so it is not checked.
      return new State(Optional.empty(), next, List.of());
    }
    Optional<CertificateAuthority> current = pair("ca.crt", "ca.key", false);
    current.ifPresent(ca -> expiredCheck(ca, "ca.crt", now, refuseExpired));
    return new State(current, Optional.empty(), loneNextKey());
  }

  /**
   * A {@code ca-next.key} without {@code ca-next.crt} is not used (a rotation overwrites it): the
   * end of a promotion when it is the key in {@code ca.key} (said nothing of), else a rotation
   * stopped while it saved its new CA (the key is written first; nothing trusts that CA yet) or a
   * pending CA whose certificate was removed, said in a note (fresh eyes, session 46: make
   * rotate-certs overwrote it without a word; refusing it instead would stop the rotation that a
   * kill inside {@link #writeNext} leaves to be resumed, as the review of the fix found).
   */
  private List<String> loneNextKey() {
    Path k = dir.resolve("ca-next.key");
    if (!Files.exists(k) || Files.exists(dir.resolve("ca-next.crt"))) {
      return List.of();
    }
    if (keyOf(dir.resolve("ca.crt"), k)) {
      return List.of();
    }
    return List.of(
        k
            + " has no ca-next.crt beside it and is not the key in ca.key (a rotation stopped while"
            + " it saved its new CA, or the certificate of a pending CA was removed): not used; the"
            + " next rotation overwrites it");
  }

  /** Writes {@code ca.crt} and {@code ca.key}. */
  public void writeCurrent(CertificateAuthority ca) {
    write("ca.key", ca.privateKeyPem(), true);
    write("ca.crt", ca.certificatePem(), false);
  }

  /** Writes {@code ca-next.crt} and {@code ca-next.key}. */
  public void writeNext(CertificateAuthority ca) {
    write("ca-next.key", ca.privateKeyPem(), true);
    write("ca-next.crt", ca.certificatePem(), false);
  }

  /** Copies {@code ca-next.*} over {@code ca.*}, then deletes {@code ca-next.*}. */
  public void promoteNext(CertificateAuthority next) {
    writeCurrent(next);
    try {
      Files.deleteIfExists(dir.resolve("ca-next.crt"));
      Files.deleteIfExists(dir.resolve("ca-next.key"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove ca-next.* in " + dir, e);
    }
  }

  private Optional<CertificateAuthority> pair(String crt, String key, boolean loneKeyIsLeftover) {
    Path c = dir.resolve(crt);
    Path k = dir.resolve(key);
    boolean hasC = Files.exists(c);
    boolean hasK = Files.exists(k);
    if (!hasC && !hasK) {
      return Optional.empty();
    }
    if (!hasC && loneKeyIsLeftover) {
      return Optional.empty(); // not used: loneNextKey says why
    }
    if (!hasC || !hasK) {
      throw new Refusal(
          (hasC ? k : c)
              + " is missing ("
              + (hasC ? c : k)
              + " exists); restore it or remove both");
    }
    try {
      return Optional.of(
          CertificateAuthority.parse(
              Files.readString(c), Files.readString(k), c.toString(), k.toString()));
    } catch (IOException e) {
      throw new Refusal("cannot read " + c + " / " + k + ": " + e.getMessage());
    } catch (IllegalArgumentException e) {
      throw new Refusal("bad CA: " + oneLine(e.getMessage()));
    }
  }

  /**
   * True when {@code key} holds the private key of the certificate in {@code crt} (in any PEM form:
   * fresh eyes, session 46, compared encodings, and a SEC1 copy of ca.key was "not the key").
   */
  private static boolean keyOf(Path crt, Path key) {
    try {
      if (!Files.exists(crt)) {
        return false;
      }
      // parse checks that the key belongs to the certificate
      CertificateAuthority.parse(
          Files.readString(crt), Files.readString(key), crt.toString(), key.toString());
      return true;
    } catch (IOException e) {
      throw new Refusal("cannot read " + crt + " / " + key + ": " + e.getMessage());
    } catch (IllegalArgumentException e) {
      return false; // not a key or no certificate: not the promoted one
    }
  }

  private void expiredCheck(CertificateAuthority ca, String name, Instant now, boolean refuse) {
    if (refuse && Renewal.expired(ca.certificate(), now)) {
      throw new Refusal(
          dir.resolve(name)
              + " expired at "
              + ca.certificate().getNotAfter().toInstant()
              + "; make rotate-certs replaces it with a new CA");
    }
  }

  private void write(String name, String text, boolean secret) {
    try {
      Files.createDirectories(dir);
      Path tmp = dir.resolve(name + ".tmp");
      if (secret) {
        dev.ironcore.maintenance.certs.PrivateFiles.write(tmp, text);
      } else {
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
      }
      Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot write " + dir.resolve(name) + ": " + WritableDir.why(e), e);
    }
  }

  static String oneLine(String s) {
    return s == null ? "" : s.replaceAll("\\s*\\R\\s*", " ");
  }
}
