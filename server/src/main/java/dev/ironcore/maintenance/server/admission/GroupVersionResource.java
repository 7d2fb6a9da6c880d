package dev.ironcore.maintenance.server.admission;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The {@code request.resource} of an AdmissionReview.
 *
 * @param group API group, {@code ""} for the core group
 * @param version version, e.g. {@code "v1alpha1"}
 * @param resource plural resource name, e.g. {@code "machines"}
 */
public record GroupVersionResource(String group, String version, String resource) {

  /**
   * @return the parsed {@code {group, version, resource}}; missing members become {@code ""}
   */
  static GroupVersionResource of(JsonNode node) {
    return new GroupVersionResource(
        KubeObjects.text(node, "group"),
        KubeObjects.text(node, "version"),
        KubeObjects.text(node, "resource"));
  }
}
