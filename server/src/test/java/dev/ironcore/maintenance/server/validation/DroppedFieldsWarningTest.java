package dev.ironcore.maintenance.server.validation;

import static dev.ironcore.maintenance.server.admission.TestReviews.machine;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.Operation;
import dev.ironcore.maintenance.server.admission.TestReviews;
import dev.ironcore.maintenance.server.conversion.ComputeConverter;
import dev.ironcore.maintenance.server.conversion.ComputeVersions;
import java.util.List;
import org.junit.jupiter.api.Test;

class DroppedFieldsWarningTest {
  private static final DroppedFieldsWarning HANDLER =
      DroppedFieldsWarning.tolerations(request -> AdmissionResponse.allowed());

  /** Tolerations a (30 s), b (60 s), c (none), as a v1alpha1 client reads them. */
  private static ObjectNode readInV1alpha1() throws Exception {
    ObjectNode v2 =
        (ObjectNode)
            TestReviews.json(
                "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'Machine',"
                    + "'metadata':{'name':'w1','namespace':'ns'},'spec':{'tolerations':["
                    + "{'key':'a','operator':'Exists','effect':'NoExecute','tolerationSeconds':30},"
                    + "{'key':'b','operator':'Exists','effect':'NoExecute','tolerationSeconds':60},"
                    + "{'key':'c','operator':'Exists','effect':'NoExecute'}]}}");
    return ComputeConverter.convert(v2, ComputeVersions.V1ALPHA1);
  }

  /** {@code old} without the annotation, its tolerations changed by {@code change}. */
  private static List<String> warnings(java.util.function.Consumer<ArrayNode> change)
      throws Exception {
    ObjectNode old = readInV1alpha1();
    ObjectNode updated = old.deepCopy();
    ((ObjectNode) updated.at("/metadata/annotations")).remove(Names.V1ALPHA2_FIELDS_ANNOTATION);
    change.accept((ArrayNode) updated.at("/spec/tolerations"));
    return HANDLER.handle(machine(Operation.UPDATE, updated, old)).warnings();
  }

  /**
   * Counts the entries that are still there and lost their seconds (fresh eyes: the net count of
   * members said 2 when all tolerations were removed, and 1 when seconds written on c hid that a
   * and b lost theirs).
   */
  @Test
  void countsTheEntriesThatStayWithoutTheirSeconds() throws Exception {
    assertThat(warnings(list -> {}))
        .singleElement()
        .asString()
        .contains(
            "2 entries lose their tolerationSeconds (a toleration without them tolerates matching NoExecute taints for good)");
    assertThat(warnings(list -> list.remove(0)))
        .singleElement()
        .asString()
        .contains(
            "1 entry loses its tolerationSeconds (a toleration without them tolerates matching NoExecute taints for good)");
    assertThat(warnings(list -> ((ObjectNode) list.get(2)).put("tolerationSeconds", 5)))
        .singleElement()
        .asString()
        .contains("2 entries lose their tolerationSeconds");
    assertThat(warnings(ArrayNode::removeAll)).as("removed, not kept without").isEmpty();
    // a stale copy of the annotation (fresh eyes: "{}" dropped every seconds without a word)
    ObjectNode old = readInV1alpha1();
    ObjectNode stale = old.deepCopy();
    ((ObjectNode) stale.at("/metadata/annotations")).put(Names.V1ALPHA2_FIELDS_ANNOTATION, "{}");
    assertThat(HANDLER.handle(machine(Operation.UPDATE, stale, old)).warnings())
        .singleElement()
        .asString()
        .startsWith(
            "this v1alpha1 update changed the annotation " + Names.V1ALPHA2_FIELDS_ANNOTATION)
        .contains("2 entries lose their tolerationSeconds");
  }

