package dev.ironcore.maintenance.controller.runtime;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.function.BiConsumer;

/** Builds informer event handlers that see every add, update (old, new) and delete alike. */
public final class Handlers {
  private Handlers() {}

  /**
   * A handler calling {@code onChange(old, current)} for every event: on add {@code old} is null,
   * on delete {@code current} is the last known state and {@code old} is null.
   */
  public static <T> ResourceEventHandler<T> onAnyChange(BiConsumer<T, T> onChange) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        onChange.accept(null, obj);
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        onChange.accept(oldObj, newObj);
      }

      @Override
      public void onDelete(T obj, boolean deletedFinalStateUnknown) {
        if (obj != null) {
          onChange.accept(null, obj);
        }
      }
    };
  }
}
