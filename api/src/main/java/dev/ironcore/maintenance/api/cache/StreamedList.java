package dev.ironcore.maintenance.api.cache;

import io.fabric8.kubernetes.api.model.DefaultKubernetesResourceList;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.internal.AbstractWatchManager;
import io.fabric8.kubernetes.client.dsl.internal.BaseOperation;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.impl.BaseClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.impl.DefaultSharedIndexInformer;
import io.fabric8.kubernetes.client.informers.impl.ListerWatcher;
import java.net.URL;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An informer's list, streamed instead of paged (Kubernetes "watch list", KEP-3157): one watch
 * request with {@code sendInitialEvents=true} and {@code resourceVersionMatch=NotOlderThan}, which
 * the API server answers from its watch cache with every object as an {@code ADDED} event and then
 * a {@code BOOKMARK} annotated {@code k8s.io/initial-events-end}; that request is closed there and
 * the bookmark's resourceVersion is the list's. The informer then watches as usual from it, so a
 * reconnecting watch never re-sends the whole state (fabric8's own watch-list mode does, on every
 * reconnect). For the API server this costs about half the CPU of paging through the same objects
 * ({@code bench/analysis.md}).
 *
 * <p>Where the API server refuses the streaming request ({@link #refused}: API servers before 1.27
 * and those with the {@code WatchList} feature gate off answer 422) the informer lists in pages of
 * {@code pageSize} from then on. Any other failure (a 5xx or 429, a cut connection, an {@code
 * ERROR} event, no end bookmark within {@value #TIMEOUT_SECONDS} s, or none 10 s after that, as
 * when a partition leaves the connection open) makes that one list a paged LIST; the objects
 * streamed so far are dropped, so a list is never partial. Either way is logged at INFO.
 *
 * @param <T> the resource
 */
public final class StreamedList<T extends HasMetadata>
    implements ListerWatcher<T, KubernetesResourceList<T>> {
  private static final Logger LOG = LoggerFactory.getLogger(StreamedList.class);

  /** Server-side bound of the streaming request, in seconds: it ends long before in practice. */
  static final long TIMEOUT_SECONDS = 120;

  private final BaseOperation<T, KubernetesResourceList<T>, ?> paged;
  private final HttpClient http;
  private final Class<T> type;
  private final AtomicBoolean pagedOnly = new AtomicBoolean();
  private final Duration giveUp;
  private final WatchHeartbeat heartbeat;
  private final HttpClient probeHttp;

  StreamedList(
      BaseOperation<T, KubernetesResourceList<T>, ?> paged,
      HttpClient http,
      HttpClient probeHttp,
      Class<T> type,
      WatchHeartbeat heartbeat) {
    this(paged, http, probeHttp, type, Duration.ofSeconds(TIMEOUT_SECONDS + 10), heartbeat);
  }

  /**
   * @param giveUp how long a stream may take in all before this list is paged instead (the API
   *     server ends it after {@value #TIMEOUT_SECONDS} s; this bounds a connection that stays open
   *     without answering)
   */
  StreamedList(
      BaseOperation<T, KubernetesResourceList<T>, ?> paged,
      HttpClient http,
      HttpClient probeHttp,
      Class<T> type,
      Duration giveUp,
      WatchHeartbeat heartbeat) {
    this.paged = paged;
    this.http = http;
    this.probeHttp = probeHttp;
    this.type = type;
    this.giveUp = giveUp;
    this.heartbeat = heartbeat;
    heartbeat.prober(this::probe);
  }

  /** How long a probe watch ({@link #probe}) stays open on the API server, in seconds. */
  static final long PROBE_SECONDS = 2;

  /**
   * Whether anything changed after {@code resourceVersion}: a watch from it without bookmarks that
   * the API server ends after {@value #PROBE_SECONDS} s, over the client's HTTP connection (HTTP/2
   * with kube-apiserver), not a WebSocket of its own; sent once (no retries). Only its first line
   * is read ({@link WatchProbe#read}): after a real drop on a busy resource the answer holds every
   * change since, and one is enough.
   *
   * @return completes with what it found; fails when no usable answer came within 30 s
   */
  CompletableFuture<WatchProbe.Found> probe(String resourceVersion) {
    CompletableFuture<WatchProbe.Found> found = new CompletableFuture<>();
    try {
      URL url =
          paged.appendListOptionParams(
              paged.getNamespacedUrl(),
              new ListOptionsBuilder()
                  .withWatch(true)
                  .withResourceVersion(resourceVersion)
                  .withAllowWatchBookmarks(false)
                  .withTimeoutSeconds(PROBE_SECONDS)
                  .build());
      HttpRequest request =
          probeHttp
              .newHttpRequestBuilder()
              .url(url)
              .forStreaming()
              .timeout(PROBE_SECONDS + 20, TimeUnit.SECONDS)
              .build();
      java.io.ByteArrayOutputStream firstLine = new java.io.ByteArrayOutputStream();
      probeHttp
          .consumeBytes(
              request,
              (buffers, body) -> {
                for (ByteBuffer b : buffers) {
                  while (b.hasRemaining()) {
                    byte c = b.get();
                    if (c == '\n') {
                      body.cancel();
                      complete(found, 200, firstLine);
                      return;
                    }
                    firstLine.write(c);
                  }
                }
                body.consume();
              })
          .whenComplete(
              (response, failure) -> {
                if (failure != null) {
                  found.completeExceptionally(failure);
                } else if (!response.isSuccessful()) {
                  response.body().cancel();
                  complete(found, response.code(), new java.io.ByteArrayOutputStream());
                } else {
                  response.body().consume();
                  response
                      .body()
                      .done()
                      .whenComplete((v, t) -> complete(found, 200, firstLine)); // ended: no line
                }
              });
    } catch (Exception e) {
      found.completeExceptionally(e);
    }
    return found.orTimeout(30, TimeUnit.SECONDS);
  }

  private static void complete(
      CompletableFuture<WatchProbe.Found> found, int code, java.io.ByteArrayOutputStream line) {
    if (found.isDone()) {
      return;
    }
    try {
      found.complete(
          WatchProbe.read(
              code, new String(line.toByteArray(), java.nio.charset.StandardCharsets.UTF_8)));
    } catch (RuntimeException e) {
      found.completeExceptionally(e);
    }
  }

  /**
   * An informer (not started) of {@code type} on {@code operation} (e.g. {@code
   * client.resources(X.class).inAnyNamespace()}), listing by a stream where the API server serves
   * it and in pages of {@code pageSize} objects where not. The stream carries the operation's
   * namespace only: an operation with a label or field selector must not use this.
   *
   * @param resyncMillis how often cached objects are replayed, in milliseconds (0 = never)
   */
  public static <T extends HasMetadata> SharedIndexInformer<T> informer(
      KubernetesClient client,
      Class<T> type,
      FilterWatchListDeletable<T, ?, ?> operation,
      long pageSize,
      long resyncMillis) {
    return informer(client, type, operation, pageSize, resyncMillis, WatchHeartbeat.ignored());
  }

  /**
   * As {@link #informer(KubernetesClient, Class, FilterWatchListDeletable, long, long)}, noting in
   * {@code heartbeat} every event and bookmark its watches hear.
   */
  public static <T extends HasMetadata> SharedIndexInformer<T> informer(
      KubernetesClient client,
      Class<T> type,
      FilterWatchListDeletable<T, ?, ?> operation,
      long pageSize,
      long resyncMillis,
      WatchHeartbeat heartbeat) {
    return new DefaultSharedIndexInformer<>(
        type,
        lister(client, type, operation, pageSize, heartbeat),
        resyncMillis,
        client.adapt(BaseClient.class).getExecutor());
  }

  /**
   * The lister-watcher alone (what {@link #informer} runs on): {@link #submitList} streams where
   * the API server serves it, else lists a page of {@code pageSize} objects.
   *
   * @param operation as for {@link #informer}: namespace only, no selectors
   */
  public static <T extends HasMetadata> StreamedList<T> lister(
      KubernetesClient client,
      Class<T> type,
      FilterWatchListDeletable<T, ?, ?> operation,
      long pageSize) {
    return lister(client, type, operation, pageSize, WatchHeartbeat.ignored());
  }

  @SuppressWarnings("unchecked")
  private static <T extends HasMetadata> StreamedList<T> lister(
      KubernetesClient client,
      Class<T> type,
      FilterWatchListDeletable<T, ?, ?> operation,
      long pageSize,
      WatchHeartbeat heartbeat) {
    // the probe's requests are sent once: fabric8's 10 retries would outlive the probe by minutes
    HttpClient once =
        client
            .adapt(io.fabric8.kubernetes.client.NamespacedKubernetesClient.class)
            .withRequestConfig(
                new io.fabric8.kubernetes.client.RequestConfigBuilder(
                        client.getConfiguration().getRequestConfig())
                    .withRequestRetryBackoffLimit(0)
                    .build())
            .call(KubernetesClient::getHttpClient);
    return new StreamedList<>(
        (BaseOperation<T, KubernetesResourceList<T>, ?>) operation.withLimit(pageSize),
        client.getHttpClient(),
        once,
        type,
        heartbeat);
  }

  @Override
  public CompletableFuture<KubernetesResourceList<T>> submitList(ListOptions options) {
    if (pagedOnly.get() || options.getContinue() != null) {
      return paged.submitList(options);
    }
    Stream stream = new Stream();
    try {
      URL url =
          paged.appendListOptionParams(
              paged.getNamespacedUrl(),
              new ListOptionsBuilder()
                  .withWatch(true)
                  .withSendInitialEvents(true)
                  .withResourceVersionMatch("NotOlderThan")
                  .withAllowWatchBookmarks(true)
                  .withTimeoutSeconds(TIMEOUT_SECONDS)
                  .build());
      HttpRequest request = http.newHttpRequestBuilder().url(url).forStreaming().build();
      http.consumeBytes(request, stream)
          .whenComplete(
              (response, failure) -> {
                if (failure != null) {
                  stream.fail(failure);
                } else if (!response.isSuccessful()) {
                  response.body().cancel();
                  stream.fail(
                      new KubernetesClientException(
                          "streaming list answered " + response.code(), response.code(), null));
                } else {
                  stream.opened(response.body());
                  response.body().consume();
                  response
                      .body()
                      .done()
                      .whenComplete(
                          (v, t) ->
                              stream.fail(
                                  t != null
                                      ? t
                                      : new IllegalStateException(
                                          "the stream ended before its end bookmark")));
                }
              });
    } catch (Exception e) {
      stream.fail(e);
    }
    return stream
        .result
        .handle(
            (list, failure) -> {
              if (failure == null) {
                return CompletableFuture.completedFuture(list);
              }
              if (refused(failure)) {
                pagedOnly.set(true);
                LOG.info(
                    "{}: the API server does not stream lists ({}); listing in pages",
                    paged.getApiEndpointPath(),
                    failure.getMessage());
              } else {
                LOG.info(
                    "{}: streaming list failed ({}); listing in pages this time",
                    paged.getApiEndpointPath(),
                    unwrap(failure) instanceof java.util.concurrent.TimeoutException
                        ? "no end bookmark after " + giveUp.toSeconds() + " s"
                        : unwrap(failure).toString());
              }
              return paged.submitList(options);
            })
        .thenCompose(f -> f);
  }

  /**
   * True if the API server answered the streaming request with a status that says it does not
   * stream lists and will not on a retry: 4xx (e.g. 422 where the {@code WatchList} feature gate is
   * off) but 408 and 429, and but those a paged LIST gets as well — 401 (credentials), 403 (RBAC),
   * 404 (no such resource yet) and 410 — or 501. Fresh eyes (session 39): a 403 for want of the
   * list verb switched the informer to pages for good, logged as "the API server does not stream
   * lists", and kept it paged once the RBAC was fixed.
   */
  static boolean refused(Throwable failure) {
    Throwable t = unwrap(failure);
    if (!(t instanceof KubernetesClientException)) {
      return false;
    }
    int code = ((KubernetesClientException) t).getCode();
    return code == 501
        || (code >= 400
            && code < 500
            && !java.util.Set.of(401, 403, 404, 408, 410, 429).contains(code));
  }

  private static Throwable unwrap(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause()
        : failure;
  }

  /**
   * @return true once the API server refused a streaming list: this lister lists in pages from then
   *     on
   */
  public boolean pagedOnly() {
    return pagedOnly.get();
  }

  /** Splits the body into lines and feeds them to {@link InitialEvents}. */
  private final class Stream implements AsyncBody.Consumer<List<ByteBuffer>> {
    final CompletableFuture<KubernetesResourceList<T>> result = new CompletableFuture<>();
    final InitialEvents<T> events = new InitialEvents<>(paged.getKubernetesSerialization(), type);
    private byte[] line = new byte[8192];
    private int length;

    private volatile AsyncBody body;

    Stream() {
      // a stream whose API server stops answering without closing the connection (a partition)
      // must not hold the list forever: the API server ends it after TIMEOUT_SECONDS anyway
      result
          .orTimeout(giveUp.toMillis(), TimeUnit.MILLISECONDS)
          .whenComplete(
              (list, failure) -> {
                AsyncBody b = body;
                if (failure != null && b != null) {
                  b.cancel();
                }
              });
    }

    void opened(AsyncBody b) {
      body = b;
      if (result.isCompletedExceptionally()) {
        b.cancel();
      }
    }

    void fail(Throwable t) {
      result.completeExceptionally(t);
    }

    @Override
    public void consume(List<ByteBuffer> buffers, AsyncBody body) {
      if (result.isDone()) {
        body.cancel();
        return;
      }
      try {
        for (ByteBuffer buffer : buffers) {
          if (feed(buffer)) {
            body.cancel();
            return;
          }
        }
        body.consume();
      } catch (RuntimeException e) {
        fail(e);
        body.cancel();
      }
    }

    /** Appends {@code buffer} and hands every complete line on; true once the list is complete. */
    private boolean feed(ByteBuffer buffer) {
      int n = buffer.remaining();
      if (length + n > line.length) {
        line = Arrays.copyOf(line, Math.max(line.length * 2, length + n));
      }
      int scanFrom = length;
      buffer.get(line, length, n);
      length += n;
      int start = 0;
      for (int i = scanFrom; i < length; i++) {
        if (line[i] != '\n') {
          continue;
        }
        boolean done = events.accept(line, start, i - start);
        start = i + 1;
        if (done) {
          DefaultKubernetesResourceList<T> list = new DefaultKubernetesResourceList<>();
          ListMeta meta = new ListMeta();
          meta.setResourceVersion(events.resourceVersion());
          list.setMetadata(meta);
          list.setItems(events.items());
          result.complete(list);
          return true;
        }
      }
      System.arraycopy(line, start, line, 0, length - start);
      length -= start;
      return false;
    }
  }

  /** Submits the watch, noting it and every event and bookmark it hears in the heartbeat. */
  @Override
  public CompletableFuture<AbstractWatchManager<T>> submitWatch(
      ListOptions options, Watcher<T> watcher) {
    heartbeat.heard();
    return paged.submitWatch(options, heartbeat.wrap(watcher));
  }

  @Override
  public Long getLimit() {
    return paged.getLimit();
  }

  @Override
  public int getWatchReconnectInterval() {
    return paged.getWatchReconnectInterval();
  }

  @Override
  public String getApiEndpointPath() {
    return paged.getApiEndpointPath();
  }

  @Override
  public Config getConfig() {
    return paged.getConfig();
  }
}
