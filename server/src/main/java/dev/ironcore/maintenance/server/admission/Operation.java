package dev.ironcore.maintenance.server.admission;

import dev.ironcore.maintenance.api.validation.Excerpt;

/** The {@code request.operation} of an admission.k8s.io/v1 AdmissionReview. */
public enum Operation {
  CREATE,
  UPDATE,
  DELETE,
  CONNECT;

  /**
   * @param wire the operation as sent, e.g. {@code "CREATE"}
   * @return the operation
   * @throws MalformedReviewException when {@code wire} is not one of the four operations
   */
  public static Operation parse(String wire) {
    for (Operation op : values()) {
      if (op.name().equals(wire)) {
        return op;
      }
    }
    throw new MalformedReviewException(
        "request.operation must be CREATE, UPDATE, DELETE or CONNECT, got "
            + (wire == null ? "nothing" : "\"" + Excerpt.of(wire) + "\""));
  }
}
