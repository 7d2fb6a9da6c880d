package dev.ironcore.maintenance.certs.install;

import dev.ironcore.maintenance.certs.CaBundle;

/**
 * One {@code caBundle} the API server uses to trust our server: a webhook of a webhook
 * configuration, or the conversion webhook of a CRD.
 *
 * @param owner e.g. {@code MutatingWebhookConfiguration ironcore-maintenance}
 * @param entry webhook name, or {@code conversion}
 * @param bundle the CAs it trusts now (empty when unset or unreadable)
 * @param endpoint where the API server calls
 */
public record TrustSlot(String owner, String entry, CaBundle bundle, Endpoint endpoint) {

  /** {@code owner[entry]}. */
  public String describe() {
    return owner + " [" + entry + "]";
  }

  /**
   * Where the API server sends the calls: a URL, or a Service (namespace, name, port).
   *
   * @param cluster index of the cluster (kubeconfig) whose API server makes the calls
   * @param url the {@code clientConfig.url}, or null
   * @param namespace Service namespace (service form), or null
   * @param name Service name (service form), or null
   * @param port Service port (service form; 443 when unset)
   */
  public record Endpoint(int cluster, String url, String namespace, String name, int port) {

    /**
     * The name kube-apiserver checks the serving certificate against: the host of {@code url} (an
     * IPv6 literal without brackets), or {@code <name>.<namespace>.svc} for a Service.
     */
    public String verifiedHost() {
      if (url == null) {
        return name + "." + namespace + ".svc";
      }
      String host = java.net.URI.create(url).getHost();
      if (host == null) {
        return "";
      }
      return host.startsWith("[") && host.endsWith("]")
          ? host.substring(1, host.length() - 1)
          : host;
    }

    /** Human-readable target. */
    public String describe() {
      return url != null ? url : "service " + namespace + "/" + name + ":" + port;
    }
  }
}
