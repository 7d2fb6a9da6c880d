package dev.ironcore.maintenance.api.patch;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.lang.reflect.InvocationTargetException;

/**
 * A fabric8 {@link Resource} to PATCH by name without reading the object first. fabric8's {@code
 * withName(name).patch(PatchContext, String)} GETs the object before every PATCH (it needs an item
 * to name the URL), doubling the requests of a write that is already guarded by a JSON Patch {@code
 * test} of the resourceVersion; a resource built on an item that carries only the name and
 * namespace sends the PATCH alone ({@code make bench} counts the requests).
 */
public final class PatchTarget {
  private PatchTarget() {}

  /**
   * @param type the resource's class (its API version is the one written)
   * @param namespace the namespace, or null for a cluster-scoped resource
   * @param name the object's name
   * @return a resource whose {@code patch(PatchContext, String)} sends one PATCH and nothing else
   * @throws IllegalArgumentException when {@code type} has no public no-argument constructor
   */
  public static <T extends HasMetadata> Resource<T> of(
      KubernetesClient client, Class<T> type, String namespace, String name) {
    T stub;
    try {
      stub = type.getDeclaredConstructor().newInstance();
    } catch (InstantiationException
        | IllegalAccessException
        | InvocationTargetException
        | NoSuchMethodException e) {
      throw new IllegalArgumentException(type + " cannot be instantiated", e);
    }
    stub.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace).build());
    return namespace == null
        ? client.resources(type).resource(stub)
        : client.resources(type).inNamespace(namespace).resource(stub);
  }
}
