package dev.ironcore.maintenance.api.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpClient.Version;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.function.Function;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.Test;

/**
 * {@link GoawayResend} against a stand-in for the JDK's client: a request that failed with the JDK
 * 17 client's {@code GOAWAY received} before any answer is sent once more over HTTP/1.1; nothing
 * else is.
 */
class GoawayResendTest {
  private static final IOException GOAWAY = new IOException("/127.0.0.1:46404: GOAWAY received");

  /** Answers each request with the next outcome: a status code, or a failure. */
  private static final class Scripted extends HttpClient {
    final List<HttpRequest> sent = new ArrayList<>();
    final List<Function<BodyHandler<?>, CompletableFuture<?>>> outcomes = new ArrayList<>();

    @SuppressWarnings("unchecked")
    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(
        HttpRequest request,
        BodyHandler<T> handler,
        HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
      sent.add(request);
      return (CompletableFuture<HttpResponse<T>>) outcomes.remove(0).apply(handler);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(
        HttpRequest request, BodyHandler<T> handler) {
      return sendAsync(request, handler, null);
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> handler) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Optional<java.net.CookieHandler> cookieHandler() {
      return Optional.empty();
    }

    @Override
    public Optional<java.time.Duration> connectTimeout() {
      return Optional.empty();
    }

    @Override
    public Redirect followRedirects() {
      return Redirect.NEVER;
    }

    @Override
    public Optional<java.net.ProxySelector> proxy() {
      return Optional.empty();
    }

    @Override
    public javax.net.ssl.SSLContext sslContext() {
      return null;
    }

    @Override
    public javax.net.ssl.SSLParameters sslParameters() {
      return null;
    }

    @Override
    public Optional<java.net.Authenticator> authenticator() {
      return Optional.empty();
    }

    @Override
    public Version version() {
      return Version.HTTP_2;
    }

    @Override
    public Optional<java.util.concurrent.Executor> executor() {
      return Optional.empty();
    }
  }

  private static Function<BodyHandler<?>, CompletableFuture<?>> fails(Throwable t) {
    return handler -> CompletableFuture.failedFuture(t);
  }

  /** The answer's headers reach the handler (the body is not read), then the request fails. */
  private static Function<BodyHandler<?>, CompletableFuture<?>> answersThenFails(Throwable t) {
    return handler -> {
      handler.apply(info(401));
      return CompletableFuture.failedFuture(t);
    };
  }

  private static Function<BodyHandler<?>, CompletableFuture<?>> answers(int code) {
    return handler -> {
      handler.apply(info(code));
      return CompletableFuture.completedFuture(new Answer(code, null));
    };
  }

  /**
   * An HTTP/2 answer of {@code code} whose body {@code "first" + "second"} reaches the handler's
   * subscriber as far as the subscriber asks, then ends, or fails with {@code failure} after the
   * first part (as the JDK 17 client fails a stream on GOAWAY).
   */
  private static Function<BodyHandler<?>, CompletableFuture<?>> answersOverHttp2(
      int code, Throwable failure) {
    return handler -> {
      HttpResponse.BodySubscriber<?> subscriber = handler.apply(info(code, Version.HTTP_2));
      subscriber.onSubscribe(
          new Flow.Subscription() {
            int sent;

            @Override
            public void request(long n) {
              for (long i = 0; i < n && sent < 3; i++) {
                sent++;
                if (sent == 1) {
                  subscriber.onNext(List.of(ByteBuffer.wrap("first".getBytes(UTF_8))));
                } else if (failure != null) {
                  subscriber.onError(failure);
                  sent = 3;
                } else if (sent == 2) {
                  subscriber.onNext(List.of(ByteBuffer.wrap("second".getBytes(UTF_8))));
                } else {
                  subscriber.onComplete();
                }
              }
            }

            @Override
            public void cancel() {
              sent = 3;
            }
          });
      return subscriber.getBody().toCompletableFuture().thenApply(body -> new Answer(code, body));
    };
  }

  private static HttpResponse.ResponseInfo info(int code) {
    return info(code, Version.HTTP_1_1);
  }

  private static HttpResponse.ResponseInfo info(int code, Version version) {
    return new HttpResponse.ResponseInfo() {
      @Override
      public int statusCode() {
        return code;
      }

      @Override
      public HttpHeaders headers() {
        return HttpHeaders.of(Map.of(), (a, b) -> true);
      }

      @Override
      public HttpClient.Version version() {
        return version;
      }
    };
  }

  private record Answer(int statusCode, Object body) implements HttpResponse<Object> {
    @Override
    public HttpRequest request() {
      return null;
    }

    @Override
    public Optional<HttpResponse<Object>> previousResponse() {
      return Optional.empty();
    }

    @Override
    public HttpHeaders headers() {
      return HttpHeaders.of(Map.of(), (a, b) -> true);
    }

    @Override
    public Optional<SSLSession> sslSession() {
      return Optional.empty();
    }

    @Override
    public URI uri() {
      return URI.create("https://127.0.0.1:6443/");
    }

    @Override
    public HttpClient.Version version() {
      return HttpClient.Version.HTTP_1_1;
    }
  }

  private static final HttpRequest POST =
      HttpRequest.newBuilder(URI.create("https://127.0.0.1:6443/apis/coordination.k8s.io/v1/x"))
          .header("Authorization", "Bearer bogus")
          .POST(HttpRequest.BodyPublishers.ofString("{}"))
          .build();

