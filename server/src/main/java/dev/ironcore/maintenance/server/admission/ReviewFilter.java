package dev.ironcore.maintenance.server.admission;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.filter.FilteringParserDelegate;
import com.fasterxml.jackson.core.filter.TokenFilter;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Reads an AdmissionReview keeping only what {@link AdmissionRequest} and the handler read; the
 * rest is skipped by the parser without becoming tree nodes (reading the review into a tree was the
 * largest share of the server's CPU per review, {@code bench/analysis.md}). Dropped:
 *
 * <ul>
 *   <li>{@code metadata.managedFields} of {@code request.object} and {@code request.oldObject} (the
 *       API server's bookkeeping of server-side apply; in a typical review a third of the bytes);
 *   <li>members of {@code request} that {@link AdmissionRequest} does not read ({@code
 *       requestKind}, {@code requestResource}, {@code options}, ...), and of {@code
 *       request.userInfo} everything but {@code username};
 *   <li>fields of {@code request.object} and {@code request.oldObject} the handler does not read
 *       ({@link ObjectFields}).
 * </ul>
 *
 * Everything kept reaches the tree unchanged, empty objects and arrays and values of unexpected
 * types included, so malformed reviews are reported exactly as without the filter.
 */
final class ReviewFilter extends TokenFilter {
  /** The members of {@code request} that {@link AdmissionRequestReader} reads. */
  static final Set<String> REQUEST_MEMBERS =
      Set.of(
          "uid",
          "kind",
          "resource",
          "subResource",
          "operation",
          "name",
          "namespace",
          "dryRun",
          "object",
          "oldObject",
          "userInfo");

  /** A value in a members map: drop this member (a map holds no nulls). */
  static final TokenFilter DROP = new ReviewFilter(Map.of(), null);

  private static final TokenFilter METADATA = members(Map.of("managedFields", DROP), INCLUDE_ALL);
  private static final TokenFilter USER_INFO = members(Map.of("username", INCLUDE_ALL), null);

  private final Map<String, TokenFilter> kept;
  private final TokenFilter others;

  private ReviewFilter(Map<String, TokenFilter> kept, TokenFilter others) {
    this.kept = kept;
    this.others = others;
  }

  /**
   * @param kept members and the filter for each one's value ({@link #DROP}: dropped)
   * @param others the filter for any other member: {@link #INCLUDE_ALL}, or null to drop them
   * @return a filter for an object's members
   */
  static TokenFilter members(Map<String, TokenFilter> kept, TokenFilter others) {
    return new ReviewFilter(Map.copyOf(kept), others);
  }

  /**
   * @param parser a parser positioned before the review's first token
   * @param fields what the handler reads of {@code request.object} and {@code request.oldObject}
   * @return a parser yielding the review's tokens without the dropped members
   */
  static JsonParser wrap(JsonParser parser, ObjectFields fields) {
    return new FilteringParserDelegate(
        parser, fields.reviewFilter(), Inclusion.INCLUDE_ALL_AND_PATH, true);
  }

  /**
   * @param object the filter for {@code request.object} and {@code request.oldObject}
   * @return the filter for a whole review
   */
  static TokenFilter review(TokenFilter object) {
    Map<String, TokenFilter> request = new HashMap<>();
    REQUEST_MEMBERS.forEach(name -> request.put(name, INCLUDE_ALL));
    request.put("object", object);
    request.put("oldObject", object);
    request.put("userInfo", USER_INFO);
    return members(Map.of("request", members(request, null)), INCLUDE_ALL);
  }

  /**
   * @return the filter for {@code metadata}: everything but {@code managedFields}
   */
  static TokenFilter metadata() {
    return METADATA;
  }

  @Override
  public TokenFilter includeProperty(String name) {
    TokenFilter filter = kept.getOrDefault(name, others);
    return filter == DROP ? null : filter;
  }

  @Override
  public TokenFilter includeElement(int index) {
    return INCLUDE_ALL; // an array where an object belongs: kept whole, reported as malformed
  }

  @Override
  public boolean includeEmptyObject(boolean contentsFiltered) {
    return true;
  }

  @Override
  public boolean includeEmptyArray(boolean contentsFiltered) {
    return true;
  }

  @Override
  protected boolean _includeScalar() {
    return true;
  }
}
