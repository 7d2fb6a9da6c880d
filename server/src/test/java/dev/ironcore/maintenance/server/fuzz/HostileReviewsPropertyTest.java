package dev.ironcore.maintenance.server.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.json.JsonMappers;
import dev.ironcore.maintenance.server.AdmissionRoutes;
import dev.ironcore.maintenance.server.LoopbackServer;
import dev.ironcore.maintenance.server.WebhookServer;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.admission.TestReviews;
import dev.ironcore.maintenance.server.testing.TempDirs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Hostile input corpus against the running HTTPS server (h2, as the API server speaks): random
 * JSON, a wrong type at every field of a real review, truncated bodies, huge and deep values,
 * duplicate keys, unicode in names and keys, on every webhook path and on {@code /convert}
 * (ConversionReviews). 10,000 requests per run. Every reply is a valid AdmissionReview carrying the
 * request's uid (when it had a readable one), or a clean 4xx; never a 5xx, never a dropped
 * connection; the heap does not grow with the corpus.
 */
class HostileReviewsPropertyTest {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final List<String> PATHS =
      List.of(
          AdmissionRoutes.MUTATE_CAPI_MACHINE,
          AdmissionRoutes.MUTATE_MACHINE,
          AdmissionRoutes.VALIDATE_MACHINE,
          AdmissionRoutes.VALIDATE_MACHINEPOOL);

  private static WebhookServer server;
  private static HttpClient http;
  private static String base;
  private static long heapBefore;
  private static Path dir;

  @BeforeContainer
  static void start() throws Exception {
    dir = TempDirs.create("hostile-reviews");
    LoopbackServer started = LoopbackServer.start(dir);
    server = started.server();
    base = started.base();
    http = started.client(HttpClient.Version.HTTP_2);
    heapBefore = usedHeapAfterGc();
  }

  @AfterContainer
  static void stop() {
    long growth = usedHeapAfterGc() - heapBefore;
    server.stop();
    TempDirs.delete(dir);
    assertThat(growth).as("heap growth over the corpus (bytes)").isLessThan(128L << 20);
  }

  private static long usedHeapAfterGc() {
    Runtime rt = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return rt.totalMemory() - rt.freeMemory();
  }

  // ---- the check every case ends in ----

