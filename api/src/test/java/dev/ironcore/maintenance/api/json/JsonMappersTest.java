package dev.ironcore.maintenance.api.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ironcore.maintenance.api.compute.Machine;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

class JsonMappersTest {

  /** {@code {"a":{"a":...{"a":1}...}}} with {@code depth} objects. */
  static String nested(int depth) {
    return "{\"a\":".repeat(depth - 1) + "{\"a\":1}" + "}".repeat(depth - 1);
  }

  static String machine(int specDepth) {
    return "{\"apiVersion\":\"compute.ironcore.dev/v1alpha1\",\"kind\":\"Machine\","
        + "\"metadata\":{\"name\":\"deep\",\"namespace\":\"default\"},"
        + "\"spec\":{\"machinePoolRef\":{\"name\":\"pool-a\"},\"deep\":"
        + nested(specDepth)
        + "}}";
  }

  /** Runs {@code task} on a thread of {@link DeepStacks}, rethrowing what it threw. */
  static void onDeepStack(ThrowingRunnable task) throws Throwable {
    Throwable[] failure = new Throwable[1];
    Thread t =
        DeepStacks.newThread(
            () -> {
              try {
                task.run();
              } catch (Throwable e) {
                failure[0] = e;
              }
            },
            "deep",
            false);
    t.start();
    t.join();
    if (failure[0] != null) {
      throw failure[0];
    }
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  @Test
  void sharedMapperReadsAndWritesTheApiServersDepth() throws Throwable {
    ObjectMapper mapper = JsonMappers.shared();
    String json = nested(JsonMappers.MAX_NESTING_DEPTH);
    JsonNode tree = mapper.readTree(json);
    onDeepStack(() -> assertThat(mapper.writeValueAsString(tree)).isEqualTo(json));
  }

  @Test
  void jacksonDefaultsWouldRejectWhatTheApiServerStores() {
    assertThatThrownBy(() -> new ObjectMapper().readTree(nested(1_001)))
        .isInstanceOf(StreamConstraintsException.class);
  }

  @Test
  void depthBeyondTheLimitIsRefusedCleanly() {
    assertThatThrownBy(
            () -> JsonMappers.shared().readTree(nested(JsonMappers.MAX_NESTING_DEPTH + 1)))
        .isInstanceOf(StreamConstraintsException.class);
  }

  @Test
  void longStringsNumbersAndNamesUpToTheBodyCapAreRead() throws Exception {
    String big = "x".repeat(3 * 1024 * 1024);
    String digits = "1".repeat(100_000);
    JsonNode tree =
        JsonMappers.shared().readTree("{\"" + big + "\":\"" + big + "\",\"n\":" + digits + "}");
    assertThat(tree.get(big).asText()).hasSize(big.length());
    assertThat(tree.get("n").bigIntegerValue().toString()).isEqualTo(digits);
  }

  @Test
  void fabric8SerializationDecodesAndWritesADeepMachine() throws Throwable {
    KubernetesSerialization serialization = JsonMappers.kubernetesSerialization();
    onDeepStack(
        () -> {
          Machine machine = serialization.unmarshal(machine(10_000), Machine.class);
          assertThat(machine.boundPoolName()).isEqualTo("pool-a");
          JsonNode back = serialization.convertValue(machine, JsonNode.class);
          assertThat(back.at("/spec/machinePoolRef/name").asText()).isEqualTo("pool-a");
          assertThat(serialization.asJson(machine)).contains("\"deep\"");
          JsonNode tree = serialization.unmarshal(machine(10_000), JsonNode.class);
          assertThat(serialization.convertValue(tree, Machine.class).boundPoolName())
              .isEqualTo("pool-a");
          assertThat(tree.equals(tree.deepCopy())).isTrue();
        });
  }

  /**
   * A LIST response is not bounded by the API server (here 600 Machines of ~20 KB, about 12 MiB, as
   * a page of 500 large Machines can be): it decodes, items and all.
   */
  @Test
  void listResponsesLargerThanAnyRequestBodyAreRead() throws Exception {
    String status = "\"status\":{\"note\":\"" + "s".repeat(20_000) + "\"}";
    StringBuilder list =
        new StringBuilder("{\"apiVersion\":\"compute.ironcore.dev/v1alpha1\",")
            .append("\"kind\":\"MachineList\",\"metadata\":{},\"items\":[");
    for (int i = 0; i < 600; i++) {
      list.append(i == 0 ? "" : ",")
          .append("{\"apiVersion\":\"compute.ironcore.dev/v1alpha1\",\"kind\":\"Machine\",")
          .append("\"metadata\":{\"name\":\"m-")
          .append(i)
          .append("\",\"namespace\":\"ns\"},")
          .append("\"spec\":{\"machinePoolRef\":{\"name\":\"pool-a\"}},")
          .append(status)
          .append("}");
    }
    String json = list.append("]}").toString();
    assertThat(json.length()).isGreaterThan(JsonMappers.MAX_VALUE_BYTES);

    io.fabric8.kubernetes.api.model.DefaultKubernetesResourceList<Machine> decoded =
        JsonMappers.kubernetesSerialization()
            .unmarshal(
                json,
                new com.fasterxml.jackson.core.type.TypeReference<
                    io.fabric8.kubernetes.api.model.DefaultKubernetesResourceList<Machine>>() {});
    assertThat(decoded.getItems()).hasSize(600);
    assertThat(decoded.getItems().get(599).boundPoolName()).isEqualTo("pool-a");
    assertThat(JsonMappers.shared().readTree(json).get("items").size()).isEqualTo(600);
  }
}
