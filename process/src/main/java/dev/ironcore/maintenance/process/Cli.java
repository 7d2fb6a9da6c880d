package dev.ironcore.maintenance.process;

import java.util.List;
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
    cl.registerConverter(Boolean.class, Cli::strictBoolean);
    cl.registerConverter(Boolean.TYPE, Cli::strictBoolean);
    refuseEmptyBooleans(cl.getCommandSpec());
    cl.setOverwrittenOptionsAllowed(true);
    // no @file arguments (picocli reads options from such files by default; Go's flag package and
    // so controller-runtime have none): make run's checks of CONTROLLER_ARGS and WEBHOOK_ARGS must
    // see every flag (fresh eyes: --kubeconfig in an @file passed them)
    cl.setExpandAtFiles(false);
    cl.setParameterExceptionHandler(Cli::oneLine);
    cl.setExecutionExceptionHandler(Cli::failed);
    return cl;
  }

  /**
   * picocli takes {@code --flag=} (an empty value attached) on a boolean flag without converting
   * it, as on, and on a negatable one's {@code --no-flag=} as the opposite of what it says: each
   * boolean option gets a preprocessor that refuses it, as {@link #strictBoolean} refuses other
   * values.
   */
  private static void refuseEmptyBooleans(CommandLine.Model.CommandSpec spec) {
    for (CommandLine.Model.OptionSpec option : List.copyOf(spec.options())) {
      if (option.type() != Boolean.TYPE && option.type() != Boolean.class) {
        continue;
      }
      spec.remove(option);
      spec.addOption(
          CommandLine.Model.OptionSpec.builder(option)
              .preprocessor(
                  (args, command, arg, info) -> {
                    if ("=".equals(info.get("separator"))
                        && !args.isEmpty()
                        && args.peek().isEmpty()) {
                      // named as picocli names the flag of any other bad value (fresh eyes,
                      // session 51: the line did not say which flag, in a long argument list)
                      String name = ((CommandLine.Model.OptionSpec) arg).longestName();
                      if (Boolean.TRUE.equals(info.get("negated"))) {
                        name = command.negatableOptionTransformer().makeNegative(name, command);
                      }
                      throw new CommandLine.ParameterException(
                          command.commandLine(),
                          "Invalid value for option '"
                              + name
                              + "': '' is not true or false: give the flag alone, or =true or"
                              + " =false");
                    }
                    return false;
                  })
              .build());
    }
  }

  /**
   * A boolean flag's attached value ({@code --leader-elect=false}): {@code true} or {@code false},
   * any case, as Go's flag package takes (besides its 1/0/t/f); anything else, the empty value too,
   * is refused (fresh eyes, session 44: picocli read {@code --no-eviction-warnings=} as the
   * opposite of what it says, and {@code --leader-elect=} as off).
   */
  static Boolean strictBoolean(String value) {
    if ("true".equalsIgnoreCase(value) || "false".equalsIgnoreCase(value)) {
      return Boolean.valueOf(value);
    }
    throw new CommandLine.TypeConversionException("'" + value + "' is not true or false");
  }

  /**
   * An exception out of a main's {@code call()} (the API server unreachable, a kubeconfig that is
   * not YAML): ONE line, {@code <command>: <reason>} with the messages of its causes, exit code 1,
   * as for a port already taken; the stack trace only at {@code --zap-log-level=debug}.
   */
  private static int failed(Exception e, CommandLine cl, CommandLine.ParseResult parsed) {
    StartFailure.report(cl.getErr(), cl.getCommandName(), reason(e));
    org.slf4j.LoggerFactory.getLogger(cl.getCommandName()).debug("stack trace", e);
    return 1;
  }

  /**
   * The messages of {@code e} and its causes, joined by {@code ": "}, on one line; a message that
   * repeats an earlier one is left out, and so are fabric8's "An error has occurred." and a cause
   * without a message that wraps another (its cause says what happened); a throwable without one is
   * otherwise named by its class (the JDK's message-less {@code ConnectException} as {@code cannot
   * connect (ConnectException)}, after which nothing more is added). Also for a start that fails
   * outside {@code call()} (the controller's loops, started once it leads).
   */
  public static String reason(Throwable e) {
    StringBuilder out = new StringBuilder();
    java.util.Set<Throwable> seen = new java.util.HashSet<>();
    for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
      String message = t.getMessage();
      boolean nameless = message == null || message.isBlank();
      boolean wraps = t.getCause() != null && t.getCause() != t;
      if (wraps
          && t != e
          && (FABRIC8_GENERIC.equals(message)
              || (nameless && !(t instanceof java.net.ConnectException)))) {
        continue; // fabric8's "An error has occurred." or a message-less wrapper: its cause says it
      }
      String part = nameless ? nameless(t) : flat(message);
      if (out.toString().contains(part)) {
        continue;
      }
      if (out.length() > 0) {
        out.append(": ");
      }
      out.append(part);
      if (t instanceof java.net.ConnectException) {
        break; // what lies under it (a ClosedChannelException) adds nothing
      }
    }
    return out.toString();
  }

  /** fabric8's message for a request that failed without an answer. */
  private static final String FABRIC8_GENERIC = "An error has occurred.";

  /** A throwable without a message, by its class; the JDK's ConnectException says what it means. */
  private static String nameless(Throwable t) {
    return t instanceof java.net.ConnectException
        ? "cannot connect (ConnectException)"
        : t.getClass().getSimpleName();
  }

  private static int oneLine(CommandLine.ParameterException e, String[] args) {
    CommandLine cl = e.getCommandLine();
    StartFailure.report(
        cl.getErr(), cl.getCommandName(), flat(String.valueOf(firstCause(e, args))));
    return cl.getCommandSpec().exitCodeOnInvalidInput();
  }

  /**
   * What to tell the user first. picocli checks required options before it reports arguments it did
   * not match, so {@code --tls-cert-fil=a.crt} was answered with "Missing required option
   * '--tls-cert-file'"; the unknown name is the mistake to name, with picocli's suggestions ({@code
   * Unknown option: '--tls-cert-fil=a.crt' (did you mean --tls-cert-file?)}).
   */
  private static String firstCause(CommandLine.ParameterException e, String[] args) {
    CommandLine cl = e.getCommandLine();
    java.util.List<String> unmatched = cl.getUnmatchedArguments();
    CommandLine.UnmatchedArgumentException unknown =
        e instanceof CommandLine.UnmatchedArgumentException u
            ? u
            : unmatched.isEmpty()
                ? null
                : new CommandLine.UnmatchedArgumentException(cl, unmatched);
    if (unknown == null) {
      return e.getMessage();
    }
    java.util.List<String> suggestions = unknown.getSuggestions();
    return suggestions.isEmpty()
        ? unknown.getMessage() + booleanValueHint(cl.getCommandSpec(), unmatched, args)
        : unknown.getMessage() + " (did you mean " + String.join(" or ", suggestions) + "?)";
  }

  /**
   * For {@code --leader-elect true}: a boolean flag takes no separate value (as with Go's flag
   * package), so picocli reports {@code true} as an unmatched argument; the hint names the form
   * that works ({@code --leader-elect=true}). Empty unless the first unmatched argument is {@code
   * true} or {@code false} right after a boolean option.
   */
  static String booleanValueHint(
      CommandLine.Model.CommandSpec spec, List<String> unmatched, String[] args) {
    if (unmatched.isEmpty() || args == null) {
      return "";
    }
    String value = unmatched.get(0);
    if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
      return "";
    }
    for (int i = 1; i < args.length; i++) {
      if (args[i].equals(value)) {
        CommandLine.Model.OptionSpec option = spec.findOption(args[i - 1]);
        if (option != null && option.typeInfo().isBoolean()) {
          return " (a boolean flag takes its value after '=': "
              + args[i - 1]
              + "="
              + value.toLowerCase(java.util.Locale.ROOT)
              + ")";
        }
      }
    }
    return "";
  }

  /**
   * @param spec a parsed command's spec
   * @param name an option's name, e.g. {@code --kubeconfig}
   * @return the last value given to that option on the command line, as typed (before any
   *     converter), or {@code ""} when it was not given: for messages that name what the user wrote
   */
  public static String lastValue(CommandLine.Model.CommandSpec spec, String name) {
    List<String> given = spec.findOption(name).originalStringValues();
    return given.isEmpty() ? "" : given.get(given.size() - 1);
  }

  /** {@code text} on one line (picocli's and some exceptions' messages span several). */
  private static String flat(String text) {
    return text.replaceAll("\\s*\\R\\s*", " ").strip();
  }
}
