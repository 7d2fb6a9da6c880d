package dev.ironcore.maintenance.server.mutation;

import static dev.ironcore.maintenance.server.admission.TestReviews.applyWirePatch;
import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static dev.ironcore.maintenance.server.admission.TestReviews.machine;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.server.admission.Operation;
import org.junit.jupiter.api.Test;

class MachineMutatorTest {
  private static final MachineMutator MUTATOR = new MachineMutator();
  private static final String DELETING = "'deletionTimestamp':'2026-01-01T00:00:00Z',";

  private static JsonNode ironcoreMachine(String metadata, String pool) {
    String ref = pool == null ? "" : ",'machinePoolRef':{'name':'" + pool + "'}";
    return json(
        "{'apiVersion':'compute.ironcore.dev/v1alpha1','kind':'Machine','metadata':{"
            + metadata
            + "'name':'m','namespace':'ns'},'spec':{'machineClassRef':{'name':'c'}"
            + ref
            + ",'image':'keep-me'}}");
  }

  @Test
  void boundMachineGetsThePoolletFinalizerOnCreate() {
    JsonNode object = ironcoreMachine("'finalizers':['user/f'],", "pool-a");
    JsonNode patched =
        applyWirePatch(MUTATOR.handle(machine(Operation.CREATE, object, null)), object);
    assertThat(patched.at("/metadata/finalizers"))
        .isEqualTo(json("['user/f','" + Names.POOLLET_FINALIZER + "']"));
    assertThat(patched.at("/spec/image").asText()).isEqualTo("keep-me");
    assertThat(MUTATOR.handle(machine(Operation.CREATE, patched, null)).patch().isEmpty()).isTrue();
  }

  @Test
  void unboundMachineNeverGetsIt() {
    assertThat(
            MUTATOR
                .handle(machine(Operation.CREATE, ironcoreMachine("", null), null))
                .patch()
                .isEmpty())
        .isTrue();
    assertThat(
            MUTATOR
                .handle(machine(Operation.CREATE, ironcoreMachine("", ""), null))
                .patch()
                .isEmpty())
        .isTrue();
    assertThat(
            MUTATOR
                .handle(
                    machine(Operation.UPDATE, ironcoreMachine("", null), ironcoreMachine("", null)))
                .patch()
                .isEmpty())
        .isTrue();
  }

  @Test
  void aMachineBoundToANameNoPoolCanHaveNeverGetsIt() {
    for (String bad : new String[] {"Pool_A", "a b", "-x", "x".repeat(254)}) {
      assertThat(
              MUTATOR
                  .handle(machine(Operation.CREATE, ironcoreMachine("", bad), null))
                  .patch()
                  .isEmpty())
          .as(bad)
          .isTrue();
    }
  }

  @Test
  void bindingLaterAddsIt() {
    JsonNode object = ironcoreMachine("", "pool-a");
    JsonNode patched =
        applyWirePatch(
            MUTATOR.handle(machine(Operation.UPDATE, object, ironcoreMachine("", null))), object);
    assertThat(patched.at("/metadata/finalizers"))
        .isEqualTo(json("['" + Names.POOLLET_FINALIZER + "']"));
  }

  @Test
  void liveBoundMachineGetsItBackWhenRemoved() {
    JsonNode old = ironcoreMachine("'finalizers':['" + Names.POOLLET_FINALIZER + "'],", "pool-a");
    JsonNode object = ironcoreMachine("'finalizers':[],", "pool-a");
    assertThat(MUTATOR.handle(machine(Operation.UPDATE, object, old)).patch().toJson())
        .isEqualTo(
            json(
                "[{'op':'add','path':'/metadata/finalizers/-','value':'"
                    + Names.POOLLET_FINALIZER
                    + "'}]"));
  }

  @Test
  void deletingMachineNeverGetsIt() {
    JsonNode old =
        ironcoreMachine(
            DELETING + "'finalizers':['" + Names.POOLLET_FINALIZER + "','user/f'],", "pool-a");
    JsonNode object = ironcoreMachine(DELETING + "'finalizers':['user/f'],", "pool-a");
    assertThat(MUTATOR.handle(machine(Operation.UPDATE, object, old)).patch().isEmpty()).isTrue();
    assertThat(
            MUTATOR
                .handle(machine(Operation.UPDATE, ironcoreMachine("", "pool-a"), old))
                .patch()
                .isEmpty())
        .isTrue();
    assertThat(MUTATOR.handle(machine(Operation.DELETE, null, old)).patch().isEmpty()).isTrue();
  }

  @Test
  void aNonStringDeletionTimestampCountsAsDeleting() {
    JsonNode deleting = ironcoreMachine("'deletionTimestamp':1767225600,", "pool-a");
    assertThat(MUTATOR.handle(machine(Operation.UPDATE, deleting, deleting)).patch().isEmpty())
        .isTrue();
  }
}
