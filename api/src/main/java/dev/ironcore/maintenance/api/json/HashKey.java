package dev.ironcore.maintenance.api.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Hash-map keys that a request cannot make collide into a linear search. A {@code HashMap} keeps
 * keys of equal hash in one bin and, from eight on, turns the bin into a tree, which only helps
 * when the keys are {@link Comparable}: {@link JsonNode}s and {@code List<String>}s are not, and
 * strings of equal hash are easy to build ({@code "Aa"} and {@code "BB"} blocks), so one object of
 * 16,384 such tolerations took 9.7 s of CPU per conversion (a fresh-eyes check), quadratic in the
 * list. These keys compare, so such a bin costs a logarithmic search.
 */
public final class HashKey {
  private HashKey() {}

  /** Writes JSON with object members sorted by name: the same text for equal trees. */
  private static final ObjectMapper SORTED =
      JsonMapper.builder(JsonMappers.jsonFactory())
          .configure(JsonNodeFeature.WRITE_PROPERTIES_SORTED, true)
          .build();

  /**
   * A JSON value as a key: equal as {@link JsonNode#equals} says; ordered by its JSON text with
   * members sorted (computed only when two keys of one hash meet).
   */
  public static final class Json implements Comparable<Json> {
    private final JsonNode node;
    private String text;

    public Json(JsonNode node) {
      this.node = Objects.requireNonNull(node, "node");
    }

    /** The wrapped value. */
    public JsonNode node() {
      return node;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Json other && node.equals(other.node);
    }

    @Override
    public int hashCode() {
      return node.hashCode();
    }

    @Override
    public int compareTo(Json other) {
      return text().compareTo(other.text());
    }

    private String text() {
      if (text == null) {
        try {
          text = SORTED.writeValueAsString(node);
        } catch (JsonProcessingException e) {
          text = node.getNodeType().name(); // not for trees we read: our limits allow them
        }
      }
      return text;
    }
  }

  /** Strings as one key (e.g. a taint's key and effect), ordered part by part, nulls first. */
  public record Strings(List<String> parts) implements Comparable<Strings> {
    private static final Comparator<String> PART = Comparator.nullsFirst(Comparator.naturalOrder());

    public Strings {
      parts = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(parts));
    }

    public static Strings of(String... parts) {
      return new Strings(java.util.Arrays.asList(parts));
    }

    @Override
    public int compareTo(Strings other) {
      int n = Math.min(parts.size(), other.parts.size());
      for (int i = 0; i < n; i++) {
        int c = PART.compare(parts.get(i), other.parts.get(i));
        if (c != 0) {
          return c;
        }
      }
      return Integer.compare(parts.size(), other.parts.size());
    }
  }
}
