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
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Connects to the running webhook server(s) and reads the certificate each presents in a fresh TLS
 * handshake. A {@code url} endpoint is dialled directly; a Service endpoint through a port-forward
 * to each running pod behind it (the way {@code kubectl port-forward} does), so every replica is
 * checked. The presented chain is read, not trusted: the check is byte equality with the expected
 * certificate.
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
   * Polls every second until every server behind {@code endpoints} presents {@code expected}.
   *
   * @param endpoints distinct call targets of the trust slots
   * @param expected the serving certificate just written
   * @param timeout how long to wait overall
   * @param out progress lines
   * @throws IllegalStateException on timeout, naming what the servers presented instead
   */
  public void awaitPresented(
      Set<TrustSlot.Endpoint> endpoints,
      X509Certificate expected,
      Duration timeout,
      Consumer<String> out) {
    Instant deadline = Instant.now().plus(timeout);
    Set<String> confirmed = new LinkedHashSet<>();
    while (true) {
      List<String> pending = new ArrayList<>();
      for (TrustSlot.Endpoint ep : endpoints) {
        for (Target t : targets(ep)) {
          if (confirmed.contains(t.name())) {
            continue;
          }
          String seen = presented(t, expected);
          if (seen == null) {
            confirmed.add(t.name());
            out.accept("  " + t.name() + " presents the new certificate");
          } else {
            pending.add(t.name() + ": " + seen);
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

  /** One server: a host and port to dial, or a pod to port-forward to. */
  private record Target(
      String name, String host, int port, String sni, Pod pod, KubernetesClient client) {}

  private List<Target> targets(TrustSlot.Endpoint ep) {
    if (ep.url() != null) {
      URI uri = URI.create(ep.url());
      int port = uri.getPort() > 0 ? uri.getPort() : 443;
      return List.of(
          new Target(uri.getHost() + ":" + port, uri.getHost(), port, uri.getHost(), null, null));
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
  private String presented(Target t, X509Certificate expected) {
    if (t.pod() == null) {
      return handshake(t.host(), t.port(), t.sni(), expected);
    }
    try (LocalPortForward fwd =
        t.client()
            .pods()
            .inNamespace(t.pod().getMetadata().getNamespace())
            .withName(t.pod().getMetadata().getName())
            .portForward(t.port())) {
      return handshake("127.0.0.1", fwd.getLocalPort(), t.sni(), expected);
    } catch (IOException | RuntimeException e) {
      return "port-forward failed: " + e.getMessage();
    }
  }

  private static String handshake(String host, int port, String sni, X509Certificate expected) {
    try (Socket raw = new Socket()) {
      raw.connect(new InetSocketAddress(host, port), (int) CONNECT_TIMEOUT.toMillis());
      raw.setSoTimeout((int) CONNECT_TIMEOUT.toMillis());
      SSLSocket tls =
          (SSLSocket) readingContext().getSocketFactory().createSocket(raw, host, port, false);
      try (tls) {
        SSLParameters params = tls.getSSLParameters();
        if (sni != null && !sni.matches("[0-9.]+|.*:.*")) {
          params.setServerNames(List.of(new SNIHostName(sni)));
        }
        tls.setSSLParameters(params);
        tls.startHandshake();
        X509Certificate leaf = (X509Certificate) tls.getSession().getPeerCertificates()[0];
        if (CaBundle.sameCertificate(leaf, expected)) {
          return null;
        }
        return "still presents serial "
            + Serials.hex(leaf)
            + " (expires "
            + leaf.getNotAfter().toInstant()
            + ")";
      }
    } catch (IOException e) {
      return "cannot connect: " + e.getMessage();
    }
  }

  /** A client context that accepts any chain: we only read the presented certificate. */
  private static SSLContext readingContext() {
    try {
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, new TrustManager[] {new ReadOnlyTrust()}, new SecureRandom());
      return ctx;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("no TLS in this JVM", e);
    }
  }

  private static final class ReadOnlyTrust implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
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