  @Test
  void aRequestFailedByGoawayBeforeItsAnswerIsSentOnceMoreOverHttp11() throws Exception {
    Scripted jdk = new Scripted();
    jdk.outcomes.add(fails(GOAWAY));
    jdk.outcomes.add(answers(401));
    HttpResponse<Void> r = new GoawayResend(jdk).sendAsync(POST, BodyHandlers.discarding()).get();
    assertThat(r.statusCode()).isEqualTo(401);
    assertThat(jdk.sent).hasSize(2);
    HttpRequest again = jdk.sent.get(1);
    assertThat(again.version()).contains(HttpClient.Version.HTTP_1_1);
    assertThat(again.method()).isEqualTo("POST");
    assertThat(again.uri()).isEqualTo(POST.uri());
    assertThat(again.headers().firstValue("Authorization")).contains("Bearer bogus");
    assertThat(again.bodyPublisher()).isEqualTo(POST.bodyPublisher());
  }

  @Test
  void onlyOnceAndOnlyForGoawayBeforeAnAnswer() {
    Scripted twice = new Scripted();
    twice.outcomes.add(fails(new CompletionException(GOAWAY)));
    twice.outcomes.add(fails(GOAWAY));
    assertFailsWith(new GoawayResend(twice), GOAWAY);
    assertThat(twice.sent).as("the HTTP/1.1 resend's failure goes to fabric8").hasSize(2);

    Scripted other = new Scripted();
    IOException reset = new IOException("Connection reset");
    other.outcomes.add(fails(reset));
    assertFailsWith(new GoawayResend(other), reset);
    assertThat(other.sent).as("other failures are fabric8's to retry").hasSize(1);

    Scripted answered = new Scripted();
    answered.outcomes.add(answersThenFails(GOAWAY));
    assertFailsWith(new GoawayResend(answered), GOAWAY);
    assertThat(answered.sent).as("an answer had begun: its body handler is taken").hasSize(1);
  }

  /**
   * fabric8 takes an answer at its headers; a GOAWAY behind the headers of a 403 failed its body
   * (seen once under make test: {@code GOAWAY received} instead of the 403's message).
   */
  @Test
  void aRefusalOverHttp2WhoseBodyIsCutByGoawayIsSentOnceMoreOverHttp11() throws Exception {
    Scripted jdk = new Scripted();
    jdk.outcomes.add(answersOverHttp2(403, GOAWAY));
    jdk.outcomes.add(answersOverHttp2(403, null));
    List<Integer> handed = new ArrayList<>();
    BodyHandler<String> strings =
        info -> {
          handed.add(info.statusCode());
          return HttpResponse.BodySubscribers.ofString(UTF_8);
        };
    HttpResponse<String> r = new GoawayResend(jdk).sendAsync(POST, strings).get();
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(r.body()).isEqualTo("firstsecond");
    assertThat(jdk.sent).hasSize(2);
    assertThat(jdk.sent.get(1).version()).contains(Version.HTTP_1_1);
    assertThat(handed).as("the cut answer never reached the handler").containsExactly(403);
  }

  @Test
  void aWholeRefusalOverHttp2ReachesTheHandlerWithItsBody() throws Exception {
    Scripted jdk = new Scripted();
    jdk.outcomes.add(answersOverHttp2(403, null));
    HttpResponse<String> r = new GoawayResend(jdk).sendAsync(POST, BodyHandlers.ofString()).get();
    assertThat(r.body()).isEqualTo("firstsecond");
    assertThat(jdk.sent).hasSize(1);
  }

  /** Only answers of 400 or more are read whole: a 200 (a watch, a list) streams as it comes. */
  @Test
  void aSuccessOverHttp2StreamsAndItsCutIsFabric8s() {
    Scripted jdk = new Scripted();
    jdk.outcomes.add(answersOverHttp2(200, GOAWAY));
    List<String> parts = new ArrayList<>();
    BodyHandler<Void> streaming =
        info ->
            HttpResponse.BodySubscribers.fromSubscriber(
                new Flow.Subscriber<List<ByteBuffer>>() {
                  @Override
                  public void onSubscribe(Flow.Subscription s) {
                    s.request(Long.MAX_VALUE);
                  }

                  @Override
                  public void onNext(List<ByteBuffer> item) {
                    item.forEach(b -> parts.add(UTF_8.decode(b).toString()));
                  }

                  @Override
                  public void onError(Throwable t) {}

                  @Override
                  public void onComplete() {}
                });
    CompletableFuture<HttpResponse<Void>> f = new GoawayResend(jdk).sendAsync(POST, streaming);
    assertThat(f).isCompletedExceptionally();
    assertThat(parts).as("the first part reached the handler at once").containsExactly("first");
    assertThat(jdk.sent).as("the handler had the answer: not sent again").hasSize(1);
  }

  @Test
  void onlyJdksBefore24NeedIt() {
    assertThat(GoawayResend.needed(17)).isTrue();
    assertThat(GoawayResend.needed(21)).isTrue();
    assertThat(GoawayResend.needed(24)).isFalse();
    assertThat(GoawayResend.needed(25)).isFalse();
  }

  private static void assertFailsWith(HttpClient client, Throwable expected) {
    CompletableFuture<HttpResponse<Void>> f = client.sendAsync(POST, BodyHandlers.discarding());
    try {
      f.get();
      throw new AssertionError("no failure");
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isSameAs(expected);
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }
}