  /**
   * Posts {@code body} and checks the reply.
   *
   * @param uid the uid the reply must carry; null when the body has none readable (then any uid the
   *     server could salvage, or "")
   */
  private static void check(String path, byte[] body, String uid) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    int code = r.statusCode();
    assertThat(code).as("status").isLessThan(500);
    if (code != 200) {
      assertThat(code).as("status").isBetween(400, 499);
      return;
    }
    JsonNode reply = JsonMappers.shared().readTree(r.body());
    JsonNode response = reply.path("response");
    if (path.equals(AdmissionRoutes.CONVERT)) {
      assertThat(reply.path("kind").asText()).isEqualTo("ConversionReview");
      assertThat(reply.path("apiVersion").asText()).startsWith("apiextensions.k8s.io/");
      assertThat(response.at("/result/status").asText()).isIn("Success", "Failure");
    } else {
      assertThat(reply.path("kind").asText()).isEqualTo("AdmissionReview");
      assertThat(reply.path("apiVersion").asText()).startsWith("admission.k8s.io/");
      assertThat(response.path("allowed").isBoolean()).as("response.allowed").isTrue();
    }
    assertThat(response.path("uid").isTextual()).as("response.uid").isTrue();
    if (uid != null) {
      assertThat(response.path("uid").asText()).isEqualTo(uid);
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  // ---- generators ----

  @Provide
  Arbitrary<String> paths() {
    return Arbitraries.of(PATHS);
  }

  /** The admission paths and {@code /convert} (for bodies that are no review of either kind). */
  @Provide
  Arbitrary<String> anyPath() {
    return Arbitraries.of(
        java.util.stream.Stream.concat(
                PATHS.stream(), java.util.stream.Stream.of(AdmissionRoutes.CONVERT))
            .toList());
  }

  /** A well-formed ConversionReview of one Machine or MachinePool (unicode allowed in names). */
  static Arbitrary<ObjectNode> conversionReview() {
    Arbitrary<String> uid = Arbitraries.strings().withCharRange('\u0000', '\ud7ff').ofMaxLength(40);
    return Combinators.combine(
            uid,
            anyText(),
            Arbitraries.of("v1alpha1", "v1alpha2"),
            Arbitraries.integers().between(0, 1))
        .as(
            (u, name, to, k) -> {
              ObjectNode review = F.objectNode();
              review.put("apiVersion", "apiextensions.k8s.io/v1").put("kind", "ConversionReview");
              ObjectNode request = review.putObject("request");
              request.put("uid", u);
              request.put("desiredAPIVersion", "compute.ironcore.dev/" + to);
              ObjectNode object = request.putArray("objects").addObject();
              object
                  .put(
                      "apiVersion",
                      "compute.ironcore.dev/" + (to.equals("v1alpha1") ? "v1alpha2" : "v1alpha1"))
                  .put("kind", k == 0 ? "Machine" : "MachinePool");
              ObjectNode meta = object.putObject("metadata");
              meta.put("name", name);
              meta.putObject("labels").put(name, name);
              meta.putObject("annotations").put("a", name);
              ObjectNode spec = object.putObject("spec");
              if (k == 0) {
                spec.putObject("machinePoolRef").put("name", name);
                spec.putArray("tolerations")
                    .addObject()
                    .put("key", name)
                    .put("operator", "Exists")
                    .put("effect", "NoExecute")
                    .put("tolerationSeconds", 5);
              } else {
                spec.putArray("taints")
                    .addObject()
                    .put("key", name)
                    .put("effect", "NoExecute")
                    .put("timeAdded", "2026-01-01T00:00:00Z");
              }
              return review;
            });
  }

  private static Arbitrary<String> anyText() {
    return Arbitraries.oneOf(
        Arbitraries.strings().all().ofMaxLength(40),
        Arbitraries.strings().alpha().numeric().withChars("-./_~").ofMaxLength(70),
        Arbitraries.of("", "uid", "request", "object", "metadata", "spec", "\u0000", "😀", "ä"));
  }

  private static Arbitrary<JsonNode> scalar() {
    return Arbitraries.oneOf(
        anyText().map(F::textNode),
        Arbitraries.longs().map(F::numberNode),
        Arbitraries.doubles().map(F::numberNode),
        Arbitraries.of(F.booleanNode(true), F.booleanNode(false), F.nullNode()),
        Arbitraries.bigIntegers()
            .between(java.math.BigInteger.TEN.pow(40).negate(), java.math.BigInteger.TEN.pow(40))
            .map(F::numberNode));
  }

  static Arbitrary<JsonNode> json(int depth) {
    if (depth <= 0) {
      return scalar();
    }
    Arbitrary<JsonNode> child = Arbitraries.lazy(() -> json(depth - 1));
    Arbitrary<JsonNode> array =
        child.list().ofMaxSize(4).map(l -> (JsonNode) F.arrayNode().addAll(l));
    Arbitrary<JsonNode> object =
        Arbitraries.maps(anyText(), child)
            .ofMaxSize(4)
            .map(
                m -> {
                  ObjectNode o = F.objectNode();
                  m.forEach(o::set);
                  return (JsonNode) o;
                });
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(3, scalar()),
        net.jqwik.api.Tuple.of(2, array),
        net.jqwik.api.Tuple.of(2, object));
  }

  /** JSON text of a hostile value: random JSON, deep (to beyond our limit), huge, unicode. */
  private static Arbitrary<String> hostileValue() {
    return Arbitraries.oneOf(
        json(3).map(HostileReviewsPropertyTest::text),
        Arbitraries.integers().between(1, 12_000).map(n -> "[".repeat(n) + "]".repeat(n)),
        Arbitraries.integers()
            .between(1, 12_000)
            .map(n -> "{\"a\":".repeat(n) + "1" + "}".repeat(n)),
        Arbitraries.integers().between(1, 256 * 1024).map(n -> "\"" + "x".repeat(n) + "\""),
        Arbitraries.strings().all().ofMinLength(1).ofMaxLength(300).map(t -> text(F.textNode(t))));
  }

