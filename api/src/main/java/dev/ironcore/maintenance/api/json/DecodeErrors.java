package dev.ironcore.maintenance.api.json;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Process-wide count of objects that could not be decoded (see {@link Salvageable}), by resource
 * kind, for the controller's metric; each one is also logged with its key.
 */
public final class DecodeErrors {
  private static final Logger LOG = LoggerFactory.getLogger(DecodeErrors.class);
  private static final Map<String, LongAdder> COUNTS = new ConcurrentHashMap<>();

  private DecodeErrors() {}

  /**
   * Logs (WARN) and counts one object that could not be decoded.
   *
   * @param kind the resource kind and group, e.g. {@code Machine.compute.ironcore.dev}
   * @param key {@code namespace/name} or {@code name}
   */
  static void record(String kind, String key, String error) {
    counter(kind).increment();
    LOG.warn(
        "cannot decode {} {}: {}; kept with its metadata only (nothing is decided on fields that"
            + " could not be read)",
        kind,
        key,
        error);
  }

  /**
   * Objects of {@code kind} (kind and group, e.g. {@code MachinePool.compute.ironcore.dev}) that
   * could not be decoded since the process started.
   */
  public static long count(String kind) {
    return counter(kind).sum();
  }

  private static LongAdder counter(String kind) {
    return COUNTS.computeIfAbsent(kind, k -> new LongAdder());
  }
}
