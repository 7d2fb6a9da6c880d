package dev.ironcore.maintenance.controller;

import dev.ironcore.maintenance.api.Names;
import dev.ironcore.maintenance.api.cache.CacheTrim;
import dev.ironcore.maintenance.api.cache.StreamedList;
import dev.ironcore.maintenance.api.cache.WatchHeartbeat;
import dev.ironcore.maintenance.api.capi.CapiMachine;
import dev.ironcore.maintenance.api.compute.ComputeApi;
import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.controller.informers.SupervisedInformer;
import dev.ironcore.maintenance.controller.informers.SyncFailure;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The controller's read side: fabric8 informers on CAPI Machines (all of them; the {@code
 * --capi-machine-selector} is applied by the drain loop) in the CAPI cluster, IronCore Machines and
 * MachinePools in the IronCore API ({@link Clusters}), with indexes Machine → pool ({@code
 * spec.machinePoolRef.name}) and CAPI Machine → node ({@code status.nodeRef.name}), and on the
 * pools' Leases in {@code ironcore-machinepool-lease}. Objects returned are the cache's own,
 * trimmed to what the loops read ({@link CacheTrim}): never modify them, never write them back.
 * Each informer is a {@link SupervisedInformer} (watched and healed) and lists by one streaming
 * watch where the API server serves it ({@link StreamedList}), in pages elsewhere.
 */
public final class ClusterCache implements AutoCloseable {
  private static final String BY_POOL = "byPool";
  private static final String BY_NODE = "byNode";

  /**
   * Objects per page of an informer's LIST where the API server does not stream lists ({@link
   * StreamedList}; bounds the memory of listing 10,000).
   */
  static final long LIST_LIMIT = 500;

  private final SupervisedInformer<CapiMachine> capiMachines;
  private final SupervisedInformer<Machine> machines;
  private final SupervisedInformer<MachinePool> pools;
  private final SupervisedInformer<Lease> leases;
  private final Class<? extends Machine> machineClass;
  private final Class<? extends MachinePool> poolClass;

  /**
   * Creates the (not yet started) informers.
   *
   * @param resync how often every cached object is replayed to the handlers (catches missed events)
   */
  public ClusterCache(KubernetesClient client, Duration resync) {
    this(Clusters.single(client), resync, ComputeApi.V1ALPHA1);
  }

  /**
   * Creates the (not yet started) informers: CAPI Machines from {@code clusters.capi()}, the rest
   * from {@code clusters.ironcore()}.
   *
   * @param resync how often every cached object is replayed to the handlers (catches missed events)
   * @param api the compute.ironcore.dev version to read Machines and MachinePools in
   */
  public ClusterCache(Clusters clusters, Duration resync, ComputeApi api) {
    this(clusters, resync, api, Clock.systemUTC());
  }

  /**
   * @param clock measures how long an informer is down
   */
  public ClusterCache(Clusters clusters, Duration resync, ComputeApi api, Clock clock) {
    this.machineClass = api.machineClass();
    this.poolClass = api.poolClass();
    long resyncMillis = resync.toMillis();
    KubernetesClient capi = clusters.capi();
    KubernetesClient ironcore = clusters.ironcore();
    // every CAPI Machine, not only selected ones: one that stops matching the selector must
    // still be seen, so that our finalizer and hook are released from it
    // lists by one streaming watch (StreamedList; in pages of LIST_LIMIT where the API server does
    // not serve it); caches keep only what the loops read (CacheTrim)
    this.capiMachines =
        new SupervisedInformer<>(
            "capi-machines",
            heartbeat ->
                StreamedList.informer(
                        capi,
                        CapiMachine.class,
                        capi.resources(CapiMachine.class).inAnyNamespace(),
                        LIST_LIMIT,
                        resyncMillis,
                        heartbeat)
                    .itemStore(CacheTrim.store(CacheTrim::stripManagedFields)),
            Map.of(BY_NODE, m -> listOf(m.nodeName())),
            clock);
    this.machines =
        new SupervisedInformer<>(
            "machines",
            heartbeat ->
                CacheTrim.machineInformer(
                    ironcore, api.machineClass(), LIST_LIMIT, resyncMillis, heartbeat),
            Map.of(BY_POOL, m -> listOf(m.boundPoolName())),
            clock);
    this.pools =
        new SupervisedInformer<>(
            "machinepools",
            heartbeat -> poolInformer(ironcore, api.poolClass(), resyncMillis, heartbeat),
            Map.of(),
            clock);
    this.leases =
        new SupervisedInformer<>(
            "leases",
            heartbeat ->
                StreamedList.informer(
                        ironcore,
                        Lease.class,
                        ironcore.leases().inNamespace(Names.LEASE_NAMESPACE),
                        LIST_LIMIT,
                        resyncMillis,
                        heartbeat)
                    .itemStore(CacheTrim.store(CacheTrim::stripManagedFields)),
            Map.of(),
            clock);
  }

  /** The class (API version) Machines are read in: {@code MachineV1alpha2} where served. */
  public Class<? extends Machine> machineClass() {
    return machineClass;
  }

