package dev.ironcore.maintenance.api.cache;

import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.core.filter.TokenFilter;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachineSpec;
import dev.ironcore.maintenance.api.compute.MachineV1alpha2;
import dev.ironcore.maintenance.api.json.KeptMembers;
import dev.ironcore.maintenance.api.json.Salvageable;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The Machine classes the informer caches decode a LIST or watch event into: JSON decoding skips
 * what {@link CacheTrim#machine} drops anyway (status, {@code metadata.managedFields}, {@code
 * metadata.annotations} but {@code k8s.io/initial-events-end}, which marks the end of a streaming
 * list, every {@code spec} field but {@code machinePoolRef} and {@code tolerations}) instead of
 * building it first. A micro-benchmark of 2,500 fleet Machines under the shipped C1 flags: 73
 * instead of 96–134 ms, 41 instead of 61 MB allocated ({@code bench/analysis.md}).
 *
 * <p>Only for the informers ({@link CacheTrim#machineInformer}): they are never registered with
 * fabric8's serialization, so generic decoding, the webhook's admission reviews and every fresh
 * read before a write still get the whole object. {@code CachedMachinesTest} and {@code
 * CachedMachinesPropertyTest} prove that an object decoded this way and trimmed equals one decoded
 * whole and trimmed (and that a bad value in a field the cache never reads no longer makes it a
 * salvaged one).
 */
public final class CachedMachines {
  private CachedMachines() {}

  /**
   * @param type {@link Machine} (v1alpha1) or {@link MachineV1alpha2}
   * @return the cache-only class of the same version
   */
  public static Class<? extends Machine> of(Class<? extends Machine> type) {
    return MachineV1alpha2.class.isAssignableFrom(type) ? V1alpha2.class : V1alpha1.class;
  }

  /**
   * What both versions' cache classes share: Jackson reads the annotations of these interface
   * methods for the setters the classes inherit from fabric8's {@code CustomResource}.
   */
  @JsonIgnoreProperties(value = "status", ignoreUnknown = true)
  interface CacheOnly extends Salvageable {
    @JsonDeserialize(as = Metadata.class)
    void setMetadata(ObjectMeta metadata);

    @JsonDeserialize(as = Spec.class)
    void setSpec(MachineSpec spec);

    @Override
    default Class<? extends ObjectMeta> metadataClass() {
      return Metadata.class;
    }

    /** What the annotations above keep, so that the rest is not even buffered. */
    @Override
    default TokenFilter keptMembers() {
      return KEPT;
    }
  }

  /** The members {@link CacheOnly} decodes: the others are skipped while buffering. */
  static final KeptMembers KEPT =
      KeptMembers.allBut("status")
          .with(
              "metadata",
              KeptMembers.allBut("managedFields")
                  .with("annotations", KeptMembers.only(Names.INITIAL_EVENTS_END_ANNOTATION)))
          .with("spec", KeptMembers.only("machinePoolRef", "tolerations"));

  /** A v1alpha1 Machine decoded for the cache. */
  @Group("compute.ironcore.dev")
  @Version("v1alpha1")
  @Kind("Machine")
  @Plural("machines")
  @Singular("machine")
  public static final class V1alpha1 extends Machine implements CacheOnly {}

  /** A v1alpha2 Machine decoded for the cache. */
  @Group("compute.ironcore.dev")
  @Version("v1alpha2")
  @Kind("Machine")
  @Plural("machines")
  @Singular("machine")
  public static final class V1alpha2 extends MachineV1alpha2 implements CacheOnly {}

  /**
   * Metadata without managed fields, and of the annotations only the one that ends a streaming
   * list's initial events ({@link Names#INITIAL_EVENTS_END_ANNOTATION}, on a {@code BOOKMARK});
   * members the API server does not send are kept, as the trim keeps them.
   */
  @JsonIgnoreProperties({"managedFields"})
  static final class Metadata extends ObjectMeta {
    private static final long serialVersionUID = 1L;
  }

  /** A spec with the pool binding and the tolerations only. */
  @JsonIgnoreProperties(
      value = {"machineClassRef", "machinePoolSelector", "power"},
      ignoreUnknown = true)
  static final class Spec extends MachineSpec {
    @Override
    @JsonAnySetter(enabled = false)
    public void setAdditionalProperty(String name, Object value) {
      // skipped: the cache keeps no other spec field
    }
  }
}
