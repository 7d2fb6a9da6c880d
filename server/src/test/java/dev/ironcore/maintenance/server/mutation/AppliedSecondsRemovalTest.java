package dev.ironcore.maintenance.server.mutation;

import static dev.ironcore.maintenance.server.admission.TestReviews.applyWirePatch;
import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static dev.ironcore.maintenance.server.admission.TestReviews.machine;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.conversion.ComputeConverter;
import dev.ironcore.maintenance.server.conversion.ComputeVersions;
import org.junit.jupiter.api.Test;

/** A v1alpha1 kubectl apply whose manifest stops giving tolerationSeconds (fresh eyes, s. 51). */
class AppliedSecondsRemovalTest {
  private static final MachineMutator MUTATOR = new MachineMutator();
  private static final String UP = "{'key':'up','operator':'Exists','effect':'NoExecute'";
  private static final String OTHER =
      "{'key':'other','operator':'Exists','effect':'NoExecute','tolerationSeconds':60}";

  /**
   * The v1alpha1 form (as a read shows it) of an unbound Machine (no poollet finalizer to add) with
   * these v1alpha2 tolerations, and kubectl's record of the manifest applied last, if any.
   */
  private static ObjectNode v1alpha1(String tolerations, String manifestTolerations) {
    try {
      ObjectNode v1 =
          ComputeConverter.convert(
              json(
                  "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'Machine','metadata':{"
                      + "'name':'m','namespace':'ns','labels':{'app':'x'},'annotations':{'note':'kept'}},"
                      + "'spec':{"
                      + "'tolerations':["
                      + tolerations
                      + "]}}"),
              ComputeVersions.V1ALPHA1);
      if (manifestTolerations != null) {
        ((ObjectNode) v1.at("/metadata/annotations"))
            .put(
                AppliedSecondsRemoval.LAST_APPLIED,
                json("{'apiVersion':'compute.ironcore.dev/v1alpha1','kind':'Machine',"
                        + "'metadata':{'name':'m','namespace':'ns'},'spec':{'tolerations':["
                        + manifestTolerations
                        + "]}}")
                    .toString());
      }
      return v1;
    } catch (dev.ironcore.maintenance.server.conversion.ConversionException e) {
      throw new AssertionError(e);
    }
  }

  /** The object as it will be stored: the patched v1alpha1 object, up-converted. */
  private static JsonNode stored(ObjectNode object, ObjectNode oldObject) throws Exception {
    JsonNode patched =
        applyWirePatch(MUTATOR.handle(machine(Operation.UPDATE, object, oldObject)), object);
    return ComputeConverter.convert(patched, ComputeVersions.V1ALPHA2);
  }

  @Test
  void secondsTheManifestStoppedGivingAreRemovedTheOthersStay() throws Exception {
    String before = UP + ",'tolerationSeconds':5}," + OTHER;
    ObjectNode old = v1alpha1(before, before);
    // kubectl's patch: the entries as the manifest has them (other's seconds on its entry, as
    // sent), the annotation as read, the new manifest recorded
    ObjectNode object = v1alpha1(before, UP + "}," + OTHER);
    ((ObjectNode) object.at("/spec/tolerations/1")).put("tolerationSeconds", 60);
    JsonNode stored = stored(object, old);
    assertThat(stored.at("/spec/tolerations/0")).isEqualTo(json(UP + "}"));
    assertThat(stored.at("/spec/tolerations/1")).isEqualTo(json(OTHER));
    assertThat(stored.at("/metadata/annotations/note").asText()).isEqualTo("kept");
  }

  @Test
  void theAnnotationGoesWhenNothingIsLeftToKeep() throws Exception {
    String before = UP + ",'tolerationSeconds':5}";
    ObjectNode object = v1alpha1(before, UP + "}");
    JsonNode patched =
        applyWirePatch(
            MUTATOR.handle(machine(Operation.UPDATE, object, v1alpha1(before, before))), object);
    assertThat(patched.at("/metadata/annotations").has(Names.V1ALPHA2_FIELDS_ANNOTATION)).isFalse();
    assertThat(patched.at("/spec/tolerations")).isEqualTo(json("[" + UP + "}]"));
  }

