package dev.ironcore.maintenance.api.cache;

import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachineSpec;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * What the informer caches of both processes (the controller's loops, the webhook server's eviction
 * warning) keep of each object: only what they read, as controller-runtime's cache transforms do
 * ({@code TransformStripManagedFields}). Every object loses {@code metadata.managedFields}; an
 * IronCore Machine keeps only its metadata (without annotations), {@code spec.machinePoolRef} and
 * {@code spec.tolerations}. Writes start from a fresh read (a JSON Patch against it), except the
 * health loop's Ready=Unknown patch, which starts from the cached MachinePool (kept whole but for
 * managed fields) guarded by its resourceVersion ({@code controller.health.PoolUnknownWriter}); so
 * nothing dropped here is ever written back. With 10,000 Machines this is the difference between
 * about 150 and 30 MiB of heap ({@code make bench}).
 */
public final class CacheTrim {
  private CacheTrim() {}

  /** Drops {@code metadata.managedFields} in place; returns {@code o}. */
  public static <T extends HasMetadata> T stripManagedFields(T o) {
    if (o != null && o.getMetadata() != null) {
      o.getMetadata().setManagedFields(null);
    }
    return o;
  }

  /**
   * Keeps metadata without managed fields and annotations, the pool binding and the tolerations, in
   * place; returns {@code m}.
   */
  public static Machine machine(Machine m) {
    stripManagedFields(m);
    if (m.getMetadata() != null) {
      m.getMetadata().setAnnotations(null);
    }
    if (m.getSpec() != null) {
      MachineSpec kept = new MachineSpec();
      kept.setMachinePoolRef(m.getSpec().getMachinePoolRef());
      kept.setTolerations(m.getSpec().getTolerations());
      m.setSpec(kept);
    }
    m.setStatus(null);
    return m;
  }

  /**
   * An informer (not started) of the Machines of all namespaces in {@code type}'s version (v1alpha1
   * or v1alpha2), listing by one streaming watch ({@link StreamedList}; in pages of {@code
   * pageSize} where the API server does not serve it) and keeping each one trimmed by {@link
   * #machine}. Its objects are decoded as {@link CachedMachines} (subclasses of {@code type}'s
   * version that skip, while decoding, what the trim drops).
   *
   * @param resyncMillis how often cached Machines are replayed, in milliseconds (0 = never)
   * @param heartbeat notes every event and bookmark the informer's watches hear
   */
  @SuppressWarnings("unchecked")
  public static SharedIndexInformer<Machine> machineInformer(
      KubernetesClient client,
      Class<? extends Machine> type,
      long pageSize,
      long resyncMillis,
      WatchHeartbeat heartbeat) {
    Class<Machine> cached = (Class<Machine>) CachedMachines.of(type);
    return StreamedList.informer(
            client,
            cached,
            client.resources(cached).inAnyNamespace(),
            pageSize,
            resyncMillis,
            heartbeat)
        .itemStore(machineStore());
  }

  /** An informer store that keeps each Machine trimmed by {@link #machine}. */
  public static ItemStore<Machine> machineStore() {
    return store(CacheTrim::machine);
  }

  /**
   * An informer store that applies {@code trim} to every object it keeps (the object handed to the
   * event handlers is the same, trimmed, object).
   */
  public static <T extends HasMetadata> ItemStore<T> store(UnaryOperator<T> trim) {
    return new Trimming<>(trim);
  }

  private static final class Trimming<T extends HasMetadata> implements ItemStore<T> {
    private final BasicItemStore<T> items = new BasicItemStore<>(Cache::metaNamespaceKeyFunc);
    private final UnaryOperator<T> trim;

    Trimming(UnaryOperator<T> trim) {
      this.trim = trim;
    }

    @Override
    public String getKey(T obj) {
      return items.getKey(obj);
    }

    @Override
    public T put(String key, T obj) {
      return items.put(key, trim.apply(obj));
    }

    @Override
    public T remove(String key) {
      return items.remove(key);
    }

    @Override
    public Stream<String> keySet() {
      return items.keySet();
    }

    @Override
    public Stream<T> values() {
      return items.values();
    }

    @Override
    public int size() {
      return items.size();
    }

    @Override
    public T get(String key) {
      return items.get(key);
    }
  }
}