  /**
   * Fresh eyes (sessions 38 and 39): a v1alpha1 JSON Patch of one toleration's value or key, the
   * annotation sent back as read, dropped that toleration's seconds without a word.
   */
  @Test
  void anEntryChangedInPlaceLosesItsSecondsWithAWarning() throws Exception {
    ObjectNode old = readInV1alpha1();
    ObjectNode changed = old.deepCopy();
    ((ObjectNode) changed.at("/spec/tolerations/0")).put("key", "a2");
    assertThat(HANDLER.handle(machine(Operation.UPDATE, changed, old)).warnings())
        .singleElement()
        .asString()
        .startsWith(
            "this v1alpha1 update changed the annotation "
                + Names.V1ALPHA2_FIELDS_ANNOTATION
                + " (or entries it records)")
        .contains(
            "1 entry loses its tolerationSeconds (a toleration without them tolerates matching NoExecute taints for good)");
    ObjectNode valued = old.deepCopy();
    ((ObjectNode) valued.at("/spec/tolerations/1")).put("operator", "Equal").put("value", "y");
    assertThat(HANDLER.handle(machine(Operation.UPDATE, valued, old)).warnings())
        .singleElement()
        .asString()
        .contains("1 entry loses its tolerationSeconds");
    // an entry without seconds changed: nothing lost
    ObjectNode plain = old.deepCopy();
    ((ObjectNode) plain.at("/spec/tolerations/2")).put("key", "c2");
    assertThat(HANDLER.handle(machine(Operation.UPDATE, plain, old)).warnings()).isEmpty();
    // changed beside an added entry (fresh eyes: the index comparison needed equal lengths)
    ObjectNode grown = changed.deepCopy();
    ((ArrayNode) grown.at("/spec/tolerations"))
        .addObject()
        .put("key", "d")
        .put("operator", "Exists")
        .put("effect", "NoSchedule");
    assertThat(HANDLER.handle(machine(Operation.UPDATE, grown, old)).warnings())
        .singleElement()
        .asString()
        .contains("1 entry loses its tolerationSeconds");
  }

  /**
   * Fresh eyes (session 39): a reorder through v1alpha1 (a JSON Patch move, a reversed list in a
   * merge patch, replace or apply) keeps every entry's seconds, and warned that one lost them.
   */
  @Test
  void aReorderWarnsNothing() throws Exception {
    ObjectNode old = readInV1alpha1();
    ArrayNode list = (ArrayNode) old.at("/spec/tolerations");
    for (int[] order : new int[][] {{1, 2, 0}, {2, 0, 1}, {2, 1, 0}, {1, 0, 2}}) {
      ObjectNode reordered = old.deepCopy();
      ArrayNode to = ((ObjectNode) reordered.path("spec")).putArray("tolerations");
      for (int i : order) {
        to.add(list.get(i).deepCopy());
      }
      assertThat(HANDLER.handle(machine(Operation.UPDATE, reordered, old)).warnings())
          .as(java.util.Arrays.toString(order))
          .isEmpty();
    }
  }

  @Test
  void anUpdateKeepingTheAnnotationIsNotWarnedAbout() throws Exception {
    ObjectNode old = readInV1alpha1();
    ObjectNode labelled = old.deepCopy();
    ((ObjectNode) labelled.path("metadata")).putObject("labels").put("x", "y");
    assertThat(HANDLER.handle(machine(Operation.UPDATE, labelled, old)).warnings()).isEmpty();
  }

  /** A v1alpha1 read of tolerations {@code up} written in v1alpha2 as {@code v2Entries}. */
  private static ObjectNode twins(String v2Entries) throws Exception {
    ObjectNode v2 =
        (ObjectNode)
            TestReviews.json(
                "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'Machine',"
                    + "'metadata':{'name':'tw','namespace':'ns'},'spec':{'tolerations':["
                    + v2Entries
                    + "]}}");
    return ComputeConverter.convert(v2, ComputeVersions.V1ALPHA1);
  }

  private static final String UP = "{'key':'up','operator':'Exists','effect':'NoExecute'";

