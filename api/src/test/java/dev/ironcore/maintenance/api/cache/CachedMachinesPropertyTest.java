package dev.ironcore.maintenance.api.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachineV1alpha2;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * For Machines with unexpected values anywhere (wrong types, nulls, unknown members), decoding as
 * the informer's class and trimming gives what decoding the whole object without the fields the
 * cache drops and trimming gives (a bad value in a field the cache never reads no longer makes the
 * object salvaged); and where the whole object decodes, exactly what it gives.
 */
class CachedMachinesPropertyTest {
  private static final List<String> PATHS =
      List.of(
          "metadata.name",
          "metadata.labels",
          "metadata.labels.app",
          "metadata.finalizers",
          "metadata.finalizers.0",
          "metadata.annotations",
          "metadata.managedFields",
          "metadata.managedFields.0.fieldsV1",
          "metadata.deletionTimestamp",
          "metadata.ownerReferences",
          "metadata.resourceVersion",
          "metadata.unknownMember",
          "spec",
          "spec.machinePoolRef",
          "spec.machinePoolRef.name",
          "spec.tolerations",
          "spec.tolerations.0",
          "spec.tolerations.0.key",
          "spec.tolerations.0.effect",
          "spec.tolerations.0.tolerationSeconds",
          "spec.tolerations.1.operator",
          "spec.machineClassRef",
          "spec.machinePoolSelector",
          "spec.power",
          "spec.image",
          "spec.volumes",
          "spec.volumes.0.ephemeral",
          "spec.unknownMember",
          "status",
          "status.state",
          "status.networkInterfaces");

  private static final List<String> VALUES =
      List.of(
          "null",
          "\"\"",
          "\"x\"",
          "0",
          "-1",
          "3.5",
          "true",
          "[]",
          "[\"a\"]",
          "[1,{}]",
          "{}",
          "{\"name\":\"pool-b\"}",
          "[{\"key\":\"k\",\"effect\":\"NoExecute\"}]",
          "{\"a\":{\"b\":[null]}}");

  record Mutation(String path, String value) {}

  @Provide
  Arbitrary<Mutation> mutation() {
    return Combinators.combine(Arbitraries.of(PATHS), Arbitraries.of(VALUES)).as(Mutation::new);
  }

  @Property(tries = 2000)
  void theCachedDecodingKeepsWhatTheWholeDecodingKeeps(
      @ForAll @Size(min = 1, max = 3) List<@From("mutation") Mutation> mutations,
      @ForAll boolean v1alpha2)
      throws Exception {
    Class<? extends Machine> type = v1alpha2 ? MachineV1alpha2.class : Machine.class;
    ObjectNode machine =
        (ObjectNode)
            CachedMachinesTest.SERIALIZATION.unmarshal(
                v1alpha2
                    ? CachedMachinesTest.MACHINE
                    : CachedMachinesTest.MACHINE.replace("/v1alpha2\"", "/v1alpha1\""),
                JsonNode.class);
    for (Mutation m : mutations) {
      set(
          machine,
          m.path().split("\\."),
          CachedMachinesTest.SERIALIZATION.unmarshal(m.value(), JsonNode.class));
    }
    String json = machine.toString();

    Machine whole = CachedMachinesTest.SERIALIZATION.unmarshal(json, type);
    Machine cached = CachedMachinesTest.SERIALIZATION.unmarshal(json, CachedMachines.of(type));

    // the cached decoding is the whole decoding of what the cache reads, whatever the rest holds
    String read = withoutWhatTheCacheDrops(machine).toString();
    Machine wholeOfRead = CachedMachinesTest.SERIALIZATION.unmarshal(read, type);
    assertThat(cached.decodeError() != null).as(json).isEqualTo(wholeOfRead.decodeError() != null);
    if (cached.decodeError() == null) {
      assertThat(CachedMachinesTest.trimmedCached(json, type))
          .as(json)
          .isEqualTo(CachedMachinesTest.trimmedWhole(read, type));
    } else {
      // both salvaged (TolerantDecoding): what a salvaged Machine promises, the identity, the
      // finalizers, the binding, and no tolerations (the loops then never evict it)
      Machine a = CacheTrim.machine(cached);
      Machine b = CacheTrim.machine(wholeOfRead);
      assertThat(a.getMetadata().getName()).as(json).isEqualTo(b.getMetadata().getName());
      assertThat(a.getMetadata().getUid()).as(json).isEqualTo(b.getMetadata().getUid());
      assertThat(a.getMetadata().getDeletionTimestamp())
          .as(json)
          .isEqualTo(b.getMetadata().getDeletionTimestamp());
      assertThat(a.getMetadata().getFinalizers())
          .as(json)
          .isEqualTo(b.getMetadata().getFinalizers());
      assertThat(a.boundPoolName()).as(json).isEqualTo(b.boundPoolName());
      assertThat(a.getSpec() == null ? null : a.getSpec().getTolerations()).as(json).isNull();
    }
    // and where the whole object decodes, both keep the same
    if (whole.decodeError() == null) {
      assertThat(cached.decodeError()).as(json).isNull();
      assertThat(CachedMachinesTest.trimmedCached(json, type))
          .as(json)
          .isEqualTo(CachedMachinesTest.trimmedWhole(json, type));
    }
  }

  /** A copy without status, annotations, managed fields and spec fields but binding/tolerations. */
  private static JsonNode withoutWhatTheCacheDrops(ObjectNode machine) {
    ObjectNode copy = machine.deepCopy();
    copy.remove("status");
    if (copy.get("metadata") instanceof ObjectNode meta) {
      meta.remove("managedFields");
      // of the annotations the cache reads only the one that ends a streaming list (a bookmark's)
      if (meta.get("annotations") instanceof ObjectNode annotations) {
        annotations.retain(dev.ironcore.maintenance.api.Names.INITIAL_EVENTS_END_ANNOTATION);
      }
    }
    if (copy.get("spec") instanceof ObjectNode spec) {
      spec.retain("machinePoolRef", "tolerations");
    }
    return copy;
  }

  /** Sets the value at a dotted path (numbers index arrays), creating objects on the way. */
  private static void set(JsonNode root, String[] path, JsonNode value) {
    JsonNode node = root;
    for (int i = 0; i < path.length - 1; i++) {
      JsonNode next = child(node, path[i]);
      if (next == null || !next.isContainerNode()) {
        if (!(node instanceof ObjectNode) || path[i].matches("\\d+")) {
          return; // no such element: nothing to change
        }
        next = ((ObjectNode) node).putObject(path[i]);
      }
      node = next;
    }
    String last = path[path.length - 1];
    if (node instanceof ObjectNode o) {
      o.set(last, value);
    } else if (node instanceof ArrayNode a
        && last.matches("\\d+")
        && Integer.parseInt(last) < a.size()) {
      a.set(Integer.parseInt(last), value);
    }
  }

  private static JsonNode child(JsonNode node, String key) {
    if (node instanceof ArrayNode a) {
      return key.matches("\\d+") && Integer.parseInt(key) < a.size()
          ? a.get(Integer.parseInt(key))
          : null;
    }
    return node.get(key);
  }
}
