package dev.ironcore.maintenance.api.client;

import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.net.http.HttpResponse.ResponseInfo;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * The JDK's HTTP client before JDK 24 fails every request still open on an HTTP/2 connection when
 * the server sends GOAWAY ({@code IOException: <address>: GOAWAY received}; JDK-8335181, fixed in
 * JDK 24), also the one whose answer is on its way. kube-apiserver (1.29 on, feature gate {@code
 * UnauthenticatedHTTP2DOSMitigation}) ends the HTTP/2 connection of a request it cannot
 * authenticate (401) or that carries no credentials (anonymous) that way, so a wrong token was
 * never told: fabric8 saw the IOException, retried about 22 s and reported {@code GOAWAY received}.
 * Here a request that failed with GOAWAY before its answer reached fabric8 is sent once more at
 * once over HTTP/1.1, where the API server's {@code Connection: close} only ends the connection
 * after the answer; what it answers (401, 403, or anything else) goes to fabric8 as usual, and a
 * failure again goes to fabric8's retries as before. fabric8 re-sends a request that failed without
 * an answer anyway (every method), so this sends nothing fabric8 would not.
 *
 * <p>fabric8 takes an answer as soon as its headers arrive and reads the body after, so a GOAWAY
 * right behind the headers of a 403 could still fail the body ({@code GOAWAY received} instead of
 * the 403's message; seen once in a test run of a controller start without credentials). An HTTP/2
 * answer of status 400 or more (a short Status object) is therefore read whole before fabric8's
 * body handler gets it ({@link BufferedRefusal}); if GOAWAY fails it first, the request is sent
 * again as above. Other answers (2xx, watches) stream to fabric8 as before.
 *
 * <p>Only {@link #sendAsync} (what fabric8 calls) does this; {@link #send} is passed on as is.
 */
final class GoawayResend extends HttpClient {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(GoawayResend.class);

  private final HttpClient delegate;

  GoawayResend(HttpClient delegate) {
    this.delegate = delegate;
  }

  /**
   * @param runtimeFeature the JDK's feature release ({@code Runtime.version().feature()})
   * @return whether that JDK's HTTP client fails requests on GOAWAY (before 24)
   */
  static boolean needed(int runtimeFeature) {
    return runtimeFeature < 24;
  }

  /**
   * @param builder the JDK client builder fabric8 configures
   * @return a builder passing everything to {@code builder}, whose client resends as above
   */
  static HttpClient.Builder wrap(HttpClient.Builder builder) {
    return new Builder(builder);
  }

  /**
   * @param failure what a request's future failed with
   * @return whether it is the JDK's failure of a request on a connection that got GOAWAY
   */
  static boolean isGoaway(Throwable failure) {
    Throwable t =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    return t instanceof IOException
        && t.getMessage() != null
        && t.getMessage().endsWith("GOAWAY received");
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(
      HttpRequest request, BodyHandler<T> handler) {
    return sendAsync(request, handler, null);
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(
      HttpRequest request, BodyHandler<T> handler, PushPromiseHandler<T> pushPromiseHandler) {
    AtomicBoolean handedOver = new AtomicBoolean();
    BodyHandler<T> tracked =
        info -> {
          if (info.version() == Version.HTTP_2 && info.statusCode() >= 400) {
            return new BufferedRefusal<>(info, handler, handedOver);
          }
          handedOver.set(true);
          return handler.apply(info);
        };
    return delegate
        .sendAsync(request, tracked, pushPromiseHandler)
        .exceptionallyCompose(
            e -> {
              if (handedOver.get()
                  || !isGoaway(e)
                  || request.version().orElse(null) == Version.HTTP_1_1) {
                return CompletableFuture.failedFuture(e);
              }
              LOG.debug(
                  "{} {}: GOAWAY before the whole answer, sent once more over HTTP/1.1",
                  request.method(),
                  request.uri());
              return delegate.sendAsync(
                  HttpRequest.newBuilder(request, (name, value) -> true)
                      .version(Version.HTTP_1_1)
                      .build(),
                  handler,
                  pushPromiseHandler);
            });
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> handler)
      throws IOException, InterruptedException {
    return delegate.send(request, handler);
  }

  @Override
  public java.net.http.WebSocket.Builder newWebSocketBuilder() {
    return delegate.newWebSocketBuilder();
  }

  @Override
  public Optional<CookieHandler> cookieHandler() {
    return delegate.cookieHandler();
  }

  @Override
  public Optional<Duration> connectTimeout() {
    return delegate.connectTimeout();
  }

  @Override
  public Redirect followRedirects() {
    return delegate.followRedirects();
  }

  @Override
  public Optional<ProxySelector> proxy() {
    return delegate.proxy();
  }

  @Override
  public SSLContext sslContext() {
    return delegate.sslContext();
  }

  @Override
  public SSLParameters sslParameters() {
    return delegate.sslParameters();
  }

  @Override
  public Optional<Authenticator> authenticator() {
    return delegate.authenticator();
  }

  @Override
  public Version version() {
    return delegate.version();
  }

  @Override
  public Optional<Executor> executor() {
    return delegate.executor();
  }

  /**
   * An HTTP/2 answer of status 400 or more, read whole ({@link BodySubscribers#ofByteArray}) before
   * the caller's body handler is given its headers and then its bytes in one buffer. If reading
   * fails (GOAWAY), the caller's handler was never applied, so the request may be sent again.
   *
   * @param <T> the caller's body type
   */
  private static final class BufferedRefusal<T> implements BodySubscriber<T> {
    private final BodySubscriber<byte[]> bytes = BodySubscribers.ofByteArray();
    private final CompletionStage<T> body;

    BufferedRefusal(ResponseInfo info, BodyHandler<T> handler, AtomicBoolean handedOver) {
      this.body =
          bytes
              .getBody()
              .thenCompose(
                  read -> {
                    handedOver.set(true);
                    BodySubscriber<T> subscriber = handler.apply(info);
                    subscriber.onSubscribe(new Replay(subscriber, read));
                    return subscriber.getBody();
                  });
    }

    @Override
    public CompletionStage<T> getBody() {
      return body;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      bytes.onSubscribe(subscription);
    }

    @Override
    public void onNext(List<ByteBuffer> item) {
      bytes.onNext(item);
    }

    @Override
    public void onError(Throwable throwable) {
      bytes.onError(throwable);
    }

    @Override
    public void onComplete() {
      bytes.onComplete();
    }
  }

  /** Hands a body read whole to a subscriber: its bytes at the first demand, then the end. */
  private static final class Replay implements Flow.Subscription {
    private final Flow.Subscriber<? super List<ByteBuffer>> subscriber;
    private final byte[] body;
    private final AtomicBoolean done = new AtomicBoolean();

    Replay(Flow.Subscriber<? super List<ByteBuffer>> subscriber, byte[] body) {
      this.subscriber = subscriber;
      this.body = body;
    }

    @Override
    public void request(long n) {
      if (n <= 0) {
        if (!done.getAndSet(true)) {
          subscriber.onError(new IllegalArgumentException("request " + n + " (Flow rule 3.9)"));
        }
        return;
      }
      if (!done.getAndSet(true)) {
        if (body.length > 0) {
          subscriber.onNext(List.of(ByteBuffer.wrap(body)));
        }
        subscriber.onComplete();
      }
    }

    @Override
    public void cancel() {
      done.set(true);
    }
  }

  /** Passes every setting to the JDK's builder; builds the JDK's client wrapped. */
  private static final class Builder implements HttpClient.Builder {
    private final HttpClient.Builder delegate;

    Builder(HttpClient.Builder delegate) {
      this.delegate = delegate;
    }

    @Override
    public Builder cookieHandler(CookieHandler cookieHandler) {
      delegate.cookieHandler(cookieHandler);
      return this;
    }

    @Override
    public Builder connectTimeout(Duration duration) {
      delegate.connectTimeout(duration);
      return this;
    }

    @Override
    public Builder sslContext(SSLContext sslContext) {
      delegate.sslContext(sslContext);
      return this;
    }

    @Override
    public Builder sslParameters(SSLParameters sslParameters) {
      delegate.sslParameters(sslParameters);
      return this;
    }

    @Override
    public Builder executor(Executor executor) {
      delegate.executor(executor);
      return this;
    }

    @Override
    public Builder followRedirects(Redirect policy) {
      delegate.followRedirects(policy);
      return this;
    }

    @Override
    public Builder version(Version version) {
      delegate.version(version);
      return this;
    }

    @Override
    public Builder priority(int priority) {
      delegate.priority(priority);
      return this;
    }

    @Override
    public Builder proxy(ProxySelector proxySelector) {
      delegate.proxy(proxySelector);
      return this;
    }

    @Override
    public Builder authenticator(Authenticator authenticator) {
      delegate.authenticator(authenticator);
      return this;
    }

    @Override
    public HttpClient build() {
      return new GoawayResend(delegate.build());
    }
  }
}
