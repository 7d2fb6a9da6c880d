package dev.ironcore.maintenance.server.conversion;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Conversion is lossless both ways over generated Machines and MachinePools: with and without
 * metadata, annotations, spec, status and the v1alpha2-only members, with unknown fields, nulls,
 * empty and odd lists, metadata and status included (compared as whole JSON trees).
 */
class RoundTripProperties {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final ObjectMapper MAPPER = dev.ironcore.maintenance.api.json.JsonMappers.shared();
  private static final String V1 = ComputeVersions.V1ALPHA1;
  private static final String V2 = ComputeVersions.V1ALPHA2;

  @Property(tries = 500)
  void v1alpha1ToV1alpha2AndBackIsTheIdentity(@ForAll("v1alpha1Objects") JsonNode object)
      throws ConversionException {
    JsonNode up = ComputeConverter.convert(object, V2);
    assertThat(up.get("apiVersion").asText()).isEqualTo(V2);
    assertSameJson(ComputeConverter.convert(up, V1), object);
  }

  @Property(tries = 500)
  void v1alpha2ToV1alpha1AndBackIsTheIdentity(@ForAll("v1alpha2Objects") JsonNode object)
      throws ConversionException {
    JsonNode down = ComputeConverter.convert(object, V1);
    assertThat(down.get("apiVersion").asText()).isEqualTo(V1);
    assertThat(down.at("/spec/tolerations").findValues("tolerationSeconds")).isEmpty();
    assertThat(down.at("/spec/taints").findValues("timeAdded")).isEmpty();
    JsonNode up = ComputeConverter.convert(down, V2);
    assertSameJson(up, object);
    assertThat(up.at("/metadata/annotations").has(V1alpha2Fields.ANNOTATION)).isFalse();
  }

  @Property(tries = 300)
  void convertingInPlaceGivesWhatConvertingACopyGives(
      @ForAll("v1alpha1Objects") JsonNode v1, @ForAll("v1alpha2Objects") JsonNode v2)
      throws ConversionException {
    for (JsonNode object : List.of(v1, v2)) {
      for (String desired : List.of(V1, V2)) {
        String before = object.toString();
        JsonNode copied = ComputeConverter.convert(object, desired);
        assertThat(object.toString()).as("convert leaves its input alone").isEqualTo(before);
        JsonNode owned = object.deepCopy();
        assertThat(ComputeConverter.convertOwned(owned, desired)).isSameAs(owned);
        assertThat(owned.toString()).isEqualTo(copied.toString());
      }
    }
  }

  /**
   * Equal as JSON documents (what the API server reads: a number restored from the annotation is an
   * int node where the original was a long node, same text); metadata and status byte for byte.
   */
  private static void assertSameJson(JsonNode actual, JsonNode expected) {
    assertThat(reparse(actual)).isEqualTo(reparse(expected));
    for (String field : List.of("metadata", "status")) {
      assertThat(String.valueOf(actual.get(field)))
          .as(field + " byte for byte")
          .isEqualTo(String.valueOf(expected.get(field)));
    }
  }

