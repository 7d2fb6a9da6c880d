package dev.ironcore.maintenance.server.mutation;

import static dev.ironcore.maintenance.server.admission.TestReviews.applyWirePatch;
import static dev.ironcore.maintenance.server.admission.TestReviews.capiMachine;
import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.selector.LabelSelector;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.Operation;
import org.junit.jupiter.api.Test;

class CapiMachineMutatorTest {
  private static final CapiMachineMutator ALL = new CapiMachineMutator(LabelSelector.everything());
  private static final String HOOK = Names.PRE_DRAIN_HOOK_ANNOTATION;

  private static JsonNode machine(String metadata) {
    return json(
        "{'apiVersion':'cluster.x-k8s.io/v1beta2','kind':'Machine','metadata':"
            + metadata
            + ",'spec':{'clusterName':'c'}}");
  }

  @Test
  void createAddsFinalizerAndHookKeepingTheUsersOwn() {
    JsonNode object =
        machine(
            "{'name':'m','namespace':'ns','finalizers':['user/f'],'annotations':{'user/a':'1'}}");
    JsonNode patched =
        applyWirePatch(ALL.handle(capiMachine(Operation.CREATE, object, null)), object);
    assertThat(patched.at("/metadata/finalizers"))
        .isEqualTo(json("['user/f','" + Names.CLEANUP_FINALIZER + "']"));
    assertThat(patched.at("/metadata/annotations"))
        .isEqualTo(json("{'user/a':'1','" + HOOK + "':'" + Names.PRE_DRAIN_HOOK_VALUE + "'}"));
    assertThat(patched.get("spec")).isEqualTo(object.get("spec"));
  }

  @Test
  void createWithoutMetadataMapsAddsThemWhole() {
    JsonNode object = machine("{'name':'m'}");
    AdmissionResponse response = ALL.handle(capiMachine(Operation.CREATE, object, null));
    assertThat(response.patch().toJson())
        .isEqualTo(
            json(
                "[{'op':'add','path':'/metadata/finalizers','value':['"
                    + Names.CLEANUP_FINALIZER
                    + "']},{'op':'add','path':'/metadata/annotations','value':{'"
                    + HOOK
                    + "':'"
                    + Names.PRE_DRAIN_HOOK_VALUE
                    + "'}}]"));
  }

  /**
   * Fresh eyes (session 42): annotations just under 256 KiB went over with the hook this webhook
   * adds, and the API server's refusal blamed the client's annotations.
   */
  @Test
  void aHookThatWouldTakeTheAnnotationsOver256KiBIsRefusedNamingIt() {
    long hook = (HOOK + Names.PRE_DRAIN_HOOK_VALUE).length();
    String room = "x".repeat((int) (256 * 1024 - "user/a".length() - hook + 1));
    JsonNode over =
        machine("{'name':'m','namespace':'ns','annotations':{'user/a':'" + room + "'}}");
    AdmissionResponse refused = ALL.handle(capiMachine(Operation.CREATE, over, null));
    assertThat(refused.isAllowed()).isFalse();
    assertThat(refused.code()).isEqualTo(422);
    assertThat(refused.message())
        .contains(
            "metadata.annotations: Forbidden: the pre-drain hook annotation "
                + HOOK
                + "="
                + Names.PRE_DRAIN_HOOK_VALUE
                + " that ironcore-maintenance adds",
            "would make the annotations total 262145 bytes, more than the 262144 Kubernetes"
                + " allows (those sent: "
                + (262145 - hook)
                + " bytes); use fewer or shorter annotations");
    JsonNode fits =
        machine(
            "{'name':'m','namespace':'ns','annotations':{'user/a':'" + room.substring(1) + "'}}");
    assertThat(ALL.handle(capiMachine(Operation.CREATE, fits, null)).isAllowed()).isTrue();
    JsonNode overAlready =
        machine(
            "{'name':'m','namespace':'ns','annotations':{'user/a':'"
                + room
                + "x".repeat((int) hook)
                + "'}}");
    assertThat(ALL.handle(capiMachine(Operation.CREATE, overAlready, null)).isAllowed())
        .as("over without the hook: the API server says so itself")
        .isTrue();
  }

  @Test
  void objectThatHasBothGetsNoPatch() {
    JsonNode object =
        applyWirePatch(
            ALL.handle(capiMachine(Operation.CREATE, machine("{'name':'m'}"), null)),
            machine("{'name':'m'}"));
    AdmissionResponse again = ALL.handle(capiMachine(Operation.UPDATE, object, object));
    assertThat(again.isAllowed()).isTrue();
    assertThat(again.patch().isEmpty()).isTrue();
    assertThat(again.toJson("u").has("patchType")).isFalse();
  }

