package dev.ironcore.maintenance.api.validation;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LabelSyntaxTest {
  private static final String N63 = "n".repeat(63);

  @ParameterizedTest(name = "\"{0}\" -> {1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "maintenance.ironcore.dev                  | ''",
        "maintenance.ironcore.dev/drain            | ''",
        "MyName                                    | ''",
        "my.name_x-1                               | ''",
        "a                                         | ''",
        "example.com/A.b                           | ''",
        "Bad Key!                                  | name part must consist of alphanumeric characters",
        "-a                                        | name part must consist",
        "a-                                        | name part must consist",
        "''                                        | name part must not be empty",
        "example.com/                              | name part must not be empty",
        "/name                                     | prefix part must not be empty",
        "Example.com/name                          | prefix part must be a lowercase RFC 1123 subdomain",
        "ex_ample.com/name                         | prefix part must be a lowercase RFC 1123 subdomain",
        "a/b/c                                     | a qualified name is a name with an optional",
      })
  void qualifiedNames(String value, String firstError) {
    if (firstError.equals("''")) {
      assertThat(LabelSyntax.qualifiedNameErrors(value.equals("''") ? "" : value)).isEmpty();
    } else {
      assertThat(LabelSyntax.qualifiedNameErrors(value.equals("''") ? "" : value))
          .isNotEmpty()
          .first()
          .asString()
          .startsWith(firstError);
    }
  }

  @Test
  void lengthLimits() {
    assertThat(LabelSyntax.isQualifiedName(N63)).isTrue();
    assertThat(LabelSyntax.qualifiedNameErrors(N63 + "n"))
        .containsExactly("name part must be no more than 63 characters");
    String prefix253 = ("a".repeat(63) + ".").repeat(3) + "a".repeat(61);
    assertThat(prefix253).hasSize(253);
    assertThat(LabelSyntax.isQualifiedName(prefix253 + "/n")).isTrue();
    assertThat(LabelSyntax.qualifiedNameErrors(prefix253 + "a/n"))
        .containsExactly("prefix part must be no more than 253 characters");
    assertThat(LabelSyntax.qualifiedNameErrors("-" + N63 + "/" + N63 + "-")).hasSize(3);
    assertThat(LabelSyntax.isLabelValue(N63)).isTrue();
    assertThat(LabelSyntax.labelValueErrors(N63 + "n"))
        .containsExactly("must be no more than 63 characters");
  }

  @ParameterizedTest(name = "\"{0}\" valid={1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "''         | true",
        "v          | true",
        "My_Value.1 | true",
        "12345      | true",
        "-v         | false",
        "v.         | false",
        "a b        | false",
        "a/b        | false",
      })
  void labelValues(String value, boolean valid) {
    assertThat(LabelSyntax.isLabelValue(value.equals("''") ? "" : value)).isEqualTo(valid);
  }

  /** Kubernetes' IsDNS1123Label (namespaces) and IsDNS1035Label (Services). */
  @Test
  void labels() {
    assertThat(LabelSyntax.dns1123LabelErrors("ironcore-maintenance-system")).isEmpty();
    assertThat(LabelSyntax.dns1123LabelErrors("1abc")).isEmpty();
    assertThat(LabelSyntax.dns1123LabelErrors(N63)).isEmpty();
    assertThat(LabelSyntax.dns1123LabelErrors(N63 + "n"))
        .containsExactly("must be no more than 63 characters");
    for (String bad : new String[] {"", "a.b", "A", "a_b", "-a", "a-"}) {
      assertThat(LabelSyntax.dns1123LabelErrors(bad))
          .as(bad)
          .singleElement()
          .asString()
          .startsWith("must be a lowercase RFC 1123 label");
    }
    assertThat(LabelSyntax.dns1035LabelErrors("webhook-1")).isEmpty();
    assertThat(LabelSyntax.dns1035LabelErrors(N63)).isEmpty();
    for (String bad : new String[] {"", "1abc", "a.b", "My_Svc", "a-"}) {
      assertThat(LabelSyntax.dns1035LabelErrors(bad))
          .as(bad)
          .singleElement()
          .asString()
          .startsWith("must be a lowercase RFC 1035 label");
    }
  }
}
