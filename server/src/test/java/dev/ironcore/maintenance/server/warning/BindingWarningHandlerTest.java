package dev.ironcore.maintenance.server.warning;

import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static dev.ironcore.maintenance.server.admission.TestReviews.machine;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.server.admission.AdmissionHandler;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.Operation;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@link BindingWarningHandler} with pools the test gives, counting the lookups. */
class BindingWarningHandlerTest {
  private static final AdmissionHandler ALLOW = r -> AdmissionResponse.allowed();
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-12-07T10:00:00Z"), ZoneOffset.UTC);
  private final List<String> lookedUp = new ArrayList<>();

  private BoundMachines pools(String taints) {
    return new BoundMachines() {
      @Override
      public Optional<List<dev.ironcore.maintenance.api.compute.Machine>> boundTo(String pool) {
        throw new AssertionError("no list for a Machine's write");
      }

      @Override
      public Optional<MachinePool> pool(String name) {
        lookedUp.add(name);
        return name.equals("pool-c")
            ? Optional.of(
                dev.ironcore.maintenance.server.admission.TestReviews.MAPPER.convertValue(
                    json(
                        "{\"metadata\":{\"name\":\"pool-c\"},\"spec\":{\"taints\":"
                            + taints
                            + "}}"),
                    MachinePool.class))
            : Optional.empty();
      }
    };
  }

  private static String vm(String apiVersion, String pool, String tolerations, String annotations) {
    return "{\"apiVersion\":\"compute.ironcore.dev/"
        + apiVersion
        + "\",\"kind\":\"Machine\",\"metadata\":{\"name\":\"vm\",\"namespace\":\"ns\""
        + (annotations == null ? "" : ",\"annotations\":" + annotations)
        + "},\"spec\":{"
        + (pool == null ? "" : "\"machinePoolRef\":{\"name\":\"" + pool + "\"},")
        + "\"tolerations\":"
        + tolerations
        + "}}";
  }

  private AdmissionResponse write(String taints, String object, String oldObject) {
    return new BindingWarningHandler(ALLOW, pools(taints), CLOCK)
        .handle(
            machine(
                oldObject == null ? Operation.CREATE : Operation.UPDATE,
                json(object),
                oldObject == null ? null : json(oldObject)));
  }

  private static final String NO_EXECUTE = "[{\"key\":\"upgrade\",\"effect\":\"NoExecute\"}]";

  @Test
  void aMachineBoundToAPoolWhoseNoExecuteTaintItDoesNotTolerateIsWarned() {
    assertThat(write(NO_EXECUTE, vm("v1alpha2", "pool-c", "[]", null), null).warnings())
        .containsExactly(
            "MachinePool pool-c: this Machine does not tolerate upgrade:NoExecute and will be"
                + " evicted");
    String unbound = vm("v1alpha2", null, "[]", null);
    assertThat(write(NO_EXECUTE, vm("v1alpha2", "pool-c", "[]", null), unbound).warnings())
        .as("bound by an UPDATE, as IronCore's scheduler binds")
        .hasSize(1);
  }

  @Test
  void tolerationSecondsCountInEitherVersion() throws Exception {
    String forThirty =
        "[{\"key\":\"upgrade\",\"operator\":\"Exists\",\"effect\":\"NoExecute\","
            + "\"tolerationSeconds\":30}]";
    String expected =
        "MachinePool pool-c: this Machine tolerates upgrade:NoExecute for 30 s only"
            + " (tolerationSeconds) and will be evicted then";
    assertThat(write(NO_EXECUTE, vm("v1alpha2", "pool-c", forThirty, null), null).warnings())
        .containsExactly(expected);
    // v1alpha1 keeps the seconds in its annotation: the conversion reads them back
    String v1alpha1 =
        dev.ironcore.maintenance.server.conversion.ComputeConverter.convert(
                json(vm("v1alpha2", "pool-c", forThirty, null)), "compute.ironcore.dev/v1alpha1")
            .toString();
    assertThat(v1alpha1).doesNotContain("\"tolerationSeconds\":30}]}");
    assertThat(write(NO_EXECUTE, v1alpha1, null).warnings()).containsExactly(expected);
    // an API server that serves v1alpha1 only: the eviction tolerates it for good, so no warning
    BoundMachines v1alpha1Only =
        new BoundMachines() {
          private final BoundMachines pools = pools(NO_EXECUTE);

          @Override
          public Optional<List<dev.ironcore.maintenance.api.compute.Machine>> boundTo(String p) {
            return Optional.empty();
          }

          @Override
          public Optional<MachinePool> pool(String name) {
            return pools.pool(name);
          }

          @Override
          public boolean tolerationSecondsCount() {
            return false;
          }
        };
    assertThat(
            new BindingWarningHandler(ALLOW, v1alpha1Only, CLOCK)
                .handle(machine(Operation.CREATE, json(v1alpha1), null))
                .warnings())
        .isEmpty();
  }

  @Test
  void nothingToSayIsSaidWithoutALookupWhereNoneIsNeeded() {
    String tolerant = "[{\"key\":\"upgrade\",\"operator\":\"Exists\",\"effect\":\"NoExecute\"}]";
    assertThat(write(NO_EXECUTE, vm("v1alpha2", "pool-c", tolerant, null), null).warnings())
        .as("tolerated for good")
        .isEmpty();
    assertThat(
            write(
                    "[{\"key\":\"k\",\"effect\":\"NoSchedule\"}]",
                    vm("v1alpha2", "pool-c", "[]", null),
                    null)
                .warnings())
        .as("no NoExecute taint")
        .isEmpty();
    assertThat(write(NO_EXECUTE, vm("v1alpha2", "pool-x", "[]", null), null).warnings())
        .as("pool not known")
        .isEmpty();
    lookedUp.clear();
    String bound = vm("v1alpha2", "pool-c", "[]", null);
    assertThat(write(NO_EXECUTE, bound, bound).warnings())
        .as("bound before this write: the binding cannot change")
        .isEmpty();
    assertThat(write(NO_EXECUTE, vm("v1alpha2", null, "[]", null), null).warnings())
        .as("not bound")
        .isEmpty();
    assertThat(lookedUp).as("neither looks a pool up").isEmpty();
  }

  @Test
  void aDeniedWriteStaysDeniedAndALookupThatFailsAddsNothing() {
    AdmissionResponse denied =
        new BindingWarningHandler(r -> AdmissionResponse.denied("no"), pools(NO_EXECUTE), CLOCK)
            .handle(machine(Operation.CREATE, json(vm("v1alpha2", "pool-c", "[]", null)), null));
    assertThat(denied.isAllowed()).isFalse();
    assertThat(denied.warnings()).isEmpty();
    BoundMachines failing =
        new BoundMachines() {
          @Override
          public Optional<List<dev.ironcore.maintenance.api.compute.Machine>> boundTo(String p) {
            return Optional.empty();
          }

          @Override
          public Optional<MachinePool> pool(String name) {
            throw new IllegalStateException("no answer");
          }
        };
    AdmissionResponse allowed =
        new BindingWarningHandler(ALLOW, failing, CLOCK)
            .handle(machine(Operation.CREATE, json(vm("v1alpha2", "pool-c", "[]", null)), null));
    assertThat(allowed.isAllowed()).isTrue();
    assertThat(allowed.warnings()).isEmpty();
  }
}