  /** The class (API version) MachinePools are read in: {@code MachinePoolV1alpha2} where served. */
  public Class<? extends MachinePool> poolClass() {
    return poolClass;
  }

  /** The four informers, for the watchdog and metrics. */
  public List<SupervisedInformer<?>> informers() {
    return List.of(capiMachines, machines, pools, leases);
  }

  /** MachinePools in {@code type}'s version, without managed fields. */
  private static <T extends MachinePool> SharedIndexInformer<MachinePool> poolInformer(
      KubernetesClient client, Class<T> type, long resyncMillis, WatchHeartbeat heartbeat) {
    return widen(
        StreamedList.informer(
                client, type, client.resources(type), LIST_LIMIT, resyncMillis, heartbeat)
            .itemStore(CacheTrim.store(CacheTrim::stripManagedFields)));
  }

  /**
   * An informer of a subclass (e.g. {@code MachineV1alpha2}) as one of its base class: safe, since
   * the cache is only read and every object it holds is a {@code T}.
   */
  @SuppressWarnings("unchecked")
  private static <T> SharedIndexInformer<T> widen(SharedIndexInformer<? extends T> informer) {
    return (SharedIndexInformer<T>) informer;
  }

  private static List<String> listOf(String s) {
    return s == null ? List.of() : List.of(s);
  }

  public void onCapiMachine(ResourceEventHandler<CapiMachine> h) {
    capiMachines.addHandler(h);
  }

  public void onMachine(ResourceEventHandler<Machine> h) {
    machines.addHandler(h);
  }

  public void onPool(ResourceEventHandler<MachinePool> h) {
    pools.addHandler(h);
  }

  public void onLease(ResourceEventHandler<Lease> h) {
    leases.addHandler(h);
  }

  /**
   * Starts all informers and waits until each has listed once.
   *
   * @param timeout how long to wait
   * @throws IllegalStateException when they did not all list within {@code timeout}, saying which
   *     did not and why ({@link SyncFailure#timedOut}), e.g. {@code caches did not sync within 60
   *     s: informer machines: list failed: answered 500: conversion webhook ... failed: ...}; the
   *     informers keep retrying until {@link #close()}
   */
  public void start(Duration timeout) throws Exception {
    CompletableFuture<Void> all =
        CompletableFuture.allOf(
            capiMachines.start(), machines.start(), pools.start(), leases.start());
    try {
      all.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      Map<String, String> notSynced = new LinkedHashMap<>();
      for (SupervisedInformer<?> informer : informers()) {
        informer.notSynced().ifPresent(why -> notSynced.put(informer.resource(), why));
      }
      IllegalStateException failure =
          new IllegalStateException(SyncFailure.timedOut(timeout, notSynced));
      failure.addSuppressed(e); // for the stack trace at debug
      throw failure;
    }
  }

  /** The CAPI Machine with key {@code namespace/name}, or null (absent or not selected). */
  public CapiMachine capiMachine(String key) {
    return capiMachines.informer().getStore().getByKey(key);
  }

  /** The IronCore Machine with key {@code namespace/name}, or null. */
  public Machine machine(String key) {
    return machines.informer().getStore().getByKey(key);
  }

  /** The MachinePool named {@code name}, or null. */
  public MachinePool pool(String name) {
    return name == null ? null : pools.informer().getStore().getByKey(name);
  }

  /**
   * The Lease of pool {@code name} (same name, namespace {@code ironcore-machinepool-lease}), or
   * null.
   */
  public Lease lease(String name) {
    return leases.informer().getStore().getByKey(Names.LEASE_NAMESPACE + "/" + name);
  }

  /** Every cached CAPI Machine (selected or not); empty before {@link #start}. */
  public List<CapiMachine> capiMachines() {
    return listed(capiMachines);
  }

  /**
   * Every cached MachinePool; empty before {@link #start} (fresh eyes: a scrape of the pools gauge
   * in the moment between winning the Lease and starting the informers logged a WARN with a
   * NullPointerException).
   */
  public List<MachinePool> pools() {
    return listed(pools);
  }

  private static <T extends io.fabric8.kubernetes.api.model.HasMetadata> List<T> listed(
      SupervisedInformer<T> supervised) {
    SharedIndexInformer<T> informer = supervised.informer();
    return informer == null ? List.of() : informer.getStore().list();
  }

  /** IronCore Machines bound to pool {@code name}, deleting ones included. */
  public List<Machine> machinesBoundTo(String name) {
    return machines.informer().getIndexer().byIndex(BY_POOL, name);
  }

  /**
   * CAPI Machines whose {@code status.nodeRef.name} is {@code node}, selected by {@code
   * --capi-machine-selector} or not, deleting ones included.
   */
  public List<CapiMachine> capiMachinesOnNode(String node) {
    return capiMachines.informer().getIndexer().byIndex(BY_NODE, node);
  }

  @Override
  public void close() {
    capiMachines.close();
    machines.close();
    pools.close();
    leases.close();
  }
}
