package dev.ironcore.maintenance.certs.install;

/**
 * Bad input found before anything was written (empty, garbage or expired CA, a key that does not
 * match its certificate, a missing object, a Secret of the wrong type). The message is one line
 * meant for the user; the CLI prints it and exits non-zero.
 */
public final class Refusal extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message one line: what is wrong and, where it helps, what to do
   */
  public Refusal(String message) {
    super(message);
  }
}