  @Test
  void otherWritesKeepTheSeconds() throws Exception {
    String with = UP + ",'tolerationSeconds':5}";
    // the same manifest again (kubectl apply of an unchanged file)
    assertThat(
            MUTATOR
                .handle(machine(Operation.UPDATE, v1alpha1(with, with), v1alpha1(with, with)))
                .patch()
                .isEmpty())
        .isTrue();
    // kubectl edit, replace, a typed client: no manifest, or the manifest unchanged
    assertThat(
            MUTATOR
                .handle(machine(Operation.UPDATE, v1alpha1(with, null), v1alpha1(with, null)))
                .patch()
                .isEmpty())
        .isTrue();
    assertThat(
            MUTATOR
                .handle(machine(Operation.UPDATE, v1alpha1(with, UP + "}"), v1alpha1(with, null)))
                .patch()
                .isEmpty())
        .as("a first apply over an object created otherwise: its manifest never gave them")
        .isTrue();
    // a manifest that gave other seconds before (changed by another writer since) still gives
    // none now, but never gave these: kept
    assertThat(
            MUTATOR
                .handle(
                    machine(
                        Operation.UPDATE,
                        v1alpha1(with, UP + "}"),
                        v1alpha1(with, UP + ",'tolerationSeconds':9}")))
                .patch()
                .isEmpty())
        .isTrue();
    // a manifest that changed something else and still gives them
    assertThat(
            MUTATOR
                .handle(
                    machine(
                        Operation.UPDATE, v1alpha1(with, with + "," + OTHER), v1alpha1(with, with)))
                .patch()
                .isEmpty())
        .isTrue();
  }

  @Test
  void twinsKeepTheirOwn() throws Exception {
    String with = UP + ",'tolerationSeconds':5}";
    ObjectNode object = v1alpha1(with + "," + UP + "}", UP + "}," + UP + "}");
    ObjectNode old = v1alpha1(with + "," + UP + "}", with + "," + UP + "}");
    JsonNode stored = stored(object, old);
    assertThat(stored.at("/spec/tolerations")).isEqualTo(json("[" + UP + "}," + UP + "}]"));
    // the twin the manifest still gives seconds to keeps them
    ObjectNode keeps = v1alpha1(with + "," + UP + "}", with + "," + UP + "}");
    assertThat(
            MUTATOR
                .handle(
                    machine(
                        Operation.UPDATE,
                        keeps,
                        v1alpha1(with + "," + UP + "}", with + "," + UP + "},{'key':'x'}")))
                .patch()
                .isEmpty())
        .isTrue();
  }

  /**
   * Review (session 51): a v1alpha1 read saved and applied again (or replaced: kubectl keeps the
   * record current) carries the annotation, which gives the seconds: they stay.
   */
  @Test
  void aReadAppliedAgainKeepsTheSecondsItsAnnotationGives() throws Exception {
    String with = UP + ",'tolerationSeconds':5}";
    ObjectNode read = v1alpha1(with, null);
    ObjectNode manifest = read.deepCopy();
    ((ObjectNode) manifest.at("/metadata/annotations")).remove("note");
    ObjectNode object = v1alpha1(with, null);
    ((ObjectNode) object.at("/metadata/annotations"))
        .put(AppliedSecondsRemoval.LAST_APPLIED, manifest.toString());
    ((ObjectNode) object.at("/metadata/labels")).put("changed", "yes");
    assertThat(
            MUTATOR
                .handle(machine(Operation.UPDATE, object, v1alpha1(with, with)))
                .patch()
                .isEmpty())
        .isTrue();
  }

  /** A manifest the API server would refuse, or one of very many tokens, is not read. */
  @Test
  void oversizedManifestsAreLeftAsTheyAre() {
    String with = UP + ",'tolerationSeconds':5}";
    String many = "{},".repeat(40_000); // 80,000 tokens in 120 KB
    assertThat(
            MUTATOR
                .handle(
                    machine(
                        Operation.UPDATE, v1alpha1(with, many + UP + "}"), v1alpha1(with, with)))
                .patch()
                .isEmpty())
        .isTrue();
    ObjectNode huge = v1alpha1(with, UP + "}");
    ((ObjectNode) huge.at("/metadata/annotations"))
        .put(
            AppliedSecondsRemoval.LAST_APPLIED,
            huge.at("/metadata/annotations").path(AppliedSecondsRemoval.LAST_APPLIED).asText()
                + " ".repeat(256 * 1024));
    assertThat(
            MUTATOR.handle(machine(Operation.UPDATE, huge, v1alpha1(with, with))).patch().isEmpty())
        .isTrue();
  }
}
