package dev.ironcore.maintenance.api.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.compute.Machine;
import java.util.List;
import org.junit.jupiter.api.Test;

class CacheTrimTest {
  private static final String MACHINE =
      """
      {"apiVersion":"compute.ironcore.dev/v1alpha1","kind":"Machine",
       "metadata":{"name":"vm-1","namespace":"ns","uid":"u-1","resourceVersion":"7",
        "deletionTimestamp":"2026-11-30T16:00:00Z","finalizers":["machinepoollet.ironcore.dev/machine"],
        "labels":{"app":"web"},"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"},
        "managedFields":[{"manager":"kubectl","operation":"Update","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}}}]},
       "spec":{"machineClassRef":{"name":"x3"},"machinePoolRef":{"name":"pool-a"},"image":"gardenlinux",
        "tolerations":[{"key":"maintenance.ironcore.dev","operator":"Exists","effect":"NoExecute"}],
        "volumes":[{"name":"root"}]},
       "status":{"state":"Running"}}
      """;

  @Test
  void aCachedMachineKeepsWhatTheLoopsReadAndNothingElse() {
    Machine m =
        CacheTrim.machine(
            dev.ironcore.maintenance.api.json.JsonMappers.kubernetesSerialization()
                .unmarshal(MACHINE, Machine.class));

    assertThat(m.getMetadata().getName()).isEqualTo("vm-1");
    assertThat(m.getMetadata().getNamespace()).isEqualTo("ns");
    assertThat(m.getMetadata().getUid()).isEqualTo("u-1");
    assertThat(m.getMetadata().getResourceVersion()).isEqualTo("7");
    assertThat(m.getMetadata().getDeletionTimestamp()).isEqualTo("2026-11-30T16:00:00Z");
    assertThat(m.getMetadata().getFinalizers())
        .containsExactly("machinepoollet.ironcore.dev/machine");
    assertThat(m.getMetadata().getLabels()).containsEntry("app", "web");
    assertThat(m.boundPoolName()).isEqualTo("pool-a");
    assertThat(m.getSpec().getTolerations()).hasSize(1);
    assertThat(m.getSpec().getTolerations().get(0).getKey()).isEqualTo("maintenance.ironcore.dev");

    assertThat(m.getMetadata().getManagedFields()).isNull();
    assertThat(m.getMetadata().getAnnotations()).isNull();
    assertThat(m.getSpec().getMachineClassRef()).isNull();
    assertThat(m.getSpec().getAdditionalProperties()).isEmpty();
    assertThat(m.getStatus()).isNull();
  }

  @Test
  void otherObjectsLoseOnlyTheirManagedFields() {
    Machine m =
        CacheTrim.stripManagedFields(
            dev.ironcore.maintenance.api.json.JsonMappers.kubernetesSerialization()
                .unmarshal(MACHINE, Machine.class));

    assertThat(m.getMetadata().getManagedFields()).isNull();
    assertThat(m.getMetadata().getAnnotations()).isNotEmpty();
    assertThat(m.getSpec().getAdditionalProperties()).containsKeys("image", "volumes");
    assertThat(m.getStatus()).isNotNull();
  }

  @Test
  void theStoreKeepsTheTrimmedObjectUnderItsKey() {
    var store = CacheTrim.store(CacheTrim::machine);
    Machine m =
        dev.ironcore.maintenance.api.json.JsonMappers.kubernetesSerialization()
            .unmarshal(MACHINE, Machine.class);

    store.put(store.getKey(m), m);

    assertThat(store.getKey(m)).isEqualTo("ns/vm-1");
    assertThat(store.get("ns/vm-1").getMetadata().getManagedFields()).isNull();
    assertThat(store.values().toList()).hasSize(1);
    assertThat(store.keySet().toList()).isEqualTo(List.of("ns/vm-1"));
  }
}