  @Test
  void updateOfALiveMachineRestoresWhatIsMissing() {
    JsonNode old =
        machine(
            "{'name':'m','finalizers':['"
                + Names.CLEANUP_FINALIZER
                + "'],'annotations':{'"
                + HOOK
                + "':'"
                + Names.PRE_DRAIN_HOOK_VALUE
                + "'}}");
    JsonNode object = machine("{'name':'m','finalizers':[],'annotations':{}}");
    JsonNode patched =
        applyWirePatch(ALL.handle(capiMachine(Operation.UPDATE, object, old)), object);
    assertThat(patched.at("/metadata/finalizers"))
        .isEqualTo(json("['" + Names.CLEANUP_FINALIZER + "']"));
    assertThat(patched.at("/metadata/annotations/" + HOOK.replace("/", "~1")).asText())
        .isEqualTo(Names.PRE_DRAIN_HOOK_VALUE);
  }

  @Test
  void deletingMachineNeverGetsAPatch() {
    String deleting = "'deletionTimestamp':'2026-01-01T00:00:00Z'";
    JsonNode old =
        machine(
            "{'name':'m',"
                + deleting
                + ",'finalizers':['"
                + Names.CLEANUP_FINALIZER
                + "','user/f'],'annotations':{'"
                + HOOK
                + "':'"
                + Names.PRE_DRAIN_HOOK_VALUE
                + "'}}");
    JsonNode dropped = machine("{'name':'m'," + deleting + ",'finalizers':['user/f']}");
    assertThat(ALL.handle(capiMachine(Operation.UPDATE, dropped, old)).patch().isEmpty()).isTrue();
    JsonNode onlyOldDeleting = machine("{'name':'m'}");
    assertThat(ALL.handle(capiMachine(Operation.UPDATE, onlyOldDeleting, old)).patch().isEmpty())
        .isTrue();
    JsonNode onlyNewDeleting = machine("{'name':'m'," + deleting + "}");
    assertThat(
            ALL.handle(capiMachine(Operation.UPDATE, onlyNewDeleting, machine("{'name':'m'}")))
                .patch()
                .isEmpty())
        .isTrue();
  }

  @Test
  void deleteAndSubresourceRequestsGetNoPatch() {
    JsonNode object = machine("{'name':'m'}");
    assertThat(ALL.handle(capiMachine(Operation.DELETE, null, object)).patch().isEmpty()).isTrue();
    var status =
        dev.ironcore.maintenance.server.admission.TestReviews.review(
            "u",
            "cluster.x-k8s.io",
            "v1beta2",
            "Machine",
            "machines",
            Operation.UPDATE,
            object,
            object);
    ((com.fasterxml.jackson.databind.node.ObjectNode) status.get("request"))
        .put("subResource", "status");
    assertThat(
            ALL.handle(
                    dev.ironcore.maintenance.server.admission.AdmissionRequest.fromReview(status))
                .patch()
                .isEmpty())
        .isTrue();
  }

  @Test
  void selectorLimitsWhichMachinesAreMutated() {
    CapiMachineMutator workers =
        new CapiMachineMutator(LabelSelector.parse("pool in (ironcore),!skip"));
    JsonNode match = machine("{'name':'m','labels':{'pool':'ironcore'}}");
    JsonNode other = machine("{'name':'m','labels':{'pool':'other'}}");
    JsonNode skipped = machine("{'name':'m','labels':{'pool':'ironcore','skip':''}}");
    assertThat(workers.handle(capiMachine(Operation.CREATE, match, null)).patch().size())
        .isEqualTo(2);
    assertThat(workers.handle(capiMachine(Operation.CREATE, other, null)).patch().isEmpty())
        .isTrue();
    assertThat(workers.handle(capiMachine(Operation.CREATE, skipped, null)).patch().isEmpty())
        .isTrue();
    assertThat(
            workers
                .handle(capiMachine(Operation.CREATE, machine("{'name':'m'}"), null))
                .patch()
                .isEmpty())
        .isTrue();
  }

  @Test
  void anEmptyValueSetSelectsAsKubectlDoes() {
    // "pool notin ()" is "pool notin (\"\")" for kubectl and the API server: no pool label, or a
    // non-empty one
    CapiMachineMutator notEmpty = new CapiMachineMutator(LabelSelector.parse("pool notin ()"));
    CapiMachineMutator empty = new CapiMachineMutator(LabelSelector.parse("pool in ()"));
    JsonNode none = machine("{'name':'m'}");
    JsonNode set = machine("{'name':'m','labels':{'pool':'ironcore'}}");
    JsonNode blank = machine("{'name':'m','labels':{'pool':''}}");
    assertThat(notEmpty.handle(capiMachine(Operation.CREATE, none, null)).patch().size())
        .isEqualTo(2);
    assertThat(notEmpty.handle(capiMachine(Operation.CREATE, set, null)).patch().size())
        .isEqualTo(2);
    assertThat(notEmpty.handle(capiMachine(Operation.CREATE, blank, null)).patch().isEmpty())
        .isTrue();
    assertThat(empty.handle(capiMachine(Operation.CREATE, blank, null)).patch().size())
        .isEqualTo(2);
    assertThat(empty.handle(capiMachine(Operation.CREATE, set, null)).patch().isEmpty()).isTrue();
    assertThat(empty.handle(capiMachine(Operation.CREATE, none, null)).patch().isEmpty()).isTrue();
  }
}
