package dev.ironcore.maintenance.server.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.compute.LocalRef;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachineSpec;
import dev.ironcore.maintenance.api.json.JsonMappers;
import dev.ironcore.maintenance.server.AdmissionRoutes;
import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionReviews;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.admission.TestReviews;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * The review reader skips what a handler does not declare it reads ({@code ReviewFilter}, {@code
 * AdmissionHandler.objectFields()}); a handler that read an undeclared field would then decide
 * differently. For every admission path, random reviews of every kind (any operation, deleting or
 * not, labels that match the CAPI selector or not, taints and tolerations, unexpected values at any
 * field) get the same reply read through the filter as read whole (but for {@code managedFields},
 * which the filter drops by design); the filtered one is also the reply as the server sends it
 * (written straight to bytes, {@code Answer.toBytes()}), the whole one built as a tree.
 */
class ReviewFilterPropertyTest {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final ObjectMapper MAPPER = JsonMappers.shared();
  private static final Map<String, AdmissionHandler> ROUTES =
      AdmissionRoutes.create(
          labels -> labels.containsKey("mutate"),
          pool -> Optional.of(List.of(machine("vm-1"), machine("vm-2"))),
          Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC));

  private static Machine machine(String name) {
    Machine m = new Machine();
    m.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace("ns").build());
    MachineSpec spec = new MachineSpec();
    spec.setMachinePoolRef(new LocalRef("pool-a"));
    m.setSpec(spec);
    return m;
  }

  @Property(tries = 3000)
  void aHandlerDecidesTheSameOnTheFilteredReview(
      @ForAll("paths") String path, @ForAll("reviews") JsonNode review) throws Exception {
    AdmissionHandler handler = ROUTES.get(path);
    byte[] body = MAPPER.writeValueAsBytes(review);
    JsonNode whole = withoutManagedFields(MAPPER.readTree(body));
    byte[] sent = AdmissionReviews.answer(path, body, handler).toBytes();
    assertThat(MAPPER.readTree(sent))
        .isEqualTo(AdmissionReviews.answer(path, whole, handler).review());
  }

  /**
   * The whole review minus {@code metadata.managedFields} of the two objects: no handler reads
   * them, and their absence is meant to change one thing: a malformed {@code managedFields} (the
   * API server never sends one) no longer makes the MachinePool unreadable for the eviction
   * warning.
   */
  private static JsonNode withoutManagedFields(JsonNode review) {
    for (String object : List.of("object", "oldObject")) {
      if (review.path("request").path(object).path("metadata") instanceof ObjectNode metadata) {
        metadata.remove("managedFields");
      }
    }
    return review;
  }

  @Provide
  Arbitrary<String> paths() {
    return Arbitraries.of(ROUTES.keySet());
  }

  @Provide
  Arbitrary<JsonNode> reviews() {
    Arbitrary<JsonNode> plain = review();
    Arbitrary<JsonNode> odd =
        Combinators.combine(review(), Arbitraries.integers().greaterOrEqual(0), value(2))
            .as(ReviewFilterPropertyTest::replaceOne);
    return Arbitraries.frequencyOf(Tuple.of(1, plain), Tuple.of(2, odd));
  }

  /** A review of a CAPI Machine, IronCore Machine or MachinePool, as the API server sends one. */
  private static Arbitrary<JsonNode> review() {
    return Combinators.combine(
            Arbitraries.integers().between(0, 2),
            Arbitraries.of(Operation.class),
            Arbitraries.of("v1alpha1", "v1alpha2"),
            Arbitraries.of(false, true),
            Arbitraries.of(false, true),
            Arbitraries.of("", "pool-a", "Not_A_Name"),
            Arbitraries.integers().between(0, 3))
        .as(
            (kind, operation, version, deleting, matches, pool, taints) -> {
              ObjectNode object = object(kind, matches, pool, taints, deleting);
              ObjectNode old = object(kind, !matches, pool, taints / 2, false);
              String[] gvk =
                  switch (kind) {
                    case 0 -> new String[] {"cluster.x-k8s.io", "v1beta2", "Machine", "machines"};
                    case 1 -> new String[] {"compute.ironcore.dev", version, "Machine", "machines"};
                    default ->
                        new String[] {
                          "compute.ironcore.dev", version, "MachinePool", "machinepools"
                        };
                  };
              ObjectNode review =
                  TestReviews.review(
                      "uid-" + kind + operation,
                      gvk[0],
                      gvk[1],
                      gvk[2],
                      gvk[3],
                      operation,
                      operation == Operation.DELETE ? null : object,
                      operation == Operation.CREATE ? null : old);
              ObjectNode request = (ObjectNode) review.get("request");
              request.putObject("requestKind").put("kind", gvk[2]);
              request.putObject("options").put("kind", "CreateOptions");
              ((ObjectNode) request.get("userInfo")).putArray("groups").add("system:masters");
              return review;
            });
  }

  private static ObjectNode object(
      int kind, boolean matches, String pool, int taints, boolean deleting) {
    ObjectNode object = F.objectNode();
    ObjectNode meta = object.putObject("metadata");
    meta.put("name", "m");
    if (kind != 2) {
      meta.put("namespace", "ns");
    }
    meta.putObject("labels").put(matches ? "mutate" : "other", "yes");
    meta.putObject("annotations").put("note", "n");
    meta.putArray("finalizers").add("user/f");
    meta.putArray("managedFields").addObject().put("manager", "kubectl");
    if (deleting) {
      meta.put("deletionTimestamp", "2026-12-01T09:00:00Z");
    }
    ObjectNode spec = object.putObject("spec");
    spec.put("image", "gardenlinux");
    if (kind == 0) {
      spec.put("clusterName", "c");
    } else if (kind == 1) {
      spec.putObject("machinePoolRef").put("name", pool);
      spec.putArray("tolerations")
          .addObject()
          .put("key", "k")
          .put("operator", taints % 2 == 0 ? "Exists" : "Sometimes");
    } else {
      ArrayNode array = spec.putArray("taints");
      for (int i = 0; i < taints; i++) {
        array.addObject().put("key", "k" + i).put("effect", i % 2 == 0 ? "NoExecute" : "x");
      }
    }
    object.putObject("status").put("state", "Running");
    return object;
  }

  /** {@code review} with one node (at any depth) replaced by {@code value}. */
  private static JsonNode replaceOne(JsonNode review, int index, JsonNode value) {
    List<String> pointers = JsonNodes.pointers(review);
    JsonNodes.replaceAt(review, pointers.get(1 + index % (pointers.size() - 1)), value);
    return review;
  }

  private static Arbitrary<JsonNode> value(int depth) {
    Arbitrary<JsonNode> scalar =
        Arbitraries.oneOf(
            Arbitraries.of("", "x", "NoExecute", "2026-12-01T09:00:00Z").map(F::textNode),
            Arbitraries.integers().map(F::numberNode),
            Arbitraries.of(F.booleanNode(true), F.nullNode()));
    if (depth <= 0) {
      return scalar;
    }
    Arbitrary<JsonNode> child = Arbitraries.lazy(() -> value(depth - 1));
    Arbitrary<JsonNode> array =
        child.list().ofMaxSize(3).map(l -> (JsonNode) F.arrayNode().addAll(l));
    Arbitrary<JsonNode> object =
        Arbitraries.maps(Arbitraries.of("name", "key", "effect", "managedFields", "a"), child)
            .ofMaxSize(3)
            .map(
                m -> {
                  ObjectNode o = F.objectNode();
                  m.forEach(o::set);
                  return (JsonNode) o;
                });
    return Arbitraries.oneOf(scalar, array, object);
  }
}
