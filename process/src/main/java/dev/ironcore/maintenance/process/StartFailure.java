package dev.ironcore.maintenance.process;

import java.io.PrintWriter;
import org.slf4j.LoggerFactory;

/**
 * How a main reports why it cannot start (a refused flag, a port taken, an unusable certificate):
 * ONE line on stderr. Before {@code --log-format} is applied, and with {@code --log-format=text},
 * it is {@code <command>: <reason>}; once {@code --log-format=json} is applied it is a JSON log
 * line at level {@code ERROR} with the reason as {@code msg} and the command as {@code logger}, as
 * controller-runtime's {@code setupLog.Error} writes it, so a log pipeline that parses JSON sees
 * why a Pod is crash-looping.
 */
public final class StartFailure {
  private StartFailure() {}

  /**
   * @param text where the text line goes (stderr, or a command line's error writer)
   * @param command the command's name, e.g. {@code webhook-server}
   * @param reason one line, without the command's name
   */
  public static void report(PrintWriter text, String command, String reason) {
    if (Logging.current() == LogFormat.JSON) {
      LoggerFactory.getLogger(command).error(reason);
      return;
    }
    text.println(command + ": " + reason);
    text.flush();
  }

  /** {@link #report(PrintWriter, String, String)} with the text line on {@code System.err}. */
  public static void report(String command, String reason) {
    report(new PrintWriter(System.err, true), command, reason);
  }
}
