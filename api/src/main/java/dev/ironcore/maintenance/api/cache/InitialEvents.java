package dev.ironcore.maintenance.api.cache;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.ironcore.maintenance.api.Names;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayInputStream;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The initial events of a streaming list (Kubernetes watch list, KEP-3157), one JSON line at a
 * time: {@code ADDED} objects are collected until the {@code BOOKMARK} annotated {@code
 * k8s.io/initial-events-end: "true"}, whose resourceVersion is the list's. Each line is decoded
 * straight into {@code T} (e.g. the cache-only Machine classes), not into a JSON tree first.
 *
 * <p>Errors ({@link IllegalStateException}): an {@code ERROR} event (the API server refused or
 * ended the stream; the message quotes it), or a {@code MODIFIED}/{@code DELETED} event before the
 * end bookmark (the API server sends those only after it).
 */
final class InitialEvents<T extends HasMetadata> {
  /** One watch event as the API server writes it: {@code {"type": ..., "object": {...}}}. */
  static final class Line<T> {
    public String type;
    public T object;
  }

  private final KubernetesSerialization json;
  private final TypeReference<Line<T>> lineType;
  private final List<T> items = new ArrayList<>();
  private String resourceVersion;

  InitialEvents(KubernetesSerialization json, Class<T> type) {
    this.json = json;
    Type t = json.constructParametricType(Line.class, type);
    this.lineType =
        new TypeReference<>() {
          @Override
          public Type getType() {
            return t;
          }
        };
  }

  /**
   * Takes one line of the stream.
   *
   * @return true once the end bookmark was read (later lines are not for this list)
   */
  boolean accept(String line) {
    byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
    return accept(bytes, 0, bytes.length);
  }

  /**
   * Takes one line of the stream: {@code length} bytes of UTF-8 JSON from {@code offset} (decoded
   * from the bytes, without a String in between).
   *
   * @return true once the end bookmark was read (later lines are not for this list)
   */
  boolean accept(byte[] buffer, int offset, int length) {
    if (isBlank(buffer, offset, length)) {
      return false;
    }
    if (startsWith(buffer, offset, length, ERROR)) {
      throw new IllegalStateException(
          "the API server ended the streaming list: "
              + new String(buffer, offset, Math.min(length, 500), StandardCharsets.UTF_8)
              + (length > 500 ? "..." : ""));
    }
    Line<T> event = json.unmarshal(new ByteArrayInputStream(buffer, offset, length), lineType);
    switch (event.type) {
      case "ADDED":
        items.add(event.object);
        return false;
      case "BOOKMARK":
        Map<String, String> annotations = event.object.getMetadata().getAnnotations();
        if (annotations != null
            && "true".equals(annotations.get(Names.INITIAL_EVENTS_END_ANNOTATION))) {
          resourceVersion = event.object.getMetadata().getResourceVersion();
          return true;
        }
        return false;
      default:
        throw new IllegalStateException(
            event.type + " event before the end of the streaming list's initial events");
    }
  }

  private static final byte[] ERROR = "{\"type\":\"ERROR\"".getBytes(StandardCharsets.UTF_8);

  private static boolean isBlank(byte[] b, int offset, int length) {
    for (int i = offset; i < offset + length; i++) {
      if (b[i] != ' ' && b[i] != '\r' && b[i] != '\t') {
        return false;
      }
    }
    return true;
  }

  private static boolean startsWith(byte[] b, int offset, int length, byte[] prefix) {
    if (length < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (b[offset + i] != prefix[i]) {
        return false;
      }
    }
    return true;
  }

  /** The objects listed, in the order sent. */
  List<T> items() {
    return items;
  }

  /** The list's resourceVersion (the end bookmark's), or null before it was read. */
  String resourceVersion() {
    return resourceVersion;
  }
}
