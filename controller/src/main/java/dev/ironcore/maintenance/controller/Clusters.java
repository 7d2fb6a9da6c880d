package dev.ironcore.maintenance.controller;

import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The API servers the controller talks to, by what they store.
 *
 * <ul>
 *   <li>{@code capi}: the cluster the controller runs in (in-cluster config or {@code KUBECONFIG}):
 *       Cluster API Machines (read, finalizer and pre-drain hook written), their Events, and the
 *       leader-election Lease;
 *   <li>{@code ironcore}: the IronCore API ({@code --ironcore-kubeconfig}): MachinePools, Machines,
 *       the pools' Leases in {@code ironcore-machinepool-lease} and the Events about them.
 * </ul>
 *
 * In a single-cluster installation both are the same client ({@link #single}).
 */
public record Clusters(KubernetesClient capi, KubernetesClient ironcore) implements AutoCloseable {

  /** One cluster stores everything. */
  public static Clusters single(KubernetesClient client) {
    return new Clusters(client, client);
  }

  /** True when CAPI and IronCore objects live in different API servers. */
  public boolean separate() {
    return capi != ironcore;
  }

  /** Closes both clients (one, when they are the same). */
  @Override
  public void close() {
    ironcore.close();
    if (separate()) {
      capi.close();
    }
  }
}
