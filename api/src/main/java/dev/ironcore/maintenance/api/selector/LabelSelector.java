package dev.ironcore.maintenance.api.selector;

import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A label selector in kubectl's {@code -l} syntax, e.g. {@code a=b,c!=d,e,!f,g in (x,y)}: all
 * requirements must hold. The empty selector selects everything. Used for {@code
 * --capi-machine-selector} (domain reference §2).
 */
public final class LabelSelector implements Predicate<Map<String, String>> {
  private static final LabelSelector EVERYTHING = new LabelSelector(List.of());

  private final List<Requirement> requirements;

  private LabelSelector(List<Requirement> requirements) {
    this.requirements = List.copyOf(requirements);
  }

  /**
   * @return the selector that selects everything
   */
  public static LabelSelector everything() {
    return EVERYTHING;
  }

  /**
   * @return a selector requiring all of {@code requirements}
   */
  public static LabelSelector of(List<Requirement> requirements) {
    return requirements.isEmpty() ? EVERYTHING : new LabelSelector(requirements);
  }

  /**
   * @param text kubectl {@code -l} syntax; null or blank selects everything
   * @return the selector
   * @throws IllegalArgumentException with the position and reason when the text is not a valid
   *     selector
   */
  public static LabelSelector parse(String text) {
    return of(LabelSelectorParser.parse(text == null ? "" : text));
  }

  /**
   * @return the requirements, unmodifiable
   */
  public List<Requirement> requirements() {
    return requirements;
  }

  /**
   * @return true when this selects everything
   */
  public boolean isEmpty() {
    return requirements.isEmpty();
  }

  /**
   * @return whether {@code labels} satisfy every requirement
   */
  @Override
  public boolean test(Map<String, String> labels) {
    return requirements.stream().allMatch(r -> r.matches(labels));
  }

  /**
   * @return the selector in kubectl syntax ({@code ""} for everything)
   */
  @Override
  public String toString() {
    return requirements.stream().map(Requirement::toString).collect(Collectors.joining(","));
  }
}
