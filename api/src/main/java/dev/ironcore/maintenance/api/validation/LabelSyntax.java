package dev.ironcore.maintenance.api.validation;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The syntax of Kubernetes label keys and values (semantics of Kubernetes' {@code IsQualifiedName},
 * {@code IsValidLabelValue} and {@code IsDNS1123Subdomain}), used for taint and toleration keys and
 * values (domain reference §4) and label selectors. Each method returns every problem as a short
 * message; empty means valid.
 */
public final class LabelSyntax {
  /** Longest name part of a qualified name, and longest label value. */
  public static final int MAX_NAME_LENGTH = 63;

  /** Longest DNS-1123 subdomain, e.g. the prefix of a qualified name. */
  public static final int MAX_SUBDOMAIN_LENGTH = 253;

  /** Longest RFC 1123 or RFC 1035 label Kubernetes accepts: 63 characters. */
  public static final int MAX_LABEL_LENGTH = 63;

  private static final Pattern NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final String NAME_CHARACTERS =
      "must consist of alphanumeric characters, '-', '_' or '.',"
          + " and must start and end with an alphanumeric character";

  private LabelSyntax() {}

  /**
   * @param value a label key, taint key or toleration key
   * @return why {@code value} is not {@code [prefix/]name}: an optional DNS-1123 subdomain prefix
   *     of at most 253 characters and {@code /}, then a name of 1 to 63 characters matching {@code
   *     ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]}; empty when it is
   */
  public static List<String> qualifiedNameErrors(String value) {
    List<String> errors = new ArrayList<>();
    String[] parts = value.split("/", -1);
    if (parts.length > 2) {
      errors.add(
          "a qualified name is a name with an optional DNS subdomain prefix and one '/'"
              + " (e.g. 'example.com/MyName'), not more than one '/'");
      return errors;
    }
    if (parts.length == 2) {
      if (parts[0].isEmpty()) {
        errors.add("prefix part must not be empty");
      } else {
        dns1123SubdomainErrors(parts[0]).forEach(e -> errors.add("prefix part " + e));
      }
    }
    String name = parts[parts.length - 1];
    if (name.isEmpty()) {
      errors.add("name part must not be empty");
      return errors;
    }
    if (name.length() > MAX_NAME_LENGTH) {
      errors.add("name part must be no more than " + MAX_NAME_LENGTH + " characters");
    }
    if (!NAME.matcher(name).matches()) {
      errors.add("name part " + NAME_CHARACTERS + " (e.g. 'MyName', 'my.name' or '123-abc')");
    }
    return errors;
  }

  /**
   * @param value a label value, taint value or toleration value
   * @return why it is not a label value (empty, or at most 63 characters matching {@code
   *     ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]}); empty when it is
   */
  public static List<String> labelValueErrors(String value) {
    List<String> errors = new ArrayList<>();
    if (value.length() > MAX_NAME_LENGTH) {
      errors.add("must be no more than " + MAX_NAME_LENGTH + " characters");
    }
    if (!value.isEmpty() && !NAME.matcher(value).matches()) {
      errors.add(
          "a label value must be empty or consist of alphanumeric characters, '-', '_' or '.',"
              + " and must start and end with an alphanumeric character (e.g. 'MyValue', 'my_value' or '12345')");
    }
    return errors;
  }

  /**
   * @param value e.g. {@code example.com}
   * @return why it is not a lowercase RFC 1123 subdomain of at most 253 characters; empty when it
   *     is
   */
  public static List<String> dns1123SubdomainErrors(String value) {
    List<String> errors = new ArrayList<>();
    if (value.length() > MAX_SUBDOMAIN_LENGTH) {
      errors.add("must be no more than " + MAX_SUBDOMAIN_LENGTH + " characters");
    }
    if (!isDns1123Subdomain(value)) {
      errors.add(
          "must be a lowercase RFC 1123 subdomain: lowercase alphanumeric characters, '-' or '.',"
              + " starting and ending with an alphanumeric character (e.g. 'example.com')");
    }
    return errors;
  }

  /**
   * Kubernetes' {@code IsDNS1123Label} (the rule of a namespace's name, {@code
   * ValidateNamespaceName}).
   *
   * @param value e.g. {@code ironcore-maintenance-system}
   * @return why it is not a lowercase RFC 1123 label of at most 63 characters; empty when it is
   */
  public static List<String> dns1123LabelErrors(String value) {
    List<String> errors = new ArrayList<>();
    if (value.length() > MAX_LABEL_LENGTH) {
      errors.add("must be no more than " + MAX_LABEL_LENGTH + " characters");
    }
    if (value.indexOf('.') >= 0 || !isDns1123Subdomain(value)) {
      errors.add(
          "must be a lowercase RFC 1123 label: lowercase alphanumeric characters or '-',"
              + " starting and ending with an alphanumeric character (e.g. 'my-name')");
    }
    return errors;
  }

  /**
   * Kubernetes' {@code IsDNS1035Label} (the rule of a Service's name, {@code ValidateServiceName}).
   *
   * @param value e.g. {@code ironcore-maintenance-webhook}
   * @return why it is not a lowercase RFC 1035 label of at most 63 characters; empty when it is
   */
  public static List<String> dns1035LabelErrors(String value) {
    List<String> errors = new ArrayList<>();
    if (value.length() > MAX_LABEL_LENGTH) {
      errors.add("must be no more than " + MAX_LABEL_LENGTH + " characters");
    }
    if (value.isEmpty()
        || value.charAt(0) < 'a'
        || value.charAt(0) > 'z'
        || value.indexOf('.') >= 0
        || !isDns1123Subdomain(value)) {
      errors.add(
          "must be a lowercase RFC 1035 label: lowercase alphanumeric characters or '-',"
              + " starting with a letter and ending with an alphanumeric character (e.g."
              + " 'my-name')");
    }
    return errors;
  }

  /**
   * Whether {@code value} matches {@code
   * [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*} (Kubernetes' {@code
   * dns1123SubdomainFmt}), ignoring its length. A loop, not {@link Pattern}: Java's regex engine
   * recurses once per repeated group, so a prefix of 300,000 labels ({@code a.a.a...}) overflowed a
   * thread's stack and the request was never answered, and one of 100,000 added about 59 MiB of
   * resident memory per request (Go's regexp, which Kubernetes uses, runs in linear time without
   * recursion).
   */
  static boolean isDns1123Subdomain(String value) {
    int labelStart = 0;
    for (int i = 0; i <= value.length(); i++) {
      if (i == value.length() || value.charAt(i) == '.') {
        if (i == labelStart
            || !lowerAlphanumeric(value.charAt(labelStart))
            || !lowerAlphanumeric(value.charAt(i - 1))) {
          return false;
        }
        labelStart = i + 1;
      } else if (!lowerAlphanumeric(value.charAt(i)) && value.charAt(i) != '-') {
        return false;
      }
    }
    return true;
  }

  private static boolean lowerAlphanumeric(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }

  /**
   * @return whether {@code value} is a qualified name
   */
  public static boolean isQualifiedName(String value) {
    return qualifiedNameErrors(value).isEmpty();
  }

  /**
   * @return whether {@code value} is a label value
   */
  public static boolean isLabelValue(String value) {
    return labelValueErrors(value).isEmpty();
  }
}
