package dev.ironcore.maintenance.api.json;

import com.fasterxml.jackson.core.filter.TokenFilter;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * A resource type that is still read when its JSON does not fit the Java shape (a field of another
 * type than modelled, e.g. after a schema change we do not know): instead of failing the whole list
 * or watch, {@link TolerantDecoding} keeps the object with its metadata and whatever the type
 * salvages from the raw tree, and marks it. Code that acts on such an object must act
 * conservatively: never evict or change it on the strength of fields it could not read.
 */
public interface Salvageable {
  /** Why this object could not be decoded, or null when it was decoded normally. */
  String decodeError();

  /**
   * Marks this (metadata-only) object as undecodable and lets it pick the few fields it can read
   * safely from {@code tree}.
   *
   * @param error why decoding failed (one line)
   * @param tree the object's raw JSON
   */
  void salvage(String error, JsonNode tree);

  /**
   * The class a salvaged object's metadata is read as (before {@link #salvage}): fabric8's {@code
   * ObjectMeta}, or a subclass that skips members the type never keeps (e.g. the informer caches'
   * Machines skip {@code managedFields} and all annotations but a bookmark's, so a bad value there
   * does not cost them their labels).
   */
  default Class<? extends io.fabric8.kubernetes.api.model.ObjectMeta> metadataClass() {
    return io.fabric8.kubernetes.api.model.ObjectMeta.class;
  }

  /**
   * Which members of the object's JSON {@link TolerantDecoding} buffers before decoding (and would
   * salvage from): {@link TokenFilter#INCLUDE_ALL}, or a {@link KeptMembers} when the type ignores
   * members anyway (e.g. the informer caches' Machines skip {@code status}). Skipped members are
   * passed over without building their strings. Called once per type, on a fresh instance.
   */
  default TokenFilter keptMembers() {
    return TokenFilter.INCLUDE_ALL;
  }
}