  private static JsonNode reparse(JsonNode node) {
    try {
      return MAPPER.readTree(node.toString());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  @Provide
  Arbitrary<JsonNode> v1alpha1Objects() {
    return objects(V1, false);
  }

  @Provide
  Arbitrary<JsonNode> v1alpha2Objects() {
    return objects(V2, true);
  }

  private static Arbitrary<JsonNode> objects(String apiVersion, boolean v2) {
    Arbitrary<String> kind = Arbitraries.of("Machine", "MachinePool");
    return kind.flatMap(
        k ->
            Combinators.combine(
                    metadata().optional(0.8),
                    spec(k, v2).optional(0.85),
                    json(2).optional(0.5),
                    unknownFields())
                .as(
                    (metadata, spec, status, unknown) -> {
                      ObjectNode o = NODES.objectNode();
                      o.put("apiVersion", apiVersion);
                      o.put("kind", k);
                      metadata.ifPresent(m -> o.set("metadata", m));
                      spec.ifPresent(s -> o.set("spec", s));
                      status.ifPresent(s -> o.set("status", s));
                      o.setAll(unknown);
                      return o;
                    }));
  }

  private static Arbitrary<JsonNode> metadata() {
    Arbitrary<Map<String, String>> annotations =
        Arbitraries.maps(
                Arbitraries.of(
                    "a", "example.com/b", "kubectl.kubernetes.io/last-applied-configuration"),
                Arbitraries.strings().ofMaxLength(8))
            .ofMinSize(1)
            .ofMaxSize(3);
    return Combinators.combine(
            Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(6),
            annotations.optional(0.6),
            json(2).optional(0.5),
            json(1).optional(0.3))
        .as(
            (name, annos, managedFields, finalizers) -> {
              ObjectNode m = NODES.objectNode();
              m.put("name", name);
              m.put("resourceVersion", "42");
              annos.ifPresent(
                  a -> {
                    ObjectNode map = m.putObject("annotations");
                    a.forEach(map::put);
                  });
              managedFields.ifPresent(f -> m.set("managedFields", f));
              finalizers.ifPresent(f -> m.set("finalizers", f));
              return m;
            });
  }

  private static Arbitrary<JsonNode> spec(String kind, boolean v2) {
    String list = kind.equals("Machine") ? "tolerations" : "taints";
    String member = kind.equals("Machine") ? "tolerationSeconds" : "timeAdded";
    Arbitrary<JsonNode> memberValue =
        kind.equals("Machine")
            ? Arbitraries.oneOf(
                Arbitraries.longs().map(LongNode::valueOf),
                Arbitraries.of(Long.MAX_VALUE, 0L, -1L).map(LongNode::valueOf),
                Arbitraries.just(NullNode.getInstance()))
            : Arbitraries.of("2026-11-30T16:00:00Z", "").map(TextNode::valueOf);
    Arbitrary<JsonNode> entry =
        Combinators.combine(
                Arbitraries.maps(
                        Arbitraries.of("key", "operator", "value", "effect", "x-unknown"),
                        Arbitraries.oneOf(
                            Arbitraries.of("k", "NoExecute", "Exists", "").map(TextNode::valueOf),
                            Arbitraries.just(NullNode.getInstance())))
                    .ofMaxSize(4),
                v2 ? memberValue.optional(0.6) : Arbitraries.just(Optional.<JsonNode>empty()))
            .as(
                (fields, seconds) -> {
                  ObjectNode e = NODES.objectNode();
                  fields.forEach(e::set);
                  seconds.ifPresent(s -> e.set(member, s));
                  return (JsonNode) e;
                });
    Arbitrary<JsonNode> entryOrOdd =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(8, entry),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(NullNode.getInstance())),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(TextNode.valueOf("odd"))));
    Arbitrary<JsonNode> listValue =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(
                6,
                entryOrOdd
                    .list()
                    .ofMaxSize(4)
                    .map(
                        l -> {
                          ArrayNode a = NODES.arrayNode();
                          l.forEach(a::add);
                          return (JsonNode) a;
                        })),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(NullNode.getInstance())),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(NODES.objectNode())));
    return Combinators.combine(listValue.optional(0.8), unknownFields())
        .as(
            (value, unknown) -> {
              ObjectNode s = NODES.objectNode();
              value.ifPresent(v -> s.set(list, v));
              s.setAll(unknown);
              return (JsonNode) s;
            });
  }

  private static Arbitrary<ObjectNode> unknownFields() {
    return Arbitraries.maps(Arbitraries.of("image", "power", "x-extra", "volumes"), json(2))
        .ofMaxSize(2)
        .map(
            m -> {
              ObjectNode o = NODES.objectNode();
              m.forEach(o::set);
              return o;
            });
  }

  private static Arbitrary<JsonNode> json(int depth) {
    Arbitrary<JsonNode> scalar =
        Arbitraries.oneOf(
            Arbitraries.strings().ofMaxLength(5).map(TextNode::valueOf),
            Arbitraries.longs().map(LongNode::valueOf),
            Arbitraries.of(BooleanNode.TRUE, BooleanNode.FALSE),
            Arbitraries.just(NullNode.getInstance()));
    if (depth == 0) {
      return scalar;
    }
    Arbitrary<JsonNode> inner = json(depth - 1);
    Arbitrary<JsonNode> array =
        inner
            .list()
            .ofMaxSize(3)
            .map(
                (List<JsonNode> l) -> {
                  ArrayNode a = NODES.arrayNode();
                  l.forEach(a::add);
                  return a;
                });
    Arbitrary<JsonNode> object =
        Arbitraries.maps(Arbitraries.strings().alpha().ofMaxLength(3), inner)
            .ofMaxSize(3)
            .map(
                m -> {
                  ObjectNode o = NODES.objectNode();
                  m.forEach(o::set);
                  return o;
                });
    return Arbitraries.oneOf(scalar, array, object);
  }
}
