package dev.ironcore.maintenance.api.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.CharRange;
import net.jqwik.api.constraints.Chars;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

/**
 * {@link LabelSyntax#isDns1123Subdomain} is Kubernetes' {@code dns1123SubdomainFmt} as a loop: it
 * must agree with the regex on any string, and must not recurse on a long prefix.
 */
class Dns1123SubdomainPropertyTest {
  private static final Pattern KUBERNETES_FORMAT =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  @Property(tries = 3000)
  void agreesWithTheRegex(
      @ForAll
          @StringLength(max = 14)
          @Chars({'a', 'z', '0', '9', '-', '.', 'A', '_', '/'})
          @CharRange(from = 'b', to = 'c')
          String value) {
    assertThat(LabelSyntax.isDns1123Subdomain(value))
        .as("\"%s\"", value)
        .isEqualTo(KUBERNETES_FORMAT.matcher(value).matches());
  }

  /**
   * 300,000 labels overflowed the stack of a webhook thread with the regex (a fresh-eyes check).
   */
  @Test
  void aPrefixOfManyLabelsIsCheckedWithoutRecursion() {
    String prefix = "a.".repeat(300_000) + "a";
    assertThat(LabelSyntax.isDns1123Subdomain(prefix)).isTrue();
    assertThat(LabelSyntax.qualifiedNameErrors(prefix + "/b"))
        .containsExactly("prefix part must be no more than 253 characters");
  }
}
