package dev.ironcore.maintenance.server.http;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Supplier;
import org.eclipse.jetty.server.Request;

/**
 * {@code GET /metrics}: 200 with the Prometheus text exposition format (version 0.0.4), e.g. from
 * {@code PrometheusMeterRegistry::scrape}.
 */
public final class MetricsEndpoint implements Endpoint {
  /** The content type of the Prometheus text format. */
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final Supplier<String> scrape;

  /**
   * @param scrape returns all meters in the Prometheus text format, asked once per request
   */
  public MetricsEndpoint(Supplier<String> scrape) {
    this.scrape = Objects.requireNonNull(scrape, "scrape");
  }

  @Override
  public Reply answer(Request request) {
    return new Reply(200, CONTENT_TYPE, scrape.get().getBytes(StandardCharsets.UTF_8));
  }
}
