package dev.ironcore.maintenance.server;

import dev.ironcore.maintenance.api.selector.LabelSelector;
import dev.ironcore.maintenance.process.ProcessOptions;
import dev.ironcore.maintenance.process.VersionInfo;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Command line entry point: starts a {@link WebhookServer} and serves until the JVM is stopped; on
 * SIGTERM/SIGINT a shutdown hook stops the server first (the JVM then exits with the usual
 * 143/130). Exit code 2 for bad flags, 1 when the server cannot start (e.g. unreadable PEM files).
 */
@Command(
    name = "webhook-server",
    mixinStandardHelpOptions = true,
    versionProvider = VersionInfo.Provider.class,
    description = "Serves the IronCore maintenance admission webhooks over HTTPS.")
public final class WebhookServerMain implements Callable<Integer> {

  @Option(
      names = "--port",
      defaultValue = "9443",
      description = "HTTPS port (default ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--bind-address",
      defaultValue = "0.0.0.0",
      description = "Address to listen on (default ${DEFAULT-VALUE}).")
  String bindAddress;

  @Option(
      names = "--tls-cert-file",
      required = true,
      description = "PEM serving certificate chain, leaf first.")
  Path certFile;

  @Option(
      names = "--tls-private-key-file",
      required = true,
      description = "PEM private key of the certificate.")
  Path keyFile;

  @Option(
      names = "--capi-machine-selector",
      defaultValue = "",
      converter = SelectorConverter.class,
      description =
          "Label selector (kubectl -l syntax) of the CAPI Machines to mutate; empty selects all.")
  LabelSelector capiMachineSelector;

  @Mixin ProcessOptions process;

  /**
   * @param args command line flags, see {@code --help}
   */
  public static void main(String[] args) {
    System.exit(new CommandLine(new WebhookServerMain()).execute(args));
  }

  @Override
  public Integer call() {
    process.applyLogging();
    WebhookServerConfig config =
        WebhookServerConfig.of(certFile, keyFile)
            .withBindAddress(bindAddress)
            .withCapiMachineSelector(capiMachineSelector);
    WebhookServer server = new WebhookServer(config);
    CountDownLatch stopped = new CountDownLatch(1);
    try {
      server.start(port);
    } catch (RuntimeException e) {
      System.err.println("webhook-server: " + e.getMessage());
      return 1;
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.stop();
                  stopped.countDown();
                },
                "shutdown"));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.stop();
    }
    return 0;
  }

  /** Parses {@code --capi-machine-selector}; a bad selector is reported as a flag error. */
  static final class SelectorConverter implements CommandLine.ITypeConverter<LabelSelector> {
    @Override
    public LabelSelector convert(String value) {
      try {
        return LabelSelector.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }
}
