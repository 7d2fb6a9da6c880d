package dev.ironcore.maintenance.controller;

import dev.ironcore.maintenance.api.Names;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes core/v1 Events (what {@code kubectl describe} and {@code kubectl get events} show), each
 * in the API server that stores its object ({@link Clusters}: a CAPI Machine's in the CAPI cluster,
 * everything else in the IronCore API). A failure to record is logged, never thrown: events are
 * informational.
 */
public final class EventRecorder {
  private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);

  /** The event source / reporting component. */
  public static final String COMPONENT = "ironcore-maintenance-controller";

  private final Clusters clusters;
  private final Clock clock;

  public EventRecorder(KubernetesClient client, Clock clock) {
    this(Clusters.single(client), clock);
  }

  public EventRecorder(Clusters clusters, Clock clock) {
    this.clusters = clusters;
    this.clock = clock;
  }

  /**
   * Records an event on {@code object} (namespaced; events of cluster-scoped objects go to
   * "default").
   *
   * @param type {@code Normal} or {@code Warning}
   */
  public void record(HasMetadata object, String type, String reason, String message) {
    String ns =
        object.getMetadata().getNamespace() == null
            ? "default"
            : object.getMetadata().getNamespace();
    String now = Instant.now(clock).toString();
    KubernetesClient client =
        String.valueOf(object.getApiVersion()).startsWith(Names.CAPI_GROUP + "/")
            ? clusters.capi()
            : clusters.ironcore();
    try {
      client
          .v1()
          .events()
          .inNamespace(ns)
          .resource(
              new EventBuilder()
                  .withNewMetadata()
                  .withGenerateName(object.getMetadata().getName() + ".")
                  .withNamespace(ns)
                  .endMetadata()
                  .withInvolvedObject(
                      new ObjectReferenceBuilder()
                          .withApiVersion(object.getApiVersion())
                          .withKind(object.getKind())
                          .withName(object.getMetadata().getName())
                          .withNamespace(object.getMetadata().getNamespace())
                          .withUid(object.getMetadata().getUid())
                          .withResourceVersion(object.getMetadata().getResourceVersion())
                          .build())
                  .withType(type)
                  .withReason(reason)
                  .withMessage(message)
                  .withNewSource()
                  .withComponent(COMPONENT)
                  .endSource()
                  .withReportingComponent(COMPONENT)
                  .withReportingInstance(COMPONENT)
                  .withFirstTimestamp(now)
                  .withLastTimestamp(now)
                  .withCount(1)
                  .build())
          .create();
    } catch (RuntimeException e) {
      LOG.warn(
          "could not record event {} on {}/{}: {}",
          reason,
          ns,
          object.getMetadata().getName(),
          e.toString());
    }
  }
}
