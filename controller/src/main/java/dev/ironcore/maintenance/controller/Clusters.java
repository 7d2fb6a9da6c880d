package dev.ironcore.maintenance.controller;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.RequestConfigBuilder;

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

  /**
   * The same API servers through clients whose requests fabric8 sends once ({@code
   * requestRetryBackoffLimit} 0) and waits for up to {@link #LOOP_REQUEST_TIMEOUT}, for the loops'
   * reads and writes. fabric8 retries a request that was answered 5xx or 429, or not at all, 10
   * times with a back-off of 100 ms doubling to 3.2 s, each attempt waiting out whatever made the
   * API server fail: behind an admission webhook that hangs (the API server gives up after the
   * webhook's {@code timeoutSeconds}) one write held a loop worker for about a minute before the
   * loop heard of it, and the other pools' drains waited behind it. As client-go does for such
   * answers (no {@code Retry-After}), the failure now reaches the loop at once, which logs it,
   * records {@code DrainWriteFailed} or {@code EvictionFailed}, and retries the pass from a fresh
   * decision with its own back-off ({@link dev.ironcore.maintenance.controller.runtime.Loop},
   * honouring a 429's {@code Retry-After}). The loops' Events use these clients too (the recorder
   * retries a failed one in the background). Discovery, informers and leader election keep
   * fabric8's retries (a 429 storm at start-up must not end the process).
   *
   * <p>The derived clients share the connections of these ones; close only these.
   */
  public Clusters failFast() {
    KubernetesClient fastCapi = failFast(capi, LOOP_REQUEST_TIMEOUT);
    return new Clusters(fastCapi, separate() ? failFast(ironcore, LOOP_REQUEST_TIMEOUT) : fastCapi);
  }

  /**
   * How long a loop's request waits for the API server's answer: longer than kube-apiserver's own
   * {@code --request-timeout} (60 s by default, after which it answers 504 itself), so the loop
   * hears what the API server did rather than a timeout of its own. fabric8's default of 10 s was
   * shorter than a hung conversion webhook's 30 s: the API server then applied writes the loop had
   * already reported as failed (its managed-fields conversion failing, the write going on), and the
   * health loop lost the log line, Event and count of a pool it had set Unknown.
   */
  public static final java.time.Duration LOOP_REQUEST_TIMEOUT = java.time.Duration.ofSeconds(70);

  private static KubernetesClient failFast(
      KubernetesClient client, java.time.Duration requestTimeout) {
    return client
        .adapt(NamespacedKubernetesClient.class)
        .withRequestConfig(
            new RequestConfigBuilder(client.getConfiguration().getRequestConfig())
                .withRequestRetryBackoffLimit(0)
                .withRequestTimeout((int) requestTimeout.toMillis())
                .build())
        .call(c -> c);
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
