package dev.ironcore.maintenance.server.http;

import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * {@code GET /metrics}: 200 with the Prometheus text exposition format (version 0.0.4), e.g. from
 * {@code PrometheusMeterRegistry::scrape}.
 */
public final class MetricsEndpoint implements Handler {
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
  public void handle(Context ctx) {
    ctx.status(200).contentType(CONTENT_TYPE).result(scrape.get());
  }
}
