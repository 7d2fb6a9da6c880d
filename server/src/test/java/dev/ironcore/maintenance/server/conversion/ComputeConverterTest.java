package dev.ironcore.maintenance.server.conversion;

import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class ComputeConverterTest {
  private static final String V1 = ComputeVersions.V1ALPHA1;
  private static final String V2 = ComputeVersions.V1ALPHA2;

  private static JsonNode machineV2() {
    return json(
        "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'Machine',"
            + "'metadata':{'name':'vm','namespace':'ns','labels':{'a':'b'},'annotations':{'x':'y'},"
            + "'finalizers':['f'],'managedFields':[{'manager':'kubectl','fieldsV1':{'f:spec':{}}}]},"
            + "'spec':{'image':'keep','tolerations':["
            + "{'key':'k','operator':'Exists','effect':'NoExecute','tolerationSeconds':9223372036854775807},"
            + "{'key':'j','operator':'Exists'}]},"
            + "'status':{'state':'Running','extra':[1,null]}}");
  }

  @Test
  void downConversionMovesTolerationSecondsIntoTheAnnotationAndKeepsEverythingElse()
      throws Exception {
    JsonNode in = machineV2();
    ObjectNode out = ComputeConverter.convert(in, V1);
    assertThat(out.get("apiVersion").asText()).isEqualTo(V1);
    assertThat(out.at("/spec/tolerations/0").has("tolerationSeconds")).isFalse();
    assertThat(out.at("/spec/image").asText()).isEqualTo("keep");
    assertThat(out.get("status")).isEqualTo(in.get("status"));
    ObjectNode metaWithout = (ObjectNode) out.get("metadata").deepCopy();
    ((ObjectNode) metaWithout.get("annotations")).remove(V1alpha2Fields.ANNOTATION);
    assertThat(metaWithout).isEqualTo(in.get("metadata"));
    JsonNode recorded =
        json(
            out.at("/metadata/annotations")
                .get(V1alpha2Fields.ANNOTATION)
                .asText()
                .replace('"', '\''));
    assertThat(recorded.at("/tolerations/0/index").asInt()).isZero();
    assertThat(recorded.at("/tolerations/0/entry/tolerationSeconds").asLong())
        .isEqualTo(Long.MAX_VALUE);
    assertThat(in.get("apiVersion").asText()).as("input untouched").isEqualTo(V2);
  }

  /**
   * A recorded entry nested deeper than Jackson's default writing depth (1,000): the API server
   * stores up to 10,000 levels (a fresh-eyes check: such a Machine failed every conversion, was
   * denied with an internal error as v1alpha2, and once stored broke v1alpha1 lists).
   */
  @Test
  void aRecordedEntryNestedDeeperThanAThousandLevelsConvertsBothWays() throws Exception {
    String deep = "[".repeat(3000) + "]".repeat(3000);
    JsonNode in =
        dev.ironcore.maintenance.api.json.JsonMappers.shared()
            .readTree(
                "{\"apiVersion\":\"compute.ironcore.dev/v1alpha2\",\"kind\":\"Machine\","
                    + "\"metadata\":{\"name\":\"vm\",\"namespace\":\"ns\"},\"spec\":{\"tolerations\":["
                    + "{\"key\":\"k\",\"operator\":\"Exists\",\"effect\":\"NoExecute\","
                    + "\"tolerationSeconds\":30,\"note\":"
                    + deep
                    + "}]}}");
    // on a thread with the request threads' deep stack, as the server converts
    java.util.concurrent.atomic.AtomicReference<Throwable> failed =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread t =
        dev.ironcore.maintenance.api.json.DeepStacks.newThread(
            () -> {
              try {
                ObjectNode v1 = ComputeConverter.convert(in, V1);
                assertThat(v1.at("/metadata/annotations").get(V1alpha2Fields.ANNOTATION).asText())
                    .contains("\"tolerationSeconds\":30");
                assertThat(ComputeConverter.convert(v1, V2)).isEqualTo(in);
              } catch (Throwable e) {
                failed.set(e);
              }
            },
            "deep",
            false);
    t.start();
    t.join();
    assertThat(failed.get()).isNull();
  }

  /**
   * Tolerations whose keys all have one Java hash ({@code "Aa"}/{@code "BB"} blocks, valid
   * qualified names): they are distinct entries, none a twin of another, and the round trip keeps
   * them (a fresh-eyes check: counting them in a map keyed by the entries took 9.7 s per conversion
   * of 16,384, a search per colliding key; the keys now compare, see HashKey).
   */
  @Test
  void entriesOfOneHashAreDistinctAndRoundTrip() throws Exception {
    ObjectNode in =
        (ObjectNode)
            json(
                "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'Machine',"
                    + "'metadata':{'name':'vm','namespace':'ns'},'spec':{'tolerations':[]}}");
    ArrayNode list = (ArrayNode) in.at("/spec/tolerations");
    int n = 1 << 14;
    for (int i = 0; i < n; i++) {
      StringBuilder key = new StringBuilder();
      for (int bit = 13; bit >= 0; bit--) {
        key.append(((i >> bit) & 1) == 0 ? "Aa" : "BB");
      }
      list.addObject()
          .put("key", key.toString())
          .put("operator", "Exists")
          .put("effect", "NoExecute")
          .put("tolerationSeconds", 30);
    }
    assertThat(list.get(0).get("key").asText().hashCode())
        .isEqualTo(list.get(n - 1).get("key").asText().hashCode());
    long start = System.nanoTime();
    ObjectNode v1 = ComputeConverter.convert(in, V1);
    assertThat(v1.at("/metadata/annotations").get(V1alpha2Fields.ANNOTATION).asText())
        .doesNotContain("twins");
    assertThat(ComputeConverter.convert(v1, V2)).isEqualTo(in);
    System.out.printf(
        "round trip of %d colliding tolerations: %d ms%n",
        n, (System.nanoTime() - start) / 1_000_000);
  }

  @Test
  void upConversionRestoresAndRemovesTheAnnotation() throws Exception {
    JsonNode in = machineV2();
    assertThat(ComputeConverter.convert(ComputeConverter.convert(in, V1), V2)).isEqualTo(in);
  }

  @Test
  void annotationsCreatedForDownConversionAreRemovedAgain() throws Exception {
    JsonNode pool =
        json(
            "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'MachinePool',"
                + "'spec':{'taints':[{'key':'k','effect':'NoExecute','timeAdded':'2026-01-01T00:00:00Z'}]}}");
    ObjectNode down = ComputeConverter.convert(pool, V1);
    assertThat(down.at("/metadata/annotations").has(V1alpha2Fields.ANNOTATION)).isTrue();
    assertThat(down.at("/spec/taints/0")).isEqualTo(json("{'key':'k','effect':'NoExecute'}"));
    assertThat(ComputeConverter.convert(down, V2)).isEqualTo(pool);
  }

  @Test
  void anAnnotationSetInV1alpha2NeverReachesTheFieldsThroughAV1alpha1RoundTrip() throws Exception {
    String stale =
        json("{'tolerations':[{'index':0,'entry':{'key':'k','operator':'Exists',"
                + "'effect':'NoExecute','tolerationSeconds':10}}]}")
            .toString();
    ObjectNode forever =
        (ObjectNode)
            json(
                "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'Machine',"
                    + "'metadata':{'name':'m','annotations':{}},"
                    + "'spec':{'tolerations':[{'key':'k','operator':'Exists','effect':'NoExecute'}]}}");
    ((ObjectNode) forever.at("/metadata/annotations")).put(V1alpha2Fields.ANNOTATION, stale);
    JsonNode v1 = ComputeConverter.convert(forever, V1);
    assertThat(v1.at("/metadata").has("annotations")).isFalse();
    JsonNode back = ComputeConverter.convert(v1, V2);
    assertThat(back.at("/spec/tolerations/0").has("tolerationSeconds"))
        .as("a toleration without seconds tolerates forever, also after a v1alpha1 replace")
        .isFalse();
    ((ObjectNode) forever.at("/metadata/annotations")).put("a", "b");
    assertThat(ComputeConverter.convert(forever, V1).at("/metadata/annotations"))
        .isEqualTo(json("{'a':'b'}"));
  }

  @Test
  void aV1alpha1ClientMayReorderAndDropEntries() throws Exception {
    JsonNode pool =
        json(
            "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'MachinePool','metadata':{'name':'p'},"
                + "'spec':{'taints':[{'key':'a','effect':'NoExecute','timeAdded':'2026-01-01T00:00:00Z'},"
                + "{'key':'b','effect':'NoExecute','timeAdded':'2026-02-01T00:00:00Z'}]}}");
    ObjectNode down = ComputeConverter.convert(pool, V1);
    ObjectNode edited = down.deepCopy();
    ((ObjectNode) edited.get("spec"))
        .set("taints", json("[{'key':'c','effect':'NoExecute'},{'key':'b','effect':'NoExecute'}]"));
    ObjectNode up = ComputeConverter.convert(edited, V2);
    assertThat(up.at("/spec/taints"))
        .isEqualTo(
            json(
                "[{'key':'c','effect':'NoExecute'},"
                    + "{'key':'b','effect':'NoExecute','timeAdded':'2026-02-01T00:00:00Z'}]"));
    assertThat(up.get("metadata")).isEqualTo(json("{'name':'p'}"));
  }

  /**
   * Two tolerations that look the same in v1alpha1, one with seconds: a v1alpha1 client that
   * removes one of them cannot be told apart from one that removes the other, so the seconds are
   * lost (the remaining toleration tolerates for good) rather than moved onto the entry that never
   * had them (fresh eyes: the Machine went from tolerated for good to evicted after 30 s).
   * Unchanged twins and an entry added beside them keep their seconds where they were.
   */
  @Test
  void removingOneOfTwinEntriesLosesTheirSecondsInsteadOfMovingThem() throws Exception {
    JsonNode machine =
        json(
            "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'Machine','metadata':{'name':'m'},"
                + "'spec':{'tolerations':[{'key':'up','operator':'Exists','effect':'NoExecute',"
                + "'tolerationSeconds':30},{'key':'up','operator':'Exists','effect':'NoExecute'}]}}");
    ObjectNode down = ComputeConverter.convert(machine, V1);
    assertThat(ComputeConverter.convert(down, V2)).as("unchanged").isEqualTo(machine);
    ObjectNode removed = down.deepCopy();
    ((ArrayNode) removed.at("/spec/tolerations")).remove(0);
    assertThat(ComputeConverter.convert(removed, V2).at("/spec/tolerations"))
        .isEqualTo(json("[{'key':'up','operator':'Exists','effect':'NoExecute'}]"));
    ObjectNode added = down.deepCopy();
    ((ArrayNode) added.at("/spec/tolerations")).add(json("{'key':'other','operator':'Exists'}"));
    assertThat(ComputeConverter.convert(added, V2).at("/spec/tolerations/0/tolerationSeconds"))
        .as("another entry added: the twins are still two")
        .isEqualTo(json("30"));
    JsonNode single =
        json(
            "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'Machine','metadata':{'name':'m'},"
                + "'spec':{'tolerations':[{'key':'up','operator':'Exists','effect':'NoExecute',"
                + "'tolerationSeconds':30}]}}");
    ObjectNode twinAdded = ComputeConverter.convert(single, V1);
    ((ArrayNode) twinAdded.at("/spec/tolerations"))
        .insert(0, json("{'key':'up','operator':'Exists','effect':'NoExecute'}"));
    assertThat(
            ComputeConverter.convert(twinAdded, V2)
                .at("/spec/tolerations")
                .findValues("tolerationSeconds"))
        .as("a twin made of a recorded entry: which one is new cannot be told")
        .isEmpty();
    ObjectNode secondsOnTheOther = down.deepCopy();
    ((ObjectNode) secondsOnTheOther.at("/spec/tolerations/1")).put("tolerationSeconds", 99);
    ObjectNode removedAndOwnAdded = down.deepCopy();
    ((ArrayNode) removedAndOwnAdded.at("/spec/tolerations")).remove(0);
    ((ArrayNode) removedAndOwnAdded.at("/spec/tolerations"))
        .add(json("{'key':'up','operator':'Exists','effect':'NoExecute','tolerationSeconds':99}"));
    assertThat(removedAndOwnAdded)
        .as("the same v1alpha1 list, two ways")
        .isEqualTo(secondsOnTheOther);
    assertThat(ComputeConverter.convert(secondsOnTheOther, V2).at("/spec/tolerations"))
        .as(
            "seconds written on the other twin, or the recorded twin removed and an entry with"
                + " seconds added (fresh eyes: the 30 s then moved onto the twin that tolerated for"
                + " good): which cannot be told, so the 30 s are lost")
        .isEqualTo(
            json(
                "[{'key':'up','operator':'Exists','effect':'NoExecute'},"
                    + "{'key':'up','operator':'Exists','effect':'NoExecute','tolerationSeconds':99}]"));
  }

  /**
   * Entries added or removed in front of twins shift their indexes; the seconds stay on the twin
   * that had them, found by its place among its twins ({@code twinIndex}). Fresh eyes (session 46):
   * a toleration inserted at the front moved the 10 s from the second {@code up} onto the first,
   * which then decided (the first match does), and the Machine was evicted 10 s after its pool's
   * taint; removing one in front moved them the other way.
   */
  @Test
  void twinsKeepTheirSecondsWhenEntriesInFrontOfThemComeAndGo() throws Exception {
    String up = "{'key':'up','operator':'Exists','effect':'NoExecute'";
    String other = "{'key':'other','operator':'Exists','effect':'NoSchedule'}";
    for (String twins :
        java.util.List.of(
            up + "}," + up + ",'tolerationSeconds':10}",
            up + ",'tolerationSeconds':10}," + up + "}")) {
      JsonNode machine =
          json(
              "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'Machine','metadata':{'name':'m'},"
                  + "'spec':{'tolerations':["
                  + twins
                  + "]}}");
      ObjectNode down = ComputeConverter.convert(machine, V1);
      assertThat(down.at("/metadata/annotations").get(V1alpha2Fields.ANNOTATION).asText())
          .contains("\"twins\":2", "\"twinIndex\":");
      ObjectNode inserted = down.deepCopy();
      ((ArrayNode) inserted.at("/spec/tolerations")).insert(0, json(other));
      assertThat(ComputeConverter.convert(inserted, V2).at("/spec/tolerations"))
          .as("inserted in front of " + twins)
          .isEqualTo(json("[" + other + "," + twins + "]"));

      JsonNode behind =
          json(
              "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'Machine','metadata':{'name':'m'},"
                  + "'spec':{'tolerations':["
                  + other
                  + ","
                  + twins
                  + "]}}");
      ObjectNode removed = ComputeConverter.convert(behind, V1);
      ((ArrayNode) removed.at("/spec/tolerations")).remove(0);
      assertThat(ComputeConverter.convert(removed, V2).at("/spec/tolerations"))
          .as("removed in front of " + twins)
          .isEqualTo(json("[" + twins + "]"));

      // a record written before twinIndex: by its index, as before
      ObjectNode legacy = down.deepCopy();
      ObjectNode annotations = (ObjectNode) legacy.at("/metadata/annotations");
      annotations.put(
          V1alpha2Fields.ANNOTATION,
          annotations
              .get(V1alpha2Fields.ANNOTATION)
              .asText()
              .replaceAll(",\"twinIndex\":\\d+", ""));
      assertThat(annotations.get(V1alpha2Fields.ANNOTATION).asText()).doesNotContain("twinIndex");
      assertThat(ComputeConverter.convert(legacy, V2)).as("legacy " + twins).isEqualTo(machine);
    }
  }

  /**
   * Twins equal with their seconds too carry no twinIndex (which one is which does not matter), so
   * their annotation is no longer than before it (review, session 46: 2,200 equal tolerations grew
   * past the 256 KiB a v1alpha1 read can carry); a record naming one twin twice is unreadable.
   */
  @Test
  void equalTwinsCarryNoTwinIndexAndATwinRecordedTwiceIsUnreadable() throws Exception {
    String up = "{'key':'up','operator':'Exists','effect':'NoExecute','tolerationSeconds':30}";
    JsonNode machine =
        json(
            "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'Machine','metadata':{'name':'m'},"
                + "'spec':{'tolerations':["
                + up
                + ","
                + up
                + ","
                + up
                + "]}}");
    ObjectNode down = ComputeConverter.convert(machine, V1);
    String annotation = down.at("/metadata/annotations").get(V1alpha2Fields.ANNOTATION).asText();
    assertThat(annotation).contains("\"twins\":3").doesNotContain("twinIndex");
    ObjectNode inserted = down.deepCopy();
    ((ArrayNode) inserted.at("/spec/tolerations"))
        .insert(0, json("{'key':'other','operator':'Exists'}"));
    assertThat(
            ComputeConverter.convert(inserted, V2)
                .at("/spec/tolerations")
                .findValuesAsText("tolerationSeconds"))
        .containsExactly("30", "30", "30");

    String twice =
        "{\"tolerations\":["
            + "{\"index\":0,\"twins\":2,\"twinIndex\":1,\"entry\":{\"key\":\"up\",\"tolerationSeconds\":10}},"
            + "{\"index\":1,\"twins\":2,\"twinIndex\":1,\"entry\":{\"key\":\"up\",\"tolerationSeconds\":3600}}]}";
    ObjectNode stored =
        (ObjectNode)
            json(
                "{'apiVersion':'compute.ironcore.dev/v1alpha1','kind':'Machine','metadata':{'name':'m',"
                    + "'annotations':{}},'spec':{'tolerations':[{'key':'up'},{'key':'up'}]}}");
    ((ObjectNode) stored.at("/metadata/annotations")).put(V1alpha2Fields.ANNOTATION, twice);
    assertThat(ComputeConverter.unreadableAnnotation(stored))
        .hasValue("tolerations records twinIndex 1 of one look twice");
  }

  /**
   * A v1alpha1 client adds an entry that looks like a recorded one but brings its own seconds: no
   * twin as read was added or removed, so the recorded one keeps its seconds (fresh eyes: the 20 s
   * toleration tolerated for good after a JSON patch added a 3600 s one beside it); written in
   * front of it, the recorded one is found where it moved. Seconds written on the recorded entry
   * itself are the client's, and the twin as read stays without.
   */
  @Test
  void anEntryAddedWithItsOwnSecondsIsNoTwinAsRead() throws Exception {
    JsonNode machine =
        json(
            "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'Machine','metadata':{'name':'m'},"
                + "'spec':{'tolerations':[{'key':'up','operator':'Exists','effect':'NoExecute',"
                + "'tolerationSeconds':20}]}}");
    ObjectNode down = ComputeConverter.convert(machine, V1);
    JsonNode own =
        json("{'key':'up','operator':'Exists','effect':'NoExecute','tolerationSeconds':3600}");
    ObjectNode appended = down.deepCopy();
    ((ArrayNode) appended.at("/spec/tolerations")).add(own);
    assertThat(ComputeConverter.convert(appended, V2).at("/spec/tolerations"))
        .isEqualTo(
            json(
                "[{'key':'up','operator':'Exists','effect':'NoExecute','tolerationSeconds':20},"
                    + "{'key':'up','operator':'Exists','effect':'NoExecute','tolerationSeconds':3600}]"));
    ObjectNode inFront = down.deepCopy();
    ((ArrayNode) inFront.at("/spec/tolerations")).insert(0, own);
    assertThat(ComputeConverter.convert(inFront, V2).at("/spec/tolerations"))
        .isEqualTo(
            json(
                "[{'key':'up','operator':'Exists','effect':'NoExecute','tolerationSeconds':3600},"
                    + "{'key':'up','operator':'Exists','effect':'NoExecute','tolerationSeconds':20}]"));

    JsonNode twins =
        json(
            "{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'Machine','metadata':{'name':'m'},"
                + "'spec':{'tolerations':[{'key':'up','operator':'Exists','effect':'NoExecute',"
                + "'tolerationSeconds':30},{'key':'up','operator':'Exists','effect':'NoExecute'}]}}");
    ObjectNode rewritten = ComputeConverter.convert(twins, V1);
    ((ObjectNode) rewritten.at("/spec/tolerations/0")).put("tolerationSeconds", 99);
    assertThat(ComputeConverter.convert(rewritten, V2).at("/spec/tolerations"))
        .as("99 written on the recorded twin: the other, never with seconds, stays so")
        .isEqualTo(
            json(
                "[{'key':'up','operator':'Exists','effect':'NoExecute','tolerationSeconds':99},"
                    + "{'key':'up','operator':'Exists','effect':'NoExecute'}]"));
  }

  @Test
  void objectStoredWithTolerationSecondsInV1alpha1KeepsIt() throws Exception {
    JsonNode old =
        json(
            "{'apiVersion':'compute.ironcore.dev/v1alpha1','kind':'Machine','metadata':{'name':'m'},"
                + "'spec':{'tolerations':[{'key':'k','effect':'NoExecute','tolerationSeconds':30}]}}");
    ObjectNode up = ComputeConverter.convert(old, V2);
    assertThat(up.at("/spec/tolerations/0/tolerationSeconds").asLong()).isEqualTo(30);
    assertThat(up.get("metadata")).isEqualTo(old.get("metadata"));
  }

  @Test
  void legalOddShapesConvert() throws Exception {
    for (String spec :
        new String[] {
          "",
          ",'spec':null",
          ",'spec':{}",
          ",'spec':{'tolerations':null}",
          ",'spec':{'tolerations':[]}",
          ",'spec':{'tolerations':[null,'x',{}]}",
          ",'spec':{'tolerations':{'a':1}}"
        }) {
      JsonNode m =
          json("{'apiVersion':'compute.ironcore.dev/v1alpha2','kind':'Machine'" + spec + "}");
      ObjectNode down = ComputeConverter.convert(m, V1);
      assertThat(down.has("metadata")).as(spec).isFalse();
      assertThat(ComputeConverter.convert(down, V2)).as(spec).isEqualTo(m);
    }
  }

  @Test
  void badObjectsAreNamedProblems() {
    assertThatThrownBy(() -> ComputeConverter.convert(json("[1]"), V1))
        .isInstanceOf(ConversionException.class)
        .hasMessage("not a JSON object");
    assertThatThrownBy(
            () -> ComputeConverter.convert(json("{'apiVersion':'v1','kind':'Machine'}"), V1))
        .hasMessageContaining("apiVersion must be one of")
        .hasMessageContaining("\"v1\"");
    assertThatThrownBy(
            () ->
                ComputeConverter.convert(
                    json("{'apiVersion':'compute.ironcore.dev/v1alpha1','kind':'Machine'}"),
                    "compute.ironcore.dev/v9"))
        .hasMessageContaining("desiredAPIVersion must be one of");
    assertThatThrownBy(
            () ->
                ComputeConverter.convert(
                    json("{'apiVersion':'compute.ironcore.dev/v1alpha1','kind':'Volume'}"), V2))
        .hasMessage("kind must be Machine or MachinePool, got Volume");
  }

  /** A v1alpha1 Machine (or pool) as stored before our webhooks, with {@code annotation}. */
  private static ObjectNode storedWith(String kind, JsonNode annotation) {
    ObjectNode object =
        (ObjectNode)
            json(
                "{'apiVersion':'compute.ironcore.dev/v1alpha1','kind':'"
                    + kind
                    + "','metadata':{'name':'old-ann','namespace':'default',"
                    + "'annotations':{'note':'kept'}},'spec':{'tolerations':"
                    + "[{'key':'k','operator':'Exists','effect':'NoExecute'}],"
                    + "'taints':[{'key':'t','effect':'NoExecute'}]}}");
    ((ObjectNode) object.at("/metadata/annotations")).set(V1alpha2Fields.ANNOTATION, annotation);
    return object;
  }

  /**
   * An annotation that is not what down-conversion writes (stored while the CRD served only
   * v1alpha1, before our webhooks) carries no v1alpha2 fields: the object converts (a tester's
   * Machine {@code default/old-ann} with {@code 'not json'} failed every v1alpha2 list, and every
   * write of it in either version, for good), the value stays visible, nothing is put back, not
   * even from the readable part of a value, and the round trip gives back the object as stored.
   */
  @Test
  void anUnreadableAnnotationCarriesNoFieldsAndRoundTripsAsStored() throws Exception {
    com.fasterxml.jackson.databind.node.JsonNodeFactory nodes =
        com.fasterxml.jackson.databind.node.JsonNodeFactory.instance;
    String recorded =
        "{\"index\":0,\"entry\":{\"key\":\"k\",\"operator\":\"Exists\","
            + "\"effect\":\"NoExecute\",\"tolerationSeconds\":30}}";
    java.util.List<JsonNode> values =
        java.util.List.of(
            nodes.textNode("not json"),
            nodes.textNode(""),
            nodes.textNode(" "),
            nodes.textNode("[]"),
            nodes.textNode("null"),
            nodes.textNode("7"),
            nodes.textNode("{oops"),
            nodes.textNode("{\"tolerations\":\"x\"}"),
            nodes.textNode("{\"taints\":\"x\"}"),
            nodes.textNode("{\"tolerations\":[{\"index\":\"x\"}]}"),
            nodes.textNode("{\"tolerations\":[" + recorded + ",\"garbage\"]}"),
            nodes.textNode("{\"taints\":[{\"index\":0}]}"),
            // trailing content (fresh eyes, session 39: Jackson stopped after the first value)
            nodes.textNode("{}x"),
            nodes.textNode("{\"tolerations\":[" + recorded + "]}]]"),
            nodes.textNode("{} {}"),
            // fresh eyes (session 42): not what strip writes, yet read as records
            nodes.textNode(
                "{\"tolerations\":[" + recorded.replace("\"index\":0", "\"index\":0.5") + "]}"),
            nodes.textNode(
                "{\"tolerations\":[" + recorded.replace("\"index\":0", "\"index\":-1") + "]}"),
            nodes.textNode(
                "{\"tolerations\":["
                    + recorded.replace("\"index\":0", "\"index\":0,\"twins\":\"x\"")
                    + "]}"),
            nodes.textNode(
                "{\"tolerations\":["
                    + recorded.replace("\"index\":0", "\"index\":0,\"twins\":1")
                    + "]}"),
            // a twin's place among its twins: within them, and only with them
            nodes.textNode(
                "{\"tolerations\":["
                    + recorded.replace("\"index\":0", "\"index\":0,\"twins\":2,\"twinIndex\":2")
                    + "]}"),
            nodes.textNode(
                "{\"tolerations\":["
                    + recorded.replace("\"index\":0", "\"index\":0,\"twins\":2,\"twinIndex\":-1")
                    + "]}"),
            nodes.textNode(
                "{\"tolerations\":["
                    + recorded.replace("\"index\":0", "\"index\":0,\"twinIndex\":0")
                    + "]}"),
            nodes.textNode("{\"tolerations\":[" + recorded + "," + recorded + "]}"),
            nodes.textNode("{\"tolerations\":[" + recorded + "],\"tolerations\":[]}"),
            nodes.numberNode(7),
            nodes.nullNode());
    for (String kind : java.util.List.of("Machine", "MachinePool")) {
      for (JsonNode value : values) {
        ObjectNode stored = storedWith(kind, value);
        boolean aboutTheOtherKind =
            value.asText().contains(kind.equals("Machine") ? "taints" : "tolerations");
        if (aboutTheOtherKind) {
          continue; // readable for this kind: the other kind's list is not read
        }
        ObjectNode up = ComputeConverter.convert(stored, V2);
        assertThat(up.get("apiVersion").asText()).isEqualTo(V2);
        assertThat(up.at("/metadata/annotations").get(V1alpha2Fields.ANNOTATION))
            .as("%s %s stays visible", kind, value)
            .isEqualTo(value);
        assertThat(up.get("spec"))
            .as("%s %s puts nothing back", kind, value)
            .isEqualTo(stored.get("spec"));
        assertThat(ComputeConverter.convert(up, V1))
            .as("%s %s round trips", kind, value)
            .isEqualTo(stored);
        assertThat(ComputeConverter.unreadableAnnotation(stored))
            .as("%s %s", kind, value)
            .isPresent();
      }
    }
    assertThat(ComputeConverter.unreadableAnnotation(storedWith("Machine", nodes.textNode("x"))))
        .hasValueSatisfying(p -> assertThat(p).startsWith("not valid JSON: Unrecognized token"));
    assertThat(
            ComputeConverter.unreadableAnnotation(
                storedWith("Machine", nodes.textNode("{\"tolerations\":\"x\"}"))))
        .hasValue("tolerations must be a JSON array");
    assertThat(ComputeConverter.unreadableAnnotation(storedWith("Machine", nodes.textNode(""))))
        .hasValue("is empty");
    assertThat(
            ComputeConverter.unreadableAnnotation(
                storedWith(
                    "Machine",
                    nodes.textNode(
                        "{\"tolerations\":["
                            + recorded.replace("\"index\":0", "\"index\":-1")
                            + "]}"))))
        .hasValue(
            "each tolerations item must be {index: int >= 0, entry: object}, with twins: int >= 2"
                + " (and then twinIndex: 0 <= int < twins, or none), or neither");
    assertThat(
            ComputeConverter.unreadableAnnotation(
                storedWith(
                    "Machine",
                    nodes.textNode("{\"tolerations\":[" + recorded + "," + recorded + "]}"))))
        .hasValue("tolerations records index 0 twice");
    assertThat(
            ComputeConverter.unreadableAnnotation(
                storedWith(
                    "Machine",
                    nodes.textNode("{\"tolerations\":[" + recorded + "],\"tolerations\":[]}"))))
        .hasValueSatisfying(
            p -> assertThat(p).startsWith("not valid JSON: Duplicate field 'tolerations'"));
    assertThat(
            ComputeConverter.unreadableAnnotation(
                storedWith("Machine", nodes.textNode("{\"tolerations\":[" + recorded + "]}"))))
        .isEmpty();
  }

  /**
   * An unreadable annotation on a v1alpha2 object with v1alpha2 fields to record is replaced by the
   * record (one annotation holds both); with nothing to record it is kept, and a readable one set
   * by hand in v1alpha2 is still dropped (it would put its members onto the object).
   */
  @Test
  void downConversionReplacesAnUnreadableAnnotationOnlyWhenItHasFieldsToRecord() throws Exception {
    ObjectNode v2 = (ObjectNode) machineV2();
    ((ObjectNode) v2.at("/metadata/annotations")).put(V1alpha2Fields.ANNOTATION, "not json");
    ObjectNode down = ComputeConverter.convert(v2, V1);
    assertThat(down.at("/metadata/annotations").get(V1alpha2Fields.ANNOTATION).asText())
        .contains("\"tolerationSeconds\":9223372036854775807");
    ObjectNode plain = (ObjectNode) v2.deepCopy();
    ((ObjectNode) plain.at("/spec/tolerations/0")).remove("tolerationSeconds");
    assertThat(
            ComputeConverter.convert(plain, V1)
                .at("/metadata/annotations")
                .get(V1alpha2Fields.ANNOTATION)
                .asText())
        .isEqualTo("not json");
    ((ObjectNode) plain.at("/metadata/annotations"))
        .put(V1alpha2Fields.ANNOTATION, "{\"tolerations\":[]}");
    assertThat(
            ComputeConverter.convert(plain, V1)
                .at("/metadata/annotations")
                .has(V1alpha2Fields.ANNOTATION))
        .isFalse();
  }
}
