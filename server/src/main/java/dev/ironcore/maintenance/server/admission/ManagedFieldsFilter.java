package dev.ironcore.maintenance.server.admission;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.filter.FilteringParserDelegate;
import com.fasterxml.jackson.core.filter.TokenFilter;

/**
 * Reads an AdmissionReview without {@code request.object.metadata.managedFields} and {@code
 * request.oldObject.metadata.managedFields}: no webhook looks at them (they are the API server's
 * bookkeeping of server-side apply), and in a typical review they are a third of the bytes and most
 * of the JSON nodes (a CAPI Machine of 4.4 KB: 1.5 KB of managedFields). Everything else, empty
 * objects and arrays included, reaches the tree unchanged, so malformed reviews are reported
 * exactly as before.
 */
final class ManagedFieldsFilter extends TokenFilter {
  private static final ManagedFieldsFilter ROOT = new ManagedFieldsFilter(Level.ROOT);
  private static final ManagedFieldsFilter REQUEST = new ManagedFieldsFilter(Level.REQUEST);
  private static final ManagedFieldsFilter OBJECT = new ManagedFieldsFilter(Level.OBJECT);
  private static final ManagedFieldsFilter METADATA = new ManagedFieldsFilter(Level.METADATA);

  private enum Level {
    ROOT,
    REQUEST,
    OBJECT,
    METADATA
  }

  private final Level level;

  private ManagedFieldsFilter(Level level) {
    this.level = level;
  }

  /**
   * @param parser a parser positioned before the review's first token
   * @return a parser yielding the same tokens minus the two {@code managedFields} members
   */
  static JsonParser wrap(JsonParser parser) {
    return new FilteringParserDelegate(
        parser, ROOT, TokenFilter.Inclusion.INCLUDE_ALL_AND_PATH, true);
  }

  @Override
  public TokenFilter includeProperty(String name) {
    return switch (level) {
      case ROOT -> name.equals("request") ? REQUEST : INCLUDE_ALL;
      case REQUEST -> name.equals("object") || name.equals("oldObject") ? OBJECT : INCLUDE_ALL;
      case OBJECT -> name.equals("metadata") ? METADATA : INCLUDE_ALL;
      case METADATA -> name.equals("managedFields") ? null : INCLUDE_ALL;
    };
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
