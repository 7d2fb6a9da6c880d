package dev.ironcore.maintenance.api.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;

/** Compares field errors with expected beginnings of their {@code toString()}. */
final class ErrorAssertions {
  private ErrorAssertions() {}

  /**
   * @param errors what a validator returned
   * @param expected {@code ;;}-separated beginnings, in order; empty for none
   */
  static void assertErrors(List<FieldError> errors, String expected) {
    List<String> wanted =
        expected.isBlank()
            ? List.of()
            : Arrays.stream(expected.split(";;")).map(String::strip).toList();
    List<String> actual = errors.stream().map(FieldError::toString).toList();
    assertThat(actual).as("errors").hasSize(wanted.size());
    for (int i = 0; i < wanted.size(); i++) {
      assertThat(actual.get(i)).as("error %d of %s", i, actual).startsWith(wanted.get(i));
    }
  }
}
