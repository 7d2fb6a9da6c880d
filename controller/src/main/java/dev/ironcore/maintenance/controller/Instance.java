package dev.ironcore.maintenance.controller;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * This controller process among its replicas: {@code $POD_NAME} (the Deployment passes it from the
 * downward API), else the host name and the pid. Its leader-election identity and the {@code
 * reportingInstance} of its Events, so that after a leader change {@code kubectl get events -o
 * wide} tells which replica acted (client-go's recorder reports its host there).
 */
public final class Instance {
  private Instance() {}

  /**
   * @return {@code $POD_NAME} when set and not blank, else {@code <host name>-<pid>} ({@code
   *     localhost-<pid>} when the host name cannot be resolved)
   */
  public static String name() {
    String podName = System.getenv("POD_NAME");
    if (podName != null && !podName.isBlank()) {
      return podName;
    }
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "localhost";
    }
    return host + "-" + ProcessHandle.current().pid();
  }

  /**
   * @param maxLength the most characters the field takes
   * @return {@link #name()} (one host-name lookup), cut to {@code maxLength}
   */
  public static String name(int maxLength) {
    String name = name();
    return name.length() <= maxLength ? name : name.substring(0, maxLength);
  }
}
