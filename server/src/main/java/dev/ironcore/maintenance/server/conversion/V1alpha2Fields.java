package dev.ironcore.maintenance.server.conversion;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ironcore.maintenance.api.json.HashKey;
import dev.ironcore.maintenance.api.validation.Excerpt;
import dev.ironcore.maintenance.server.admission.TokenAllowance;
import dev.ironcore.maintenance.server.admission.TokenCountingParser;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The list fields that exist only in {@code compute.ironcore.dev/v1alpha2} and how a v1alpha1
 * object keeps them: in the one annotation {@value #ANNOTATION}.
 *
 * <p>Per kind, one list under {@code spec} has v1alpha2-only members: Machine {@code
 * spec.tolerations[].tolerationSeconds}, MachinePool {@code spec.taints[].timeAdded}. The
 * annotation's value is a JSON object with one member per such list, e.g.
 *
 * <pre>{@code
 * {"tolerations":[{"index":1,"entry":{"key":"k","operator":"Exists","effect":"NoExecute","tolerationSeconds":30}}]}
 * }</pre>
 *
 * listing each v1alpha2 entry that had a v1alpha2-only member, whole, with its index. Up-conversion
 * puts the members back onto the v1alpha1 entry that equals the recorded entry without them: the
 * one at the recorded index when it still matches, else the first unused equal entry (so a v1alpha1
 * client may reorder the list); an entry that no longer exists takes its members with it.
 *
 * <p>Entries that look the same in v1alpha1 (twins, e.g. two {@code key: k, operator: Exists}
 * tolerations of which one has {@code tolerationSeconds}) are recorded with {@code "twins": n},
 * their number in the list (none: 1), and {@code "twinIndex": k}, the entry's place among them
 * (from 0): up-conversion puts the members onto the k-th of them, so entries added or removed
 * before or between them do not move the members onto another twin (a record without twinIndex,
 * written before it existed or for twins that are equal with their members too, where placement
 * does not matter, is placed by its index as other entries are). When a v1alpha1 client removed or
 * added one of them (or made a twin of a recorded entry), which one it was cannot be told from the
 * v1alpha1 list: the recorded entries of that look then lose their members (as a removed or changed
 * entry does), instead of moving them onto a twin that never had them. Entries a client sent with
 * such a member of its own are not twins as read: one added beside all the twins leaves them as
 * they were (fresh eyes: adding {@code tolerationSeconds: 3600} beside a recorded 20 s toleration
 * took the 20 s away, tolerating for good); members written on a twin cannot be told from removing
 * a twin and adding an entry with members (fresh eyes: the 20 s moved onto the twin that tolerated
 * for good), so the recorded ones lose theirs then too.
 *
 * <p>An annotation that does not hold what {@link #strip} writes ({@link #read}: not JSON, not an
 * object, a list that is no array, an item without index or entry) is unreadable: it carries no
 * v1alpha2 fields. Up-conversion then puts nothing back and leaves it on the object, and
 * down-conversion keeps it when there is nothing else to record, so the object converts and round
 * trips as it is, and its owner can see the value and remove it. Only objects stored before our
 * webhooks can have one: the validating webhook refuses a v1alpha1 write that brings a new one.
 */
final class V1alpha2Fields {
  /** The annotation of a v1alpha1 object that carries the v1alpha2-only fields. */
  static final String ANNOTATION = dev.ironcore.maintenance.api.Names.V1ALPHA2_FIELDS_ANNOTATION;

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final ObjectMapper MAPPER = dev.ironcore.maintenance.api.json.JsonMappers.shared();

  /**
   * One list with v1alpha2-only members.
   *
   * @param list the member of {@code spec} holding the list, e.g. {@code tolerations}
   * @param members the v1alpha2-only members of its entries, e.g. {@code tolerationSeconds}
   */
  record ListField(String list, List<String> members) {}

  private V1alpha2Fields() {}

  /**
   * @param kind the object's kind
   * @return the lists of that kind with v1alpha2-only members
   * @throws ConversionException for a kind other than Machine and MachinePool
   */
  static List<ListField> of(String kind) throws ConversionException {
    return switch (kind) {
      case "Machine" -> List.of(new ListField("tolerations", List.of("tolerationSeconds")));
      case "MachinePool" -> List.of(new ListField("taints", List.of("timeAdded")));
      default ->
          throw new ConversionException(
              "kind must be Machine or MachinePool, got "
                  + (kind.isEmpty() ? "none" : Excerpt.of(kind)));
    };
  }

  /**
   * Moves the v1alpha2-only members of {@code fields} out of {@code spec} (changed in place).
   *
   * @param spec the object's {@code spec} (any node)
   * @return the annotation's value, or null when no entry had such a member
   */
  static ObjectNode strip(JsonNode spec, List<ListField> fields) {
    ObjectNode record = NODES.objectNode();
    for (ListField field : fields) {
      JsonNode list = spec == null ? null : spec.get(field.list());
      if (list == null || !list.isArray()) {
        continue;
      }
      ArrayNode kept = NODES.arrayNode();
      List<JsonNode> looks = new java.util.ArrayList<>(list.size());
      for (JsonNode entry : list) {
        looks.add(without(entry, field));
      }
      Map<HashKey.Json, Integer> counts = counts(looks);
      // twins equal with their members too: which one is which does not matter, and twinIndex
      // would only make the annotation longer (review, session 46: 2,200 equal tolerations grew
      // from 247,507 to 283,797 bytes, past the 256 KiB a v1alpha1 read can carry)
      List<JsonNode> whole = new java.util.ArrayList<>(list.size());
      list.forEach(e -> whole.add(e.deepCopy())); // copies: the loop below strips the entries
      Map<HashKey.Json, Integer> wholeCounts = counts(whole);
      Map<HashKey.Json, Integer> seen = new HashMap<>(); // per look: how many came before
      for (int i = 0; i < list.size(); i++) {
        HashKey.Json look = new HashKey.Json(looks.get(i));
        int ordinal = seen.merge(look, 1, Integer::sum) - 1;
        if (list.get(i) instanceof ObjectNode entry && hasAny(entry, field.members())) {
          ObjectNode recorded = NODES.objectNode();
          recorded.put("index", i);
          recorded.set("entry", entry.deepCopy());
          int twins = counts.get(look);
          if (twins > 1) {
            recorded.put("twins", twins);
            if (wholeCounts.get(new HashKey.Json(entry)) < twins) {
              recorded.put("twinIndex", ordinal);
            }
          }
          kept.add(recorded);
          entry.remove(field.members());
        }
      }
      if (!kept.isEmpty()) {
        record.set(field.list(), kept);
      }
    }
    return record.isEmpty() ? null : record;
  }

  /**
   * What the annotation's value holds, read as up-conversion reads it: either its parsed record
   * ({@link #readable()}) or why it is unreadable.
   *
   * @param record the parsed value in the shape {@link #strip} writes; null when unreadable
   * @param problem why the value is not such a record, e.g. {@code not valid JSON: ...}; null when
   *     readable
   */
  record Reading(JsonNode record, String problem) {
    /** True when {@link #record()} holds what down-conversion writes. */
    boolean readable() {
      return problem == null;
    }

    private static Reading unreadable(String problem) {
      return new Reading(null, problem);
    }
  }

  /**
   * Reads the annotation's value: a string of JSON in the shape {@link #strip} writes (an object
   * whose members named after {@code fields}' lists are null or arrays of {@code {index: int,
   * entry: object}}, each index once; other members are ignored). Pure; never throws for the
   * value's content: an annotation written before our webhooks guarded it (stored while the CRD
   * served only v1alpha1) may hold anything, and a conversion that failed on it failed every list
   * of the kind in v1alpha2 and every write of the object in either version, for good.
   *
   * @param value the annotation's value (any node)
   * @param allowance bounds the tree parsed from the value
   * @return the record, or why it is unreadable: {@code must be a string}, {@code is empty}, {@code
   *     not valid JSON: <parser's message>} (also for a member given twice), {@code must hold a
   *     JSON object}, {@code <list> must be a JSON array}, {@code each <list> item must be {index:
   *     int >= 0, entry: object}, with twins: int >= 2 (and then twinIndex: 0 <= int < twins, or
   *     none), or neither}, {@code <list> records twinIndex <k> of one look twice}, {@code <list>
   *     records index <n> twice}
   * @throws TokenAllowance.Refused when the value's tree would exceed {@code allowance} (the
   *     server's heap, not the value's content: the review is answered later or refused whole)
   */
  static Reading read(JsonNode value, List<ListField> fields, TokenAllowance allowance) {
    if (value == null || !value.isTextual()) {
      return Reading.unreadable("must be a string");
    }
    JsonNode record;
    try {
      record = readTree(value.asText(), allowance);
    } catch (JsonProcessingException e) {
      return Reading.unreadable("not valid JSON: " + Excerpt.of(e.getOriginalMessage()));
    }
    if (record.isMissingNode()) {
      return Reading.unreadable("is empty");
    }
    if (!record.isObject()) {
      return Reading.unreadable("must hold a JSON object");
    }
    for (ListField field : fields) {
      JsonNode recorded = record.get(field.list());
      if (recorded == null || recorded.isNull()) {
        continue;
      }
      if (!recorded.isArray()) {
        return Reading.unreadable(field.list() + " must be a JSON array");
      }
      java.util.Set<Integer> indexes = new java.util.HashSet<>();
      java.util.Set<java.util.Map.Entry<HashKey.Json, Integer>> twinPlaces =
          new java.util.HashSet<>();
      for (JsonNode item : recorded) {
        JsonNode index = item.get("index");
        JsonNode twins = item.get("twins");
        JsonNode twinIndex = item.get("twinIndex");
        // an index is a place in the list, twins a count of at least 2 and twinIndex a place among
        // them, as strip writes them (fresh eyes, session 42: "index": 0.5 or -1 and "twins": "x"
        // were read as records)
        if (!(item.get("entry") instanceof ObjectNode)
            || !isIndex(index)
            || twins != null
                && (!twins.isIntegralNumber() || !twins.canConvertToInt() || twins.asInt() < 2)
            || twinIndex != null
                && (twins == null || !isIndex(twinIndex) || twinIndex.asInt() >= twins.asInt())) {
          return Reading.unreadable(
              "each "
                  + field.list()
                  + " item must be {index: int >= 0, entry: object}, with twins: int >= 2 (and"
                  + " then twinIndex: 0 <= int < twins, or none), or neither");
        }
        if (twinIndex != null
            && !twinPlaces.add(
                java.util.Map.entry(
                    new HashKey.Json(without(item.get("entry"), field)), twinIndex.asInt()))) {
          // two records for one twin: which keeps its members cannot be told (review, session
          // 46: the second was dropped without a word)
          return Reading.unreadable(
              field.list() + " records twinIndex " + twinIndex.asInt() + " of one look twice");
        }
        if (!indexes.add(index.asInt())) {
          // strip writes one record per index; two for one entry were ambiguous (the second was
          // dropped without a word when no twin took it), so such a value is not read as a record
          return Reading.unreadable(field.list() + " records index " + index.asInt() + " twice");
        }
      }
    }
    return new Reading(record, null);
  }

  /** A JSON int >= 0. */
  private static boolean isIndex(JsonNode node) {
    return node != null && node.isIntegralNumber() && node.canConvertToInt() && node.asInt() >= 0;
  }

  /** As {@link ObjectMapper#readTree(String)}, counting the tokens against {@code allowance}. */
  private static JsonNode readTree(String json, TokenAllowance allowance)
      throws JsonProcessingException {
    // a member given twice (two "tolerations" lists) is refused, not read as the last one
    try (JsonParser parser =
        TokenCountingParser.wrap(
            MAPPER.createParser(json).enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION),
            allowance)) {
      JsonNode tree = MAPPER.readTree(parser);
      // one JSON value and nothing after it: Jackson stops after the first value, so "{}x" or a
      // record followed by "]]" counted as readable (fresh eyes, session 39)
      if (tree != null && parser.nextToken() != null) {
        throw new com.fasterxml.jackson.core.JsonParseException(
            parser, "unexpected content after the JSON value");
      }
      return tree == null ? MissingNode.getInstance() : tree; // as readTree(String) for ""
    } catch (JsonProcessingException e) {
      throw e;
    } catch (IOException e) {
      throw new IllegalStateException("reading a String", e); // no I/O: not expected
    }
  }

  /**
   * Puts recorded members back into {@code spec} (changed in place).
   *
   * @param spec the object's {@code spec} (any node)
   * @param record a record {@link #read} found readable
   */
  static void restore(JsonNode spec, JsonNode record, List<ListField> fields) {
    for (ListField field : fields) {
      JsonNode recorded = record.get(field.list());
      if (recorded == null || recorded.isNull()) {
        continue;
      }
      JsonNode list = spec == null ? null : spec.get(field.list());
      boolean[] used = new boolean[list != null && list.isArray() ? list.size() : 0];
      // for counting twins, before members are put back: the entries sent as a v1alpha1 read
      // shows them (no v1alpha2-only member; one a client sent with such a member of its own is
      // not a twin as read)
      List<JsonNode> plain = new java.util.ArrayList<>(used.length);
      for (int i = 0; i < used.length; i++) {
        JsonNode look = without(list.get(i), field);
        if (look == list.get(i)) {
          plain.add(look.deepCopy());
        }
      }
      Map<HashKey.Json, Integer> plainCounts = counts(plain);
      // the entries as sent (members a client wrote on them included), each with its positions in
      // order: finding the first unused equal entry is then no search of the list per recorded one
      Map<HashKey.Json, java.util.ArrayDeque<Integer>> positions = new HashMap<>();
      for (int i = 0; i < used.length; i++) {
        positions
            .computeIfAbsent(
                new HashKey.Json(list.get(i).deepCopy()), k -> new java.util.ArrayDeque<>())
            .add(i);
      }
      // the same, never consumed: a twin's place among its look-alikes
      Map<HashKey.Json, List<Integer>> twinPlaces = new HashMap<>();
      positions.forEach((k, v) -> twinPlaces.put(k, List.copyOf(v)));
      for (JsonNode item : recorded) {
        JsonNode entry = item.get("entry");
        JsonNode index = item.get("index");
        if (used.length == 0) {
          continue;
        }
        JsonNode without = without(entry, field);
        HashKey.Json withoutKey = new HashKey.Json(without);
        JsonNode twins = item.get("twins");
        int recordedTwins = twins != null && twins.canConvertToInt() ? twins.asInt() : 1;
        if (plainCounts.getOrDefault(withoutKey, 0) != recordedTwins) {
          // a twin was removed, added, or given members of its own (which cannot be told from
          // removing one and adding an entry with members): which one cannot be told
          continue;
        }
        JsonNode twinIndex = item.get("twinIndex");
        // twins by their place among themselves: a v1alpha1 client that added or removed an entry
        // before them shifts their indexes, and the recorded index then named the other twin
        // (fresh eyes, session 46: the seconds moved onto the twin that tolerated for good, and the
        // Machine was evicted); without twinIndex (a record written before it), by index as before
        int target =
            recordedTwins > 1 && twinIndex != null
                ? twinPlaces.get(withoutKey).get(twinIndex.asInt())
                : find(list, used, index.asInt(), without, positions.get(withoutKey));
        if (target >= 0 && used[target]) {
          continue; // a hand-made record naming one twin twice: the first keeps it
        }
        if (target >= 0) {
          used[target] = true;
          ObjectNode live = (ObjectNode) list.get(target);
          for (String member : field.members()) {
            if (entry.has(member)) {
              live.set(member, entry.get(member).deepCopy());
            }
          }
        }
      }
    }
  }

  /**
   * @param equal the positions of the entries that were sent equal to {@code without}, in order
   *     (null: none); used ones are dropped from it as they are met
   * @return the recorded index when that entry still equals {@code without}, else the first unused
   *     equal entry, else -1
   */
  private static int find(
      JsonNode list,
      boolean[] used,
      int hint,
      JsonNode without,
      java.util.ArrayDeque<Integer> equal) {
    if (hint >= 0 && hint < used.length && !used[hint] && without.equals(list.get(hint))) {
      return hint;
    }
    while (equal != null && !equal.isEmpty()) {
      int i = equal.pollFirst();
      if (!used[i]) {
        return i;
      }
    }
    return -1;
  }

  /** The entry as a v1alpha1 client sees it: without the v1alpha2-only members. */
  private static JsonNode without(JsonNode entry, ListField field) {
    if (!(entry instanceof ObjectNode object) || !hasAny(object, field.members())) {
      return entry;
    }
    ObjectNode copy = object.deepCopy();
    copy.remove(field.members());
    return copy;
  }

  /**
   * How often each look occurs: linear in the list (a list may hold many thousand entries, also of
   * colliding hashes: {@link HashKey}).
   */
  private static Map<HashKey.Json, Integer> counts(List<JsonNode> looks) {
    Map<HashKey.Json, Integer> counts = new HashMap<>();
    for (JsonNode look : looks) {
      counts.merge(new HashKey.Json(look), 1, Integer::sum);
    }
    return counts;
  }

  private static boolean hasAny(ObjectNode entry, List<String> members) {
    return members.stream().anyMatch(entry::has);
  }
}
