package dev.ironcore.maintenance.server.admission;

import com.fasterxml.jackson.core.filter.TokenFilter;
import dev.ironcore.maintenance.api.json.KeptMembers;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Which fields of {@code request.object} and {@code request.oldObject} an {@link AdmissionHandler}
 * reads, so the review reader can skip the rest without building it ({@link ReviewFilter}): for the
 * CAPI Machine mutation that is {@code spec} and {@code status}, about a fifth of the review that
 * remains once {@code managedFields} are gone.
 *
 * <p>Fields are dotted paths of object members from the object's root, e.g. {@code
 * spec.machinePoolRef}; a path keeps its whole value. {@code apiVersion}, {@code kind} and {@code
 * metadata} (without {@code managedFields}) are always kept: {@link AdmissionRequest} checks the
 * shape of {@code metadata}, and names, labels and {@code deletionTimestamp} live there. A value of
 * an unexpected type (a string where an object belongs, an array) is kept whole, so a malformed
 * review reaches the handler as it was sent.
 */
public final class ObjectFields {
  /** Every field: the default of {@link AdmissionHandler#objectFields()}. */
  public static final ObjectFields ALL = new ObjectFields(null);

  private final List<String> paths;
  private final TokenFilter reviewFilter;

  private ObjectFields(List<String> paths) {
    this.paths = paths;
    this.reviewFilter = ReviewFilter.review(objectFilter(paths));
  }

  /**
   * @param paths dotted member paths beside {@code apiVersion}, {@code kind} and {@code metadata},
   *     e.g. {@code "spec.taints"}; none for a handler that reads only those three
   * @return the declaration
   * @throws IllegalArgumentException for an empty path or an empty member name ({@code "spec."})
   */
  public static ObjectFields only(String... paths) {
    for (String path : paths) {
      Objects.requireNonNull(path, "path");
      if (path.isEmpty() || path.startsWith(".") || path.endsWith(".") || path.contains("..")) {
        throw new IllegalArgumentException("not a dotted member path: \"" + path + "\"");
      }
    }
    return new ObjectFields(List.of(paths));
  }

  /**
   * @return true for {@link #ALL}
   */
  public boolean isAll() {
    return paths == null;
  }

  /**
   * @return the Jackson streaming filter for a whole review read for a handler with these fields
   */
  TokenFilter reviewFilter() {
    return reviewFilter;
  }

  /** The filter for an object's root members: these paths, or all when null. */
  private static TokenFilter objectFilter(List<String> paths) {
    Map<String, TokenFilter> kept = paths == null ? new HashMap<>() : members(paths, "");
    kept.put("apiVersion", TokenFilter.INCLUDE_ALL);
    kept.put("kind", TokenFilter.INCLUDE_ALL);
    kept.put("metadata", ReviewFilter.metadata());
    return KeptMembers.of(kept, paths == null ? TokenFilter.INCLUDE_ALL : null);
  }

  /** The members under {@code prefix} that some path names, each with the filter for its value. */
  private static Map<String, TokenFilter> members(List<String> paths, String prefix) {
    Map<String, TokenFilter> kept = new HashMap<>();
    for (String path : paths) {
      if (!path.startsWith(prefix)) {
        continue;
      }
      String rest = path.substring(prefix.length());
      int dot = rest.indexOf('.');
      String member = dot < 0 ? rest : rest.substring(0, dot);
      if (dot < 0 || paths.contains(prefix + member)) {
        kept.put(member, TokenFilter.INCLUDE_ALL);
      } else {
        kept.put(member, KeptMembers.of(members(paths, prefix + member + "."), null));
      }
    }
    return kept;
  }

  @Override
  public String toString() {
    return isAll() ? "all fields" : "metadata " + String.join(" ", paths);
  }
}
