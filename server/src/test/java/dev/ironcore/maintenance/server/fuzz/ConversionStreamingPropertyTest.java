package dev.ironcore.maintenance.server.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.json.DeepStacks;
import dev.ironcore.maintenance.api.json.JsonMappers;
import dev.ironcore.maintenance.server.conversion.ConversionReviews;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The server answers large ConversionReviews one object at a time ({@link
 * ConversionReviews#answerStreamed}); the reply must be, byte for byte, the one built from a tree
 * of the whole review ({@link ConversionReviews#answer(String, byte[])}) for any body: well-formed
 * lists of several objects, a hostile value at any field, keys given twice, fields in any order,
 * bodies cut anywhere, content after the review, other encodings, random JSON.
 */
class ConversionStreamingPropertyTest {
  private static final String WEBHOOK = "/convert";

  /** Both answers, on a thread with the server's deep stack (values nest 10,000 levels deep). */
  private static void sameReply(byte[] body) {
    Object[] got = new Object[3];
    Thread t =
        DeepStacks.newThread(
            () -> {
              ConversionReviews.Answer tree = ConversionReviews.answer(WEBHOOK, body);
              got[0] = tree;
              got[1] = ConversionReviews.toBytes(tree.review());
              got[2] = ConversionReviews.answerStreamed(WEBHOOK, body);
            },
            "deep",
            true);
    t.start();
    try {
      t.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
    ConversionReviews.Answer tree = (ConversionReviews.Answer) got[0];
    ConversionReviews.Encoded streamed = (ConversionReviews.Encoded) got[2];
    assertThat(streamed).as("the answers were computed").isNotNull();
    assertThat(new String(streamed.json(), StandardCharsets.UTF_8))
        .isEqualTo(new String((byte[]) got[1], StandardCharsets.UTF_8));
    assertThat(streamed.succeeded()).isEqualTo(tree.succeeded());
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * A review of 1 to 6 objects: the generated one's object, repeated, and the training sample's.
   */
  @Provide
  Arbitrary<ObjectNode> lists() {
    ObjectNode sample;
    try {
      sample =
          (ObjectNode)
              JsonMappers.shared()
                  .readTree(
                      Files.readAllBytes(
                          Path.of(
                              "..", "image", "src", "aot-training", "machine-conversion.json")));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return Combinators.combine(
            HostileReviewsPropertyTest.conversionReview(), Arbitraries.integers().between(0, 5))
        .as(
            (review, more) -> {
              ArrayNode objects = (ArrayNode) review.at("/request/objects");
              ArrayNode samples = (ArrayNode) sample.at("/request/objects");
              for (int i = 0; i < more; i++) {
                objects.add(
                    i % 2 == 0 ? samples.get(i % samples.size()).deepCopy() : objects.get(0));
              }
              return review;
            });
  }

  @Property(tries = 500)
  void wellFormedLists(@ForAll("lists") ObjectNode review) throws Exception {
    sameReply(JsonMappers.shared().writeValueAsBytes(review));
  }

  @Property(tries = 1000)
  void aHostileValueAtAnyField(@ForAll("hostileLists") HostileReviewsPropertyTest.Case c) {
    sameReply(utf8(c.body()));
  }

  @Provide
  Arbitrary<HostileReviewsPropertyTest.Case> hostileLists() {
    return HostileReviewsPropertyTest.hostile(lists());
  }

  /** Keys given twice (the last counts) and fields in another order, by editing the text. */
  @Property(tries = 500)
  void keysTwiceAndFieldsInAnyOrder(@ForAll("lists") ObjectNode review, @ForAll("edits") int edit)
      throws Exception {
    String text = HostileReviewsPropertyTest.text(review);
    String edited =
        switch (edit) {
          case 0 -> text.replaceFirst("\"request\":\\{", "\"request\":{\"uid\":7,");
          case 1 -> text.replaceFirst("\"request\":\\{", "\"request\":{\"objects\":[1],");
          case 2 -> text.replaceFirst("\"request\":\\{", "\"request\":{\"objects\":{},");
          case 3 -> text.replaceFirst("\\{", "{\"request\":{\"uid\":\"early\"},");
          case 4 -> text.replaceFirst("\\}$", ",\"request\":[]}");
          case 5 -> text.replaceFirst("\\}$", ",\"apiVersion\":5,\"kind\":\"ConversionReview\"}");
          case 6 ->
              text.replaceFirst(
                  "\"request\":\\{",
                  "\"request\":{\"desiredAPIVersion\":\"compute.ironcore.dev/v1alpha2\",");
          case 7 -> text.replaceFirst("\\}\\}$", ",\"objects\":null}}");
          case 8 -> text.replaceFirst("\\}\\}$", ",\"uid\":\"late\",\"objects\":[]}}");
          default -> text.replaceFirst("\\}\\}$", ",\"desiredAPIVersion\":null}}");
        };
    sameReply(utf8(edited));
  }

  @Provide
  Arbitrary<Integer> edits() {
    return Arbitraries.integers().between(0, 9);
  }

  @Property(tries = 500)
  void bodiesCutAnywhereOrFollowedByMore(
      @ForAll("lists") ObjectNode review, @ForAll double cut, @ForAll("tails") String tail)
      throws Exception {
    byte[] whole = JsonMappers.shared().writeValueAsBytes(review);
    sameReply(Arrays.copyOf(whole, (int) (Math.abs(cut) % 1.0 * whole.length)));
    sameReply(utf8(new String(whole, StandardCharsets.UTF_8) + tail));
  }

  @Provide
  Arbitrary<String> tails() {
    return Arbitraries.of(" ", "\n\t ", "x", "{}", " 1", "]", "}", "\"", "/* c */", "\u0000");
  }

  @Property(tries = 200)
  void otherEncodings(@ForAll("lists") ObjectNode review, @ForAll("charsets") String charset)
      throws Exception {
    sameReply(HostileReviewsPropertyTest.text(review).getBytes(Charset.forName(charset)));
  }

  @Provide
  Arbitrary<String> charsets() {
    return Arbitraries.of("UTF-16BE", "UTF-16LE", "UTF-32BE", "UTF-32LE", "ISO-8859-1");
  }

  @Property(tries = 1000)
  void randomJson(@ForAll("anyJson") String body) {
    sameReply(utf8(body));
  }

  @Provide
  Arbitrary<String> anyJson() {
    return HostileReviewsPropertyTest.json(4).map(HostileReviewsPropertyTest::text);
  }
}