  /** Nesting depth at the start of a JSON text ({@code [[[...} or {@code {"a":{"a":...}). */
  private static int nesting(String json) {
    int depth = 0;
    for (int i = 0; i < json.length(); i++) {
      char c = json.charAt(i);
      if (c == '[' || c == '{') {
        depth++;
      } else if (c != '"' && c != 'a' && c != ':') {
        break;
      }
    }
    return depth;
  }

  /** Compact JSON text with our limits (JsonNode.toString uses Jackson's defaults). */
  static String text(JsonNode node) {
    try {
      return JsonMappers.shared().writeValueAsString(node);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** A well-formed review for one of the webhooks, with unicode allowed in names and keys. */
  private static Arbitrary<ObjectNode> review() {
    // any text that survives UTF-8 (a lone surrogate would arrive as '?', another uid)
    Arbitrary<String> uid =
        Arbitraries.oneOf(
            Arbitraries.strings().withCharRange('\u0000', '\ud7ff').ofMaxLength(40),
            Arbitraries.of("😀-uid", "ä", ""));
    Arbitrary<String> name = Arbitraries.oneOf(anyText(), Arbitraries.of("m", "pool-a"));
    Arbitrary<String> labelKey = anyText();
    Arbitrary<Operation> op = Arbitraries.of(Operation.class);
    Arbitrary<Integer> kind = Arbitraries.integers().between(0, 2);
    return Combinators.combine(uid, name, labelKey, op, kind)
        .as(
            (u, n, key, operation, k) -> {
              ObjectNode object = F.objectNode();
              ObjectNode meta = object.putObject("metadata");
              meta.put("name", n).put("namespace", "ns");
              meta.putObject("labels").put(key, n);
              meta.putArray("finalizers").add("user/f");
              ObjectNode spec = object.putObject("spec");
              String[] gvk;
              if (k == 0) {
                gvk = new String[] {"cluster.x-k8s.io", "v1beta2", "Machine", "machines"};
                spec.put("clusterName", "c");
              } else if (k == 1) {
                gvk = new String[] {"compute.ironcore.dev", "v1alpha1", "Machine", "machines"};
                spec.putObject("machinePoolRef").put("name", n);
                ArrayNode tolerations = spec.putArray("tolerations");
                tolerations.addObject().put("key", key).put("operator", "Exists");
              } else {
                gvk =
                    new String[] {
                      "compute.ironcore.dev", "v1alpha1", "MachinePool", "machinepools"
                    };
                spec.putArray("taints").addObject().put("key", key).put("effect", "NoExecute");
              }
              return TestReviews.review(
                  u,
                  gvk[0],
                  gvk[1],
                  gvk[2],
                  gvk[3],
                  operation,
                  operation == Operation.DELETE ? null : object,
                  operation == Operation.UPDATE || operation == Operation.DELETE
                      ? object.deepCopy()
                      : null);
            });
  }

  // ---- properties: 5 x 2,000 = 10,000 requests ----

  @Property(tries = 2000)
  void aHostileValueAtAnyFieldOfAConversionReview(@ForAll("conversionWithHostileField") Case c)
      throws Exception {
    check(AdmissionRoutes.CONVERT, utf8(c.body()), c.uid());
  }

  @Provide
  Arbitrary<Case> conversionWithHostileField() {
    return hostile(conversionReview());
  }

  @Property(tries = 2000)
  void randomJsonGetsAReviewOrA4xx(@ForAll("paths") String path, @ForAll("randomJson") String body)
      throws Exception {
    check(path, utf8(body), null);
  }

  @Provide
  Arbitrary<String> randomJson() {
    return json(4).map(HostileReviewsPropertyTest::text);
  }

  /** A review as JSON text with one field replaced by a hostile value, and its uid (or null). */
  record Case(String body, String uid) {
    @Override
    public String toString() {
      return body.length() > 300
          ? body.substring(0, 300) + "... (" + body.length() + " chars)"
          : body;
    }
  }

  @Property(tries = 2000)
  void aHostileValueAtAnyFieldOfARealReview(
      @ForAll("paths") String path, @ForAll("reviewWithHostileField") Case c) throws Exception {
    check(path, utf8(c.body()), c.uid());
  }

  private static final String MARK = "\u0001hostile\u0001";

  @Provide
  Arbitrary<Case> reviewWithHostileField() {
    return hostile(review());
  }

  /** {@code reviews} with one field (any, at any depth) replaced by a hostile value. */
  static Arbitrary<Case> hostile(Arbitrary<ObjectNode> reviews) {
    return Combinators.combine(reviews, Arbitraries.integers().greaterOrEqual(0), hostileValue())
        .as(
            (review, index, value) -> {
              List<String> paths = JsonNodes.pointers(review);
              String pointer = paths.get(1 + index % (paths.size() - 1));
              JsonNodes.replaceAt(review, pointer, F.textNode(MARK));
              JsonNode uid = review.at("/request/uid");
              // a value nested beyond what the API server (and so we) read makes the body
              // unreadable: the uid is then whatever could be read before it
              boolean readable = nesting(value) < 10_000;
              String uidText =
                  pointer.equals("/request/uid") || pointer.equals("/request") || !readable
                      ? null
                      : uid.isTextual() ? uid.asText() : "";
              return new Case(text(review).replace(text(F.textNode(MARK)), value), uidText);
            });
  }

  @Property(tries = 2000)
  void truncatedBodiesGetAReviewWithWhateverUidWasReadable(
      @ForAll("anyPath") String path, @ForAll("reviews") ObjectNode review, @ForAll double cut)
      throws Exception {
    byte[] whole = JsonMappers.shared().writeValueAsBytes(review);
    int length = (int) (Math.abs(cut) % 1.0 * whole.length);
    byte[] body = java.util.Arrays.copyOf(whole, length);
    check(path, body, null);
  }

  @Provide
  Arbitrary<ObjectNode> reviews() {
    return review();
  }

  @Property(tries = 2000)
  void duplicateKeysDeepAndHugeBodies(
      @ForAll("anyPath") String path, @ForAll("extremeBodies") String body) throws Exception {
    check(path, utf8(body), null);
  }

  @Provide
  Arbitrary<String> extremeBodies() {
    Arbitrary<String> duplicates =
        review()
            .map(
                r ->
                    text(r)
                        .replaceFirst(
                            "\"request\":\\{",
                            "\"request\":{\"uid\":\"first\",\"uid\":{\"x\":1},\"object\":[],"));
    Arbitrary<String> deepArrays =
        Arbitraries.integers()
            .between(1, 30_000)
            .map(
                n ->
                    "{\"request\":{\"uid\":\"d\",\"object\":"
                        + "[".repeat(n)
                        + "]".repeat(n)
                        + "}}");
    Arbitrary<String> unterminated =
        Arbitraries.integers().between(1, 20_000).map(n -> "{\"a\":".repeat(n));
    Arbitrary<String> bigNumbers =
        Arbitraries.integers()
            .between(1, 20_000)
            .map(n -> "{\"request\":{\"uid\":\"n\",\"object\":{\"spec\":" + "9".repeat(n) + "}}}");
    Arbitrary<String> hugeString =
        Arbitraries.integers()
            .between(1, 8)
            .map(mb -> "{\"request\":{\"uid\":\"" + "u".repeat(mb * 1024 * 1024 - 100) + "\"}}");
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(100, duplicates),
        net.jqwik.api.Tuple.of(100, deepArrays),
        net.jqwik.api.Tuple.of(100, unterminated),
        net.jqwik.api.Tuple.of(100, bigNumbers),
        net.jqwik.api.Tuple.of(1, hugeString) /* ~1 in 400: 1-8 MiB bodies, some over the cap */);
  }
}
