package dev.ironcore.maintenance.process;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * Logging of both processes until their main applies the log-format flag ({@link
 * Logging#configure(LogFormat)}): text on stderr ({@link Logging#TEXT_PATTERN}), root level INFO
 * (or {@code -Dironcore.maintenance.log.level=WARN}, as the benchmarks set it); fabric8's
 * version-usage warnings off (it warns on every use of a v1alpha1/v1beta2 resource; IronCore and
 * CAPI versions are what they are), Jetty at WARN. The same levels hold for JSON.
 *
 * <p>Set in code, registered with logback's {@link Configurator} service, rather than in a {@code
 * logback.xml}: reading XML costs logback's Joran configurator and the JDK's XML parser, about 400
 * classes and a few MiB of metaspace in a process that otherwise loads about 5,000. A {@code
 * logback-test.xml} on the classpath or {@code -Dlogback.configurationFile} still wins: then this
 * configurator steps aside.
 */
public final class DefaultLogging extends ContextAwareBase implements Configurator {
  /** System property with the root level; default {@code INFO}. */
  public static final String LEVEL_PROPERTY = "ironcore.maintenance.log.level";

  /** The status message this configurator leaves in logback's status list once it has run. */
  public static final String CONFIGURED = "logging configured in code by DefaultLogging";

  /** For logback's service loader. */
  public DefaultLogging() {}

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    ClassLoader loader = DefaultLogging.class.getClassLoader();
    if (System.getProperty("logback.configurationFile") != null
        || (loader != null && loader.getResource("logback-test.xml") != null)) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
    console.setContext(context);
    console.setName(Logging.APPENDER);
    console.setTarget("System.err");
    console.setEncoder(Logging.textEncoder(context));
    console.start();
    context
        .getLogger("io.fabric8.kubernetes.client.dsl.internal.VersionUsageUtils")
        .setLevel(Level.ERROR);
    // fabric8 says at DEBUG, for every custom resource it decodes, that setting apiVersion and kind
    // does nothing: two lines per MachinePool review at --zap-log-level=debug, no information
    context.getLogger("io.fabric8.kubernetes.client.CustomResource").setLevel(Level.INFO);
    context.getLogger("org.eclipse.jetty").setLevel(Level.WARN);
    // When a watch's connection drops without a close frame (the API server went away), fabric8
    // echoes the JDK's status 1006, which the JDK refuses to send: a WARN with a 40-line stack
    // trace
    // per watch, and a second WARN; nothing is wrong beyond the drop, which the informers handle
    // (they watch again; the controller's log that at INFO)
    context
        .getLogger("io.fabric8.kubernetes.client.jdkhttp.JdkWebSocketImpl")
        .setLevel(Level.ERROR);
    // an informer's failed list or watch that fabric8 retries: a WARN with the whole stack trace
    // per attempt beside the controller's own one-line WARN of the same failure
    // (SupervisedInformer; fresh eyes: 183 lines in the 60 s before a start gave up); what fabric8
    // gives up on stays at ERROR
    context
        .getLogger("io.fabric8.kubernetes.client.informers.impl.cache.Reflector")
        .setLevel(Level.ERROR);
    // a watch that cannot reconnect (the API server down) logs "Unknown Watch error received N
    // times without progress" at INFO with the whole stack trace, each attempt (fresh eyes: 369
    // lines in 110 s); the informers' own WARN says the watch is lost, in one line
    context
        .getLogger("io.fabric8.kubernetes.client.dsl.internal.AbstractWatchManager")
        .setLevel(Level.WARN);
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.toLevel(System.getProperty(LEVEL_PROPERTY), Level.INFO));
    root.addAppender(console);
    addInfo(CONFIGURED);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }
}
