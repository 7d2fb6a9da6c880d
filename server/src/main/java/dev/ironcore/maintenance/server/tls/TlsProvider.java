package dev.ironcore.maintenance.server.tls;

import java.security.Security;
import java.util.Locale;
import org.conscrypt.Conscrypt;

/**
 * Which TLS implementation serves the webhook's HTTPS connections ({@code --tls-provider}).
 *
 * <p>{@link #CONSCRYPT} is Google's Conscrypt: the JSSE API over BoringSSL (native code loaded from
 * the Conscrypt jar for linux/macOS x86_64 and aarch64, windows x86_64). Its AES-GCM and
 * ChaCha20-Poly1305 run as native code from the first request; the JDK's run as Java bytecode,
 * compiled by C1 only under the shipped {@code -XX:TieredStopAtLevel=1}, where they took about a
 * third of the server's CPU per review ({@code make bench}: saturation 25–40% higher with
 * Conscrypt, same memory). {@link #JDK} is the JDK's own SunJSSE. {@link #AUTO}, the default, takes
 * Conscrypt when its native library loads on this machine and the JDK's otherwise.
 */
public enum TlsProvider {
  /** Conscrypt when its native library loads here, else the JDK's. */
  AUTO,
  /** Conscrypt (BoringSSL); refused at start when its native library does not load. */
  CONSCRYPT,
  /** The JDK's SunJSSE. */
  JDK;

  /** Name under which Conscrypt registers its JCA provider. */
  static final String CONSCRYPT_NAME = "Conscrypt";

  /**
   * Parses a flag value, case-insensitively.
   *
   * @param value {@code auto}, {@code conscrypt} or {@code jdk}
   * @throws IllegalArgumentException naming the accepted values
   */
  public static TlsProvider parse(String value) {
    for (TlsProvider provider : values()) {
      if (provider.flagValue().equalsIgnoreCase(value.strip())) {
        return provider;
      }
    }
    throw new IllegalArgumentException(
        "unknown TLS provider '" + value + "'; expected auto, conscrypt or jdk");
  }

  /**
   * @return the flag's spelling of this value, e.g. {@code conscrypt}
   */
  public String flagValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Decides, for this machine, which implementation serves; when that is Conscrypt it is registered
   * as the JVM's last JCA provider (nothing else in the process changes: only an explicit request
   * for provider {@value #CONSCRYPT_NAME} gets it, as {@link HttpsConnectors} makes).
   *
   * @return {@link #CONSCRYPT} or {@link #JDK}, never {@link #AUTO}
   * @throws IllegalStateException for {@link #CONSCRYPT} when its native library does not load on
   *     this machine (the message says why and how to fall back)
   */
  public TlsProvider resolve() {
    if (this == JDK) {
      return JDK;
    }
    if (!conscryptAvailable()) {
      if (this == CONSCRYPT) {
        throw new IllegalStateException(
            "--tls-provider=conscrypt: Conscrypt's native library does not load on "
                + System.getProperty("os.name")
                + "/"
                + System.getProperty("os.arch")
                + " ("
                + conscryptError()
                + "); use --tls-provider=jdk or auto");
      }
      return JDK;
    }
    synchronized (TlsProvider.class) {
      if (Security.getProvider(CONSCRYPT_NAME) == null) {
        Security.addProvider(Conscrypt.newProvider());
      }
    }
    return CONSCRYPT;
  }

  /**
   * @return a one-line description of what {@link #resolve()} picks here, for the start-up log,
   *     e.g. {@code "Conscrypt 2.9.0 (BoringSSL)"} or {@code "JDK SunJSSE (Conscrypt unavailable:
   *     ...)"}
   */
  public String describe() {
    if (this != JDK && conscryptAvailable()) {
      Conscrypt.Version version = Conscrypt.version();
      return "Conscrypt "
          + (version == null
              ? "?"
              : version.major() + "." + version.minor() + "." + version.patch())
          + " (BoringSSL)";
    }
    return this == JDK
        ? "JDK SunJSSE"
        : "JDK SunJSSE (Conscrypt unavailable: " + conscryptError() + ")";
  }

  private static boolean conscryptAvailable() {
    try {
      return Conscrypt.isAvailable();
    } catch (LinkageError e) {
      return false;
    }
  }

  private static String conscryptError() {
    try {
      Conscrypt.checkAvailability();
      return "available";
    } catch (Throwable e) {
      Throwable cause = e;
      while (cause.getCause() != null) {
        cause = cause.getCause();
      }
      String reason = cause.getClass().getSimpleName() + ": " + cause.getMessage();
      if (cause instanceof java.io.IOException) {
        // Conscrypt writes its library to a file before loading it
        reason =
            reason.replaceAll("[.\\s]+$", "")
                + "; unpacking it into "
                + System.getProperty(
                    "org.conscrypt.native.workdir", System.getProperty("java.io.tmpdir"))
                + ": point -Djava.io.tmpdir or -Dorg.conscrypt.native.workdir at a writable"
                + " directory not mounted noexec";
      }
      return reason;
    }
  }
}
