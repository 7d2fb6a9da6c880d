package dev.ironcore.maintenance.server.admission;

/**
 * Guards an admission path against reviews of a kind it was not written for: a webhook
 * configuration whose rules send, say, MachinePools to the Machine path. Without the guard such a
 * review would be judged by rules meant for another kind (a MachinePool has no tolerations, so
 * {@code /validate/machine} would allow it) and the misconfiguration would go unseen; with it the
 * API server fails the request with a message that names the path, the kind it judges and the kind
 * it got.
 *
 * <p>Any version of the expected kind passes ({@code request.kind} is the version the API server
 * sent, which with {@code matchPolicy: Equivalent} may differ from the object's).
 */
public final class ExpectedKind implements AdmissionHandler {
  private final String path;
  private final String group;
  private final String kind;
  private final AdmissionHandler handler;

  /**
   * @param path the webhook path, for the message (e.g. {@code /validate/machine})
   * @param group the API group the path judges (e.g. {@code compute.ironcore.dev})
   * @param kind the kind the path judges (e.g. {@code Machine})
   * @param handler what judges a review of that kind
   */
  public ExpectedKind(String path, String group, String kind, AdmissionHandler handler) {
    this.path = path;
    this.group = group;
    this.kind = kind;
    this.handler = handler;
  }

  /**
   * @param request any admission request
   * @return the handler's decision for a review of the expected group and kind; otherwise errored
   *     with code 400 and e.g. {@code /validate/machine judges Machine.compute.ironcore.dev only,
   *     got MachinePool.compute.ironcore.dev: the webhook configuration's rules send this path a
   *     resource it does not judge}
   */
  @Override
  public AdmissionResponse handle(AdmissionRequest request) {
    if (request.kind().is(group, kind)) {
      return handler.handle(request);
    }
    return AdmissionResponse.errored(
        400,
        path
            + " judges "
            + new GroupVersionKind(group, "", kind)
            + " only, got "
            + request.kind()
            + ": the webhook configuration's rules send this path a resource it does not judge");
  }

  /**
   * @return what the guarded handler reads
   */
  @Override
  public ObjectFields objectFields() {
    return handler.objectFields();
  }
}
