package dev.ironcore.maintenance.api.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachineV1alpha2;
import dev.ironcore.maintenance.api.json.JsonMappers;
import io.fabric8.kubernetes.api.model.DefaultKubernetesResourceList;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The informers' Machine classes decode exactly what {@link CacheTrim#machine} keeps. */
class CachedMachinesTest {
  static final KubernetesSerialization SERIALIZATION = JsonMappers.kubernetesSerialization();

  static final String MACHINE =
      """
      {"apiVersion":"compute.ironcore.dev/v1alpha2","kind":"Machine",
       "metadata":{"name":"vm-1","namespace":"ns","uid":"u-1","resourceVersion":"7",
        "generation":3,"creationTimestamp":"2026-11-30T15:00:00Z",
        "deletionTimestamp":"2026-11-30T16:00:00Z","deletionGracePeriodSeconds":0,
        "finalizers":["machinepoollet.ironcore.dev/machine"],
        "labels":{"app":"web"},"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"},
        "ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":"u-0"}],
        "managedFields":[{"manager":"kubectl","operation":"Update","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}}}]},
       "spec":{"machineClassRef":{"name":"x3"},"machinePoolRef":{"name":"pool-a"},"image":"gardenlinux",
        "machinePoolSelector":{"zone":"a"},"power":"On",
        "tolerations":[{"key":"maintenance.ironcore.dev","operator":"Exists","effect":"NoExecute",
                        "tolerationSeconds":30},
                       {"key":"k","operator":"Equal","value":"v","effect":"NoSchedule"}],
        "volumes":[{"name":"root","ephemeral":{"volumeTemplate":{"spec":{"volumeClassRef":{"name":"fast"}}}}}],
        "networkInterfaces":[{"name":"primary","ephemeral":{"networkInterfaceTemplate":{"spec":{"ips":["10.0.0.1"]}}}}]},
       "status":{"state":"Running","networkInterfaces":[{"name":"primary","ips":["10.0.0.1"]}]}}
      """;

  /** The object as the cache keeps it, in JSON, and its decode error: decoded whole, trimmed. */
  static JsonNode trimmedWhole(String json, Class<? extends Machine> type) {
    return SERIALIZATION.convertValue(
        CacheTrim.machine(SERIALIZATION.unmarshal(json, type)), JsonNode.class);
  }

  /** The same, decoded as the informer's class. */
  static JsonNode trimmedCached(String json, Class<? extends Machine> type) {
    return SERIALIZATION.convertValue(
        CacheTrim.machine(SERIALIZATION.unmarshal(json, CachedMachines.of(type))), JsonNode.class);
  }

  @Test
  void aCachedMachineIsTheWholeOneTrimmedInBothVersions() {
    for (Class<? extends Machine> type : List.of(Machine.class, MachineV1alpha2.class)) {
      String json = type == Machine.class ? MACHINE.replace("/v1alpha2\"", "/v1alpha1\"") : MACHINE;
      JsonNode cached = trimmedCached(json, type);
      assertThat(cached).as(type.getSimpleName()).isEqualTo(trimmedWhole(json, type));
      assertThat(cached.at("/spec/tolerations/0/tolerationSeconds").asInt()).isEqualTo(30);
      assertThat(cached.at("/metadata/finalizers/0").asText())
          .isEqualTo("machinepoollet.ironcore.dev/machine");
      assertThat(cached.at("/metadata/deletionTimestamp").asText())
          .isEqualTo("2026-11-30T16:00:00Z");
    }
  }

  @Test
  void theSkippedFieldsAreNeverBuilt() {
    Machine m = SERIALIZATION.unmarshal(MACHINE, CachedMachines.of(MachineV1alpha2.class));

    assertThat(m).isInstanceOf(MachineV1alpha2.class);
    assertThat(m.getApiVersion()).isEqualTo("compute.ironcore.dev/v1alpha2");
    assertThat(m.getStatus()).isNull();
    assertThat(m.getMetadata().getManagedFields()).isEmpty();
    assertThat(m.getMetadata().getAnnotations()).isEmpty();
    assertThat(m.getMetadata().getAdditionalProperties()).isEmpty();
    assertThat(m.getSpec().getAdditionalProperties()).isEmpty();
    assertThat(m.getSpec().getMachineClassRef()).isNull();
    assertThat(m.boundPoolName()).isEqualTo("pool-a");
    assertThat(m.getSpec().getTolerations()).hasSize(2);
  }

  @Test
  void aListDecodesIntoTheCachedClass() {
    String list =
        "{\"apiVersion\":\"compute.ironcore.dev/v1alpha2\",\"kind\":\"MachineList\","
            + "\"metadata\":{\"resourceVersion\":\"9\"},\"items\":["
            + MACHINE
            + ","
            + MACHINE.replace("\"vm-1\"", "\"vm-2\"")
            + "]}";
    DefaultKubernetesResourceList<CachedMachines.V1alpha2> decoded =
        SERIALIZATION.unmarshal(
            list,
            new com.fasterxml.jackson.core.type.TypeReference<
                DefaultKubernetesResourceList<CachedMachines.V1alpha2>>() {});

    assertThat(decoded.getItems())
        .extracting(m -> m.getMetadata().getName())
        .containsExactly("vm-1", "vm-2");
    assertThat(decoded.getItems()).allSatisfy(m -> assertThat(m.getStatus()).isNull());
  }

  @Test
  void aMachineWhoseTolerationsDoNotFitIsSalvagedAsBefore() {
    String bad = MACHINE.replace("\"tolerations\":[", "\"tolerations\":[\"not-a-toleration\",");
    Machine whole = SERIALIZATION.unmarshal(bad, MachineV1alpha2.class);
    Machine cached = SERIALIZATION.unmarshal(bad, CachedMachines.of(MachineV1alpha2.class));

    assertThat(cached.decodeError()).isNotNull();
    assertThat(whole.decodeError()).isNotNull();
    assertThat(cached.boundPoolName()).isEqualTo("pool-a");
    assertThat(cached.getSpec().getTolerations()).isNull();
    assertThat(trimmedCached(bad, MachineV1alpha2.class))
        .isEqualTo(trimmedWhole(bad, MachineV1alpha2.class));
  }

  @Test
  void aMachineWhoseStatusDoesNotFitDecodesForTheCache() {
    // the cache never reads the status: the whole decode salvages it (tolerations unknown), the
    // cached one keeps the tolerations
    String bad =
        MACHINE.replace("\"status\":{\"state\":\"Running\",", "\"status\":{\"state\":[1],");
    Machine cached = SERIALIZATION.unmarshal(bad, CachedMachines.of(MachineV1alpha2.class));

    assertThat(cached.decodeError()).isNull();
    assertThat(cached.getSpec().getTolerations()).hasSize(2);
  }
}
