package dev.ironcore.maintenance.controller.informers;

import dev.ironcore.maintenance.api.client.RefusedRequest;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Why informers did not sync, in words for the one line that ends a start (docs/controller.md "What
 * stops a start ... is ONE line with the reason"): a start that waited for its caches used to end
 * with {@code ironcore-maintenance-controller: TimeoutException} after 60 s, while the reason (e.g.
 * every v1alpha2 list of Machines failing in the conversion webhook) was only in WARN lines before
 * it. Pure.
 */
public final class SyncFailure {
  private SyncFailure() {}

  /**
   * One phrase for a failed list or watch request of an informer.
   *
   * @param t what fabric8 handed the informer's exception handler (often a {@code
   *     CompletionException} around the request's exception)
   * @return for an answer: {@code answered 401 Unauthorized (...)} or {@code answered 403
   *     Forbidden: <the API server's message>} ({@link RefusedRequest}), else {@code answered
   *     <code>: <the API server's message>}, e.g. {@code answered 500: conversion webhook for
   *     compute.ironcore.dev/v1alpha1, Kind=Machine failed: ...}; without one, the innermost cause,
   *     e.g. {@code ConnectException: Connection refused}
   */
  public static String describe(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof KubernetesClientException k && k.getCode() > 0) {
        String message =
            k.getStatus() != null && k.getStatus().getMessage() != null
                ? k.getStatus().getMessage()
                : "";
        return RefusedRequest.describe(k)
            .orElse("answered " + k.getCode() + (message.isEmpty() ? "" : ": " + message));
      }
    }
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage();
    return root.getClass().getSimpleName()
        + (message == null || message.isBlank() ? "" : ": " + message);
  }

  /**
   * The reason a start gives up waiting for its caches.
   *
   * @param timeout how long it waited
   * @param notSynced informer name → why it has not listed ({@link
   *     SupervisedInformer#notSynced()}), in the informers' order
   * @return e.g. {@code caches did not sync within 60 s: informer machines: list failed: answered
   *     500: conversion webhook ... failed: ...}, several informers joined by {@code "; "}, on one
   *     line
   */
  public static String timedOut(Duration timeout, Map<String, String> notSynced) {
    String within =
        timeout.toMillis() % 1000 == 0 ? timeout.toSeconds() + " s" : timeout.toMillis() + " ms";
    String why =
        notSynced.isEmpty()
            ? "every informer listed, but not before the wait ended"
            : notSynced.entrySet().stream()
                .map(e -> "informer " + e.getKey() + ": " + e.getValue())
                .collect(Collectors.joining("; "));
    return ("caches did not sync within " + within + ": " + why).replaceAll("\\s*\\R\\s*", " ");
  }
}
