package dev.ironcore.maintenance.controller.drain;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.dsl.Listable;
import java.util.ArrayList;
import java.util.List;

/**
 * Every object of a collection, read from the API server in pages of {@link #PAGE} (an unpaged LIST
 * of a fleet, e.g. 10,000 Machines, needs more heap than the controller has).
 */
final class PagedList {
  /** Objects per page. */
  static final long PAGE = 500;

  private PagedList() {}

  /**
   * @param collection e.g. {@code client.resources(Machine.class).inAnyNamespace()}
   * @return all its objects, page after page until the API server sends no continue token
   * @throws io.fabric8.kubernetes.client.KubernetesClientException when a page cannot be read
   */
  static <T extends HasMetadata, L extends KubernetesResourceList<T>> List<T> all(
      Listable<L> collection) {
    List<T> all = new ArrayList<>();
    String next = null;
    do {
      ListOptions options = new ListOptionsBuilder().withLimit(PAGE).withContinue(next).build();
      L page = collection.list(options);
      all.addAll(page.getItems());
      next = page.getMetadata() == null ? null : page.getMetadata().getContinue();
    } while (next != null && !next.isEmpty());
    return all;
  }
}
