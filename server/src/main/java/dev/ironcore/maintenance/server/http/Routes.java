package dev.ironcore.maintenance.server.http;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.ObjIntConsumer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Invocable.InvocationType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The webhook server's routing on Jetty's core handler API (no servlet container): exact paths, one
 * {@link Endpoint} per method and path. A trailing slash is ignored ({@code /readyz/} is {@code
 * /readyz}); a GET route also answers HEAD (status and headers, no body, as Go's net/http serves
 * controller-runtime's probes). An unknown path gets 404, a known path with another method 405 with
 * {@code Allow}; an endpoint that throws gets 500 (when nothing was sent yet). Add every route
 * before the server starts.
 */
public final class Routes extends Handler.Abstract {
  private static final Logger LOG = LoggerFactory.getLogger(Routes.class);

  /**
   * Largest body answered (over HTTP/1.x) on the thread that read it: 64 KiB. An admission review
   * of a Machine is about 5 KB; a ConversionReview of a dozen objects fits; its CPU, a fraction of
   * a millisecond, may run on a thread that also reads other connections.
   */
  static final long INLINE_LIMIT_BYTES = 64L * 1024;

  /**
   * The most body bytes read for an endpoint: {@link ReviewEndpoint#MAX_BODY_BYTES}, the largest
   * limit of any endpoint (a {@link ReviewEndpoint} refuses a larger one).
   */
  static final long BODY_LIMIT_BYTES = ReviewEndpoint.MAX_BODY_BYTES;

  private final Map<String, Map<String, Endpoint>> byPath = new LinkedHashMap<>();
  private final BodyBudget budget;
  private final java.time.Duration deadline;
  private final ObjIntConsumer<String> answeredEarly;

  /**
   * @param budget how many bytes of request bodies are read and answered at once; a request over it
   *     waits, unread, and gets 503 after the budget's wait
   */
  public Routes(BodyBudget budget) {
    this(budget, (path, status) -> {});
  }

  /**
   * @param answeredEarly called with the registered path and the status of every request answered
   *     here before its endpoint ran: 503 (no room in the budget within its wait) and 408 (its body
   *     did not arrive within the deadline), e.g. to count them with the endpoints' answers
   */
  public Routes(BodyBudget budget, ObjIntConsumer<String> answeredEarly) {
    this(budget, BodyPrefetch.DEADLINE, answeredEarly);
  }

  /**
   * @param deadline how long a body may take to arrive before it is answered 408 ({@link
   *     BodyPrefetch#DEADLINE} outside tests)
   */
  Routes(BodyBudget budget, java.time.Duration deadline) {
    this(budget, deadline, (path, status) -> {});
  }

  Routes(BodyBudget budget, java.time.Duration deadline, ObjIntConsumer<String> answeredEarly) {
    this.budget = Objects.requireNonNull(budget, "budget");
    this.deadline = Objects.requireNonNull(deadline, "deadline");
    this.answeredEarly = Objects.requireNonNull(answeredEarly, "answeredEarly");
  }

  /**
   * @param path exact path, e.g. {@code /mutate/machine}
   * @return this
   */
  public Routes post(String path, Endpoint endpoint) {
    return add("POST", path, endpoint);
  }

  /**
   * @param path exact path, e.g. {@code /healthz}
   * @return this
   */
  public Routes get(String path, Endpoint endpoint) {
    return add("GET", path, endpoint);
  }

  private Routes add(String method, String path, Endpoint endpoint) {
    Objects.requireNonNull(endpoint, "endpoint");
    Endpoint old =
        byPath.computeIfAbsent(normalize(path), p -> new LinkedHashMap<>()).put(method, endpoint);
    if (old != null) {
      throw new IllegalArgumentException(method + " " + path + " is already routed");
    }
    return this;
  }

  /**
   * Non-blocking: Jetty calls {@link #handle} on the thread that parsed the request, and no thread
   * ever waits for a request's body. The body is read as it arrives ({@link BodyPrefetch}), up to
   * {@link #BODY_LIMIT_BYTES} and one byte more; then an HTTP/1.x request with a body of at most
   * {@link #INLINE_LIMIT_BYTES} is answered on the thread that read its last bytes (its connection
   * carries one request at a time, so nothing waits behind it), any other on a thread of the
   * server's pool (an HTTP/2 connection's other streams are read meanwhile; a large body's CPU
   * stays off the threads that read connections). An unknown path or method, a GET (its endpoints
   * read no body) and a Content-Length over the limit are answered at once without reading the
   * body. A body (its declared length, or the largest size for a body of unknown length once its
   * first bytes came) is read only when it has room in the {@link BodyBudget}, else waits unread
   * and gets 503 after the budget's wait; one that does not arrive within the deadline gets 408. A
   * reply sent before the body was read to its end is followed by {@link BodyDrain}. (One-off
   * measurement, HTTP/1.1 saturation with the shipped settings: about a quarter less CPU per review
   * and a fifth more reviews a second than with every request on a pool thread; {@code
   * bench/analysis.md}.)
   */
  @Override
  public InvocationType getInvocationType() {
    return InvocationType.NON_BLOCKING;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    Endpoint endpoint = route(request, response);
    long declared = request.getLength();
    if (endpoint instanceof Refusal || declared > BODY_LIMIT_BYTES) {
      // answered without reading the body (a ReviewEndpoint refuses a declared oversize body
      // before it reads)
      answer(BodyPrefetch.Replay.of(request), response, callback, endpoint);
      return true;
    }
    if (!"POST".equals(request.getMethod())) {
      // GET endpoints read no body: a declared one is neither waited for nor given room in the
      // budget (it is drained after the reply)
      BodyPrefetch.Replay unread = BodyPrefetch.Replay.of(request);
      if (oneRequestAtATime(request)) {
        answer(unread, response, callback, endpoint);
      } else {
        dispatch(unread, response, callback, endpoint);
      }
      return true;
    }
    if (declared > 0) {
      // room in the budget first (the body's bytes and room for its tree), then the body's
      // bytes (unread while it waits)
      budget.reserve(
          BodyBudget.reservationFor(declared),
          request.getComponents().getExecutor(),
          request.getComponents().getScheduler(),
          reservation ->
              prefetch(request, response, releasing(callback, reservation), endpoint, reservation),
          () -> answer(BodyPrefetch.Replay.of(request), response, callback, busy(declared)));
      return true;
    }
    prefetch(request, response, callback, endpoint, null);
    return true;
  }

  private void prefetch(
      Request request,
      Response response,
      Callback callback,
      Endpoint endpoint,
      BodyBudget.Reservation reserved) {
    // a body of unknown length reserves its room when its first bytes come
    BodyBudget unknownLength = reserved == null ? budget : null;
    new BodyPrefetch(
            request,
            BODY_LIMIT_BYTES,
            unknownLength,
            reserved,
            deadline,
            replay -> {
              // room reserved while reading (a body of unknown length) is released here too
              Callback done =
                  reserved == null && replay.reservation() != null
                      ? releasing(callback, replay.reservation())
                      : callback;
              if (replay.timedOut()) {
                String message =
                    "the request body did not arrive within "
                        + deadline.toSeconds()
                        + " s ("
                        + replay.length()
                        + (request.getLength() >= 0 ? " of " + request.getLength() : "")
                        + " bytes came); send the request again";
                LOG.warn(
                    "{} {}: 408, {}",
                    request.getMethod(),
                    Request.getPathInContext(request),
                    message);
                answeredEarly.accept(normalize(Request.getPathInContext(request)), 408);
                send(response, Reply.text(408, message), done);
              } else if (replay.overBudget()) {
                answer(replay, response, done, busy(-1));
              } else if (oneRequestAtATime(request) && replay.length() <= INLINE_LIMIT_BYTES) {
                answer(replay, response, done, endpoint);
              } else {
                dispatch(replay, response, done, endpoint);
              }
            })
        .run();
  }

  /** The request's callback, releasing {@code reservation} when the request completes. */
  private static Callback releasing(Callback callback, Runnable reservation) {
    return new Callback.Nested(callback) {
      @Override
      public void succeeded() {
        reservation.run();
        super.succeeded();
      }

      @Override
      public void failed(Throwable x) {
        reservation.run();
        super.failed(x);
      }
    };
  }

  /**
   * 503 with {@code Retry-After: 1} for a body that found no room in the budget within its wait.
   *
   * @param declared the body's declared length, or -1 when unknown
   */
  private Endpoint busy(long declared) {
    String size = declared < 0 ? "unknown length" : declared + " bytes";
    String message =
        "the server is answering other large requests: no room for this body of "
            + size
            + " within "
            + budget.maxWait().toSeconds()
            + " s (it answers at most "
            + budget.capacityBytes()
            + " bytes of request bodies at once, set by its heap); send the request again";
    return (Refusal)
        r -> {
          LOG.warn("{} {}: 503, {}", r.getMethod(), Request.getPathInContext(r), message);
          answeredEarly.accept(normalize(Request.getPathInContext(r)), 503);
          return Reply.text(503, message); // with Retry-After, as every 503 (send)
        };
  }

  /** An answer that never reads the body (404, 405). */
  private interface Refusal extends Endpoint {}

  /** True for HTTP/1.x, whose connection carries one request at a time; false for HTTP/2 and 3. */
  private static boolean oneRequestAtATime(Request request) {
    return request.getConnectionMetaData().getHttpVersion().getVersion() < 20;
  }

  private Endpoint route(Request request, Response response) {
    Map<String, Endpoint> methods = byPath.get(normalize(Request.getPathInContext(request)));
    if (methods == null) {
      return NOT_FOUND;
    }
    Endpoint endpoint = methods.get(request.getMethod());
    if (endpoint == null && "HEAD".equals(request.getMethod())) {
      // a HEAD of a GET route gets the GET's status and headers; Jetty sends no body for HEAD
      endpoint = methods.get("GET");
    }
    if (endpoint == null) {
      TreeSet<String> allowed = new TreeSet<>(methods.keySet());
      if (allowed.contains("GET")) {
        allowed.add("HEAD");
      }
      String allow = String.join(", ", allowed);
      return (Refusal)
          r -> {
            response.getHeaders().put(HttpHeader.ALLOW, allow);
            return Reply.text(405, "method " + r.getMethod() + " not allowed");
          };
    }
    return endpoint;
  }

  private static final Endpoint NOT_FOUND = (Refusal) request -> Reply.text(404, "not found");

  private static void dispatch(
      BodyPrefetch.Replay request, Response response, Callback callback, Endpoint endpoint) {
    request
        .getComponents()
        .getExecutor()
        .execute(() -> answer(request, response, callback, endpoint));
  }

  private static void answer(
      BodyPrefetch.Replay request, Response response, Callback callback, Endpoint endpoint) {
    Reply reply;
    try {
      reply = endpoint.answer(request);
    } catch (Throwable e) {
      // a stack overflow or a missing class (LinkageError) unwound what it used: answer it as any
      // other failure, or the request would never be answered (and its room in the budget held
      // until the backstop); only the JVM running out of memory or failing itself ends here
      if (e instanceof VirtualMachineError fatal && !(e instanceof StackOverflowError)) {
        throw fatal;
      }
      request.releaseUnread();
      LOG.error(
          "{} {}: {}", request.getMethod(), Request.getPathInContext(request), e.toString(), e);
      Response.writeError(request, response, callback, 500);
      return;
    }
    if (request.endReached()) {
      send(response, reply, callback);
    } else {
      // a refusal sent before the body was read: read the rest once the reply is out
      send(
          response,
          reply,
          Callback.from(
              InvocationType.NON_BLOCKING,
              () -> BodyDrain.start(request, callback),
              failure -> {
                request.releaseUnread();
                callback.failed(failure);
              }));
    }
  }

  private static void send(Response response, Reply reply, Callback callback) {
    response.setStatus(reply.status());
    if (reply.status() == 503) {
      // every 503 here means: busy or stopping, send again
      response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
    }
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, reply.contentType());
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, reply.body().length);
    response.write(true, ByteBuffer.wrap(reply.body()), callback);
  }

  private static String normalize(String path) {
    return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
  }
}