  /**
   * Twins (equal in v1alpha1, one with seconds) are kept by a v1alpha1 write that sends the
   * annotation back as read: no warning. Fresh eyes (session 35): every such write, a verbatim
   * write-back or a label, warned "1 entry loses its tolerationSeconds" while nothing was lost.
   */
  @Test
  void twinsWrittenBackAsReadAreNotWarnedAbout() throws Exception {
    for (String entries :
        List.of(
            UP + "}," + UP + ",'tolerationSeconds':30}",
            UP + ",'tolerationSeconds':30}," + UP + "}",
            UP + "}," + UP + ",'tolerationSeconds':30}," + UP + ",'tolerationSeconds':60}")) {
      ObjectNode old = twins(entries);
      ObjectNode labelled = old.deepCopy();
      ((ObjectNode) labelled.path("metadata")).putObject("labels").put("x", "y");
      assertThat(HANDLER.handle(machine(Operation.UPDATE, labelled, old)).warnings())
          .as(entries)
          .isEmpty();
      // a twin with seconds of its own added beside them: nothing lost either
      ObjectNode added = old.deepCopy();
      ((ArrayNode) added.at("/spec/tolerations"))
          .addObject()
          .put("key", "up")
          .put("operator", "Exists")
          .put("effect", "NoExecute")
          .put("tolerationSeconds", 77);
      assertThat(HANDLER.handle(machine(Operation.UPDATE, added, old)).warnings())
          .as(entries + " + 77 s")
          .isEmpty();
    }
    // the plain twin dropped, the one with seconds (first, so it decides) left without them:
    // with the annotation as read, or without it (fresh eyes: neither warned after the fix above)
    ObjectNode first = twins(UP + ",'tolerationSeconds':30}," + UP + "}");
    ObjectNode patched = first.deepCopy();
    ((ArrayNode) patched.at("/spec/tolerations")).remove(1);
    assertThat(HANDLER.handle(machine(Operation.UPDATE, patched, first)).warnings())
        .as("annotation kept, entry 1 removed")
        .singleElement()
        .asString()
        .contains("1 entry loses its tolerationSeconds");
    ObjectNode replaced = patched.deepCopy();
    ((ObjectNode) replaced.at("/metadata/annotations")).remove(Names.V1ALPHA2_FIELDS_ANNOTATION);
    assertThat(HANDLER.handle(machine(Operation.UPDATE, replaced, first)).warnings())
        .as("annotation removed, entry 1 removed")
        .singleElement()
        .asString()
        .contains("removed the annotation")
        .contains("1 entry loses its tolerationSeconds");
    // the plain twin in front removed, the annotation kept: the one left is without seconds
    // (which one was removed cannot be told; fresh eyes, session 46: no warning at all)
    ObjectNode behind = twins(UP + "}," + UP + ",'tolerationSeconds':30}");
    ObjectNode frontRemoved = behind.deepCopy();
    ((ArrayNode) frontRemoved.at("/spec/tolerations")).remove(0);
    assertThat(HANDLER.handle(machine(Operation.UPDATE, frontRemoved, behind)).warnings())
        .as("annotation kept, entry 0 removed")
        .singleElement()
        .asString()
        .contains("1 entry loses its tolerationSeconds");
    // one twin changed to another key: one had seconds, so one is counted, not its change and the
    // twins' count both
    ObjectNode changed = first.deepCopy();
    ((ObjectNode) changed.at("/spec/tolerations/0")).put("key", "down");
    assertThat(HANDLER.handle(machine(Operation.UPDATE, changed, first)).warnings())
        .as("entry 0 changed")
        .singleElement()
        .asString()
        .contains("1 entry loses its tolerationSeconds");
    // the same beside another entry with seconds (review, session 46: counted 2, a per-list cap)
    ObjectNode beside =
        twins(
            UP
                + ",'tolerationSeconds':10},"
                + UP
                + "},{'key':'x','operator':'Exists',"
                + "'effect':'NoExecute','tolerationSeconds':20}");
    ObjectNode besideChanged = beside.deepCopy();
    ((ObjectNode) besideChanged.at("/spec/tolerations/0")).put("key", "down");
    assertThat(HANDLER.handle(machine(Operation.UPDATE, besideChanged, beside)).warnings())
        .as("entry 0 changed beside x")
        .singleElement()
        .asString()
        .contains("1 entry loses its tolerationSeconds");
    // a twin lost and, in the same write, another entry with seconds changed: both counted,
    // whatever order the looks come in (session 46's final read: one short for some keys)
    for (String other : List.of("x", "a", "z", "m", "k1", "k2", "k3", "w9")) {
      ObjectNode mixed =
          twins(
              UP
                  + "},"
                  + UP
                  + ",'tolerationSeconds':30},{'key':'"
                  + other
                  + "','operator':'Exists','effect':'NoExecute','tolerationSeconds':20}");
      ObjectNode mixedWrite = mixed.deepCopy();
      ((ObjectNode) mixedWrite.at("/spec/tolerations/2")).put("key", other + "-renamed");
      ((ArrayNode) mixedWrite.at("/spec/tolerations")).remove(0);
      assertThat(HANDLER.handle(machine(Operation.UPDATE, mixedWrite, mixed)).warnings())
          .as("plain twin removed and %s renamed", other)
          .singleElement()
          .asString()
          .contains("2 entries lose their tolerationSeconds");
    }
    // the annotation removed: the twin with seconds does lose them, and only it is counted
    ObjectNode old = twins(UP + "}," + UP + ",'tolerationSeconds':30}");
    ObjectNode bare = old.deepCopy();
    ((ObjectNode) bare.at("/metadata/annotations")).remove(Names.V1ALPHA2_FIELDS_ANNOTATION);
    assertThat(HANDLER.handle(machine(Operation.UPDATE, bare, old)).warnings())
        .singleElement()
        .asString()
        .contains("1 entry loses its tolerationSeconds");
  }
}
