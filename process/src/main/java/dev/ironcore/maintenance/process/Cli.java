package dev.ironcore.maintenance.process;

import picocli.CommandLine;

/**
 * The picocli {@link CommandLine} every main of ours runs: a flag given more than once takes its
 * last value (as Go's flag package does, so {@code make run CONTROLLER_ARGS='--resync-period=30s'}
 * can override a flag {@code make run} already passes), and a bad flag is reported as ONE line on
 * stderr, {@code <command>: <reason>} (a JSON log line once {@code --log-format=json} is applied:
 * {@link StartFailure}), with exit code 2 (picocli's usage help is not printed; {@code --help}
 * prints it).
 */
public final class Cli {
  private Cli() {}

  /**
   * @param command an {@code @Command}-annotated object
   * @return its command line, configured as above
   */
  public static CommandLine of(Object command) {
    CommandLine cl = new CommandLine(command);
    cl.setOverwrittenOptionsAllowed(true);
    cl.setParameterExceptionHandler(Cli::oneLine);
    return cl;
  }

  private static int oneLine(CommandLine.ParameterException e, String[] args) {
    CommandLine cl = e.getCommandLine();
    String reason = String.valueOf(e.getMessage()).replaceAll("\\s*\\R\\s*", " ").strip();
    StartFailure.report(cl.getErr(), cl.getCommandName(), reason);
    return cl.getCommandSpec().exitCodeOnInvalidInput();
  }
}
