package dev.ironcore.maintenance.certs.install;

import dev.ironcore.maintenance.certs.CaBundle;
import dev.ironcore.maintenance.certs.Serials;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.LocalPortForward;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * Connects to the running webhook server(s) and reads the certificate each presents in a fresh TLS
 * handshake. A {@code url} endpoint is dialled directly; a Service endpoint through a port-forward
 * to each running pod behind it (the way {@code kubectl port-forward} does), so every replica is
 * checked. A server is done when it presents the expected certificate (byte equality) and the
 * handshake succeeds as kube-apiserver's would: trusting only the CA being installed and checking
 * the certificate against the host the API server calls (endpoint identification {@code HTTPS}: the
 * URL's host or IP, or {@code <service>.<namespace>.svc}). A server that presents the expected
 * certificate but fails that check ends the wait at once with the reason.
 */
public final class ServerProbe {
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  private final List<KubernetesClient> clients;

  /**
   * @param client used for Service endpoints (pods and port-forwards)
   */
  public ServerProbe(KubernetesClient client) {
    this(List.of(client));
  }

  /**
   * @param clients one per cluster, in the order of {@link TrustSlot.Endpoint#cluster()}
   */
  public ServerProbe(List<KubernetesClient> clients) {
    this.clients = List.copyOf(clients);
  }

  /**
   * Polls every second until every server behind {@code endpoints} presents {@code expected} in a
   * handshake that kube-apiserver, trusting only {@code ca}, would accept. Used before the other
   * CAs are dropped from the caBundles, so a server that cannot be reached is waited for too.
   *
   * @param endpoints distinct call targets of the trust slots
   * @param expected the serving certificate just written
   * @param ca the CA the caBundles will trust alone
   * @param timeout how long to wait overall
   * @param out progress lines
   * @throws IllegalStateException on timeout, naming what the servers presented instead, or at once
   *     when a server presents {@code expected} in a handshake the API server would refuse
   */
  public void awaitPresented(
      Set<TrustSlot.Endpoint> endpoints,
      X509Certificate expected,
      X509Certificate ca,
      Duration timeout,
      Consumer<String> out) {
    await(endpoints, expected, ca, timeout, out, true);
  }

  /**
   * As {@link #awaitPresented}, for a serving certificate re-issued under a CA the caBundles keep
   * trusting (so the old and the new certificate both work meanwhile): waits for every server that
   * answers to present {@code expected}; a server that cannot be reached (not running, or a URL
   * this machine cannot dial) is named and not waited for: it reads the new pair when it starts.
   *
   * @throws IllegalStateException on timeout (a server that keeps presenting another certificate
   *     does not reload its files), or at once as {@link #awaitPresented}
   */
  public void awaitReloaded(
      Set<TrustSlot.Endpoint> endpoints,
      X509Certificate expected,
      X509Certificate ca,
      Duration timeout,
      Consumer<String> out) {
    await(endpoints, expected, ca, timeout, out, false);
  }

  /**
   * One look, no waiting: the running servers behind {@code endpoints} that do not present {@code
   * expected} (each as {@code "<server>: <what it presents instead>"}); one that cannot be reached
   * is left out, as {@link #awaitReloaded} does not wait for it.
   *
   * @throws IllegalStateException when a server presents {@code expected} in a handshake the API
   *     server would refuse
   */
  public List<String> notPresenting(
      Set<TrustSlot.Endpoint> endpoints, X509Certificate expected, X509Certificate ca) {
    List<String> stale = new ArrayList<>();
    look(endpoints, Set.of(), expected, ca)
        .forEach(
            (name, seen) -> {
              if (seen != null && seen.reachable()) {
                stale.add(name + ": " + seen.text());
              }
            });
    return stale;
  }

  /**
   * One look at each server behind {@code endpoints} but those in {@code skip}, each asked once
   * (several URL paths may lead to one server).
   *
   * @return server name to what it presents instead of {@code expected}, null when it presents it
   * @throws IllegalStateException as {@link #presented}
   */
  private Map<String, Seen> look(
      Set<TrustSlot.Endpoint> endpoints,
      Set<String> skip,
      X509Certificate expected,
      X509Certificate ca) {
    Map<String, Seen> seen = new LinkedHashMap<>();
    for (TrustSlot.Endpoint ep : endpoints) {
      for (Target t : targets(ep)) {
        if (!skip.contains(t.name()) && !seen.containsKey(t.name())) {
          seen.put(t.name(), presented(t, expected, ca));
        }
      }
    }
    return seen;
  }

  private void await(
      Set<TrustSlot.Endpoint> endpoints,
      X509Certificate expected,
      X509Certificate ca,
      Duration timeout,
      Consumer<String> out,
      boolean waitForUnreachable) {
    Instant deadline = Instant.now().plus(timeout);
    Set<String> confirmed = new LinkedHashSet<>();
    Set<String> waitedFor = new LinkedHashSet<>();
    while (true) {
      List<String> pending = new ArrayList<>();
      for (Map.Entry<String, Seen> e : look(endpoints, confirmed, expected, ca).entrySet()) {
        String name = e.getKey();
        Seen seen = e.getValue();
        if (seen == null) {
          confirmed.add(name);
          out.accept("  " + name + " presents the new certificate");
        } else if (!seen.reachable() && !waitForUnreachable) {
          confirmed.add(name);
          out.accept(
              "  "
                  + name
                  + ": "
                  + seen.text()
                  + " (not waited for: it reads the new pair when it starts)");
        } else {
          pending.add(name + ": " + seen.text());
          if (waitedFor.add(name)) {
            out.accept("  waiting for " + name + " (" + seen.text() + ")");
          }
        }
      }
      if (pending.isEmpty()) {
        if (confirmed.isEmpty()) {
          out.accept("  no running webhook server found; nothing can present the old certificate");
        }
        return;
      }
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException(
            "after "
                + timeout.toSeconds()
                + " s not every server presents the new certificate: "
                + String.join("; ", pending));
      }
      sleep(Duration.ofSeconds(1));
    }
  }

  /** What a server presented instead of the expected certificate, and whether it answered. */
  private record Seen(String text, boolean reachable) {}

  /** One server: a host and port to dial, or a pod to port-forward to. */
  private record Target(
      String name, String host, int port, String sni, Pod pod, KubernetesClient client) {}

  private List<Target> targets(TrustSlot.Endpoint ep) {
    if (ep.url() != null) {
      URI uri = URI.create(ep.url());
      int port = uri.getPort() > 0 ? uri.getPort() : 443;
      return List.of(
          new Target(
              uri.getHost() + ":" + port, ep.verifiedHost(), port, ep.verifiedHost(), null, null));
    }
    KubernetesClient client = clients.get(ep.cluster());
    String where = clients.size() == 1 ? "" : " (cluster " + (ep.cluster() + 1) + ")";
    Service svc =
        ClusterCall.run(
            client,
            "get Service " + ep.namespace() + "/" + ep.name(),
            () -> client.services().inNamespace(ep.namespace()).withName(ep.name()).get());
    if (svc == null || svc.getSpec().getSelector() == null) {
      return List.of();
    }
    ServicePort sp =
        svc.getSpec().getPorts().stream()
            .filter(p -> p.getPort() != null && p.getPort() == ep.port())
            .findFirst()
            .orElse(null);
    if (sp == null) {
      return List.of();
    }
    List<Target> out = new ArrayList<>();
    List<Pod> pods =
        ClusterCall.run(
            client,
            "list Pods in " + ep.namespace() + " behind Service " + ep.name(),
            () ->
                client
                    .pods()
                    .inNamespace(ep.namespace())
                    .withLabels(svc.getSpec().getSelector())
                    .list()
                    .getItems());
    for (Pod pod : pods) {
      if (pod.getStatus() == null
          || !"Running".equals(pod.getStatus().getPhase())
          || pod.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      int port = containerPort(pod, sp.getTargetPort(), ep.port());
      String sni = ep.name() + "." + ep.namespace() + ".svc";
      out.add(
          new Target(
              "pod " + ep.namespace() + "/" + pod.getMetadata().getName() + where,
              null,
              port,
              sni,
              pod,
              client));
    }
    return out;
  }

  private static int containerPort(Pod pod, IntOrString targetPort, int servicePort) {
    if (targetPort == null) {
      return servicePort;
    }
    if (targetPort.getIntVal() != null) {
      return targetPort.getIntVal();
    }
    return pod.getSpec().getContainers().stream()
        .flatMap(
            c ->
                c.getPorts() == null
                    ? java.util.stream.Stream.<ContainerPort>empty()
                    : c.getPorts().stream())
        .filter(p -> targetPort.getStrVal().equals(p.getName()))
        .map(ContainerPort::getContainerPort)
        .findFirst()
        .orElse(servicePort);
  }

  /** Null when {@code t} presents {@code expected}; otherwise what it presented or why not. */
  private Seen presented(Target t, X509Certificate expected, X509Certificate ca) {
    if (t.pod() == null) {
      return handshake(t.name(), t.host(), t.port(), t.sni(), expected, ca, true);
    }
    try (LocalPortForward fwd =
        t.client()
            .pods()
            .inNamespace(t.pod().getMetadata().getNamespace())
            .withName(t.pod().getMetadata().getName())
            .portForward(t.port())) {
      // the local forwarder accepts whether or not the pod answers: no sign of a running server
      return handshake(t.name(), "127.0.0.1", fwd.getLocalPort(), t.sni(), expected, ca, false);
    } catch (IOException | RuntimeException e) {
      return new Seen("port-forward failed: " + e.getMessage(), false);
    }
  }

  /**
   * Null when the server presents {@code expected} and kube-apiserver would accept the handshake;
   * otherwise what it presents instead (or why it cannot be reached).
   *
   * @param name the server, for the error
   * @param host where to connect
   * @param sni the name the API server verifies (and sends as SNI unless it is an IP)
   * @param acceptMeansRunning a connection accepted there is the server's own (not a forwarder's):
   *     one that then completes no handshake is a running server that does not answer (hung,
   *     stopped), waited for like one presenting another certificate
   * @throws IllegalStateException when {@code expected} is presented but would be refused
   */
  private static Seen handshake(
      String name,
      String host,
      int port,
      String sni,
      X509Certificate expected,
      X509Certificate ca,
      boolean acceptMeansRunning) {
    ApiServerTrust trust = new ApiServerTrust(ca);
    boolean connected = false;
    try (Socket raw = new Socket()) {
      raw.connect(new InetSocketAddress(host, port), (int) CONNECT_TIMEOUT.toMillis());
      connected = true;
      raw.setSoTimeout((int) CONNECT_TIMEOUT.toMillis());
      SSLSocket tls =
          (SSLSocket) trust.context().getSocketFactory().createSocket(raw, sni, port, false);
      try (tls) {
        SSLParameters params = tls.getSSLParameters();
        params.setEndpointIdentificationAlgorithm("HTTPS");
        if (!SanList.looksLikeIp(sni)) {
          params.setServerNames(List.of(new SNIHostName(sni)));
        }
        tls.setSSLParameters(params);
        tls.startHandshake();
      }
    } catch (IOException e) {
      if (trust.presented() == null && connected && acceptMeansRunning) {
        // it accepts connections but does not answer (fresh eyes: a stopped process, kill -STOP,
        // was taken for one not running, and make certs said done): a running server, waited for
        return new Seen(
            "accepts connections but completed no TLS handshake (" + e.getMessage() + ")", true);
      }
      if (trust.presented() == null) {
        return new Seen("cannot connect: " + e.getMessage(), false);
      }
    }
    X509Certificate leaf = trust.presented();
    if (!CaBundle.sameCertificate(leaf, expected)) {
      return new Seen(
          "still presents serial "
              + Serials.hex(leaf)
              + " (expires "
              + leaf.getNotAfter().toInstant()
              + ")",
          true);
    }
    if (trust.refusal() != null) {
      throw new IllegalStateException(
          name
              + " presents the new certificate, but kube-apiserver would refuse it for "
              + sni
              + ": "
              + trust.refusal()
              + "; the old CA stays trusted");
    }
    return null;
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the server", e);
    }
  }
}
