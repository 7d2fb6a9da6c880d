package dev.ironcore.maintenance.server.warning;

import dev.ironcore.maintenance.server.admission.AdmissionRequest;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** How the warning handlers add what they found to another handler's answer, never denying. */
final class WarningsAdded {
  private static final Logger LOG = LoggerFactory.getLogger(WarningsAdded.class);

  private WarningsAdded() {}

  /**
   * @param response the inner handler's answer, which stands
   * @param request the review it answered
   * @param warnings computed only for an allowed CREATE or UPDATE of a live object; empty for none
   * @return {@code response} with those warnings; unchanged when there are none, or when computing
   *     them threw (a {@link RuntimeException}, or a {@link LinkageError}, a packaging defect
   *     logged at ERROR): a warning is never a reason to leave a write unanswered or denied
   */
  static AdmissionResponse to(
      AdmissionResponse response, AdmissionRequest request, Supplier<List<String>> warnings) {
    if (!response.isAllowed() || !request.createsOrUpdatesLiveObject()) {
      return response;
    }
    List<String> found;
    try {
      found = warnings.get();
    } catch (RuntimeException e) {
      return response;
    } catch (LinkageError e) {
      LOG.error("no eviction warning for this write: {}", e.toString(), e);
      return response;
    }
    return found.isEmpty() ? response : response.withWarnings(found.toArray(String[]::new));
  }
}
