package dev.ironcore.maintenance.server.admission;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.filter.FilteringParserDelegate;
import com.fasterxml.jackson.core.filter.TokenFilter;
import dev.ironcore.maintenance.api.json.KeptMembers;
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
final class ReviewFilter {
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

  private static final KeptMembers METADATA = KeptMembers.allBut("managedFields");
  private static final KeptMembers USER_INFO = KeptMembers.only("username");

  private ReviewFilter() {}

  /**
   * @param parser a parser positioned before the review's first token
   * @param fields what the handler reads of {@code request.object} and {@code request.oldObject}
   * @return a parser yielding the review's tokens without the dropped members
   */
  static JsonParser wrap(JsonParser parser, ObjectFields fields) {
    return new FilteringParserDelegate(
        parser, fields.reviewFilter(), TokenFilter.Inclusion.INCLUDE_ALL_AND_PATH, true);
  }

  /**
   * @param object the filter for {@code request.object} and {@code request.oldObject}
   * @return the filter for a whole review
   */
  static TokenFilter review(TokenFilter object) {
    KeptMembers request =
        KeptMembers.only(REQUEST_MEMBERS.toArray(String[]::new))
            .with("object", object)
            .with("oldObject", object)
            .with("userInfo", USER_INFO);
    return KeptMembers.allBut().with("request", request);
  }

  /**
   * @return the filter for {@code metadata}: everything but {@code managedFields}
   */
  static TokenFilter metadata() {
    return METADATA;
  }
}
