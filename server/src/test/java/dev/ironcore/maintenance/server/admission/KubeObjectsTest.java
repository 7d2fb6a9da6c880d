package dev.ironcore.maintenance.server.admission;

import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KubeObjectsTest {

  /** Set = present and not null, whatever the type (as CEL's has() in the match condition). */
  @ParameterizedTest(name = "{0} -> deleting={1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "{'metadata':{'deletionTimestamp':'2026-01-01T00:00:00Z'}} | true",
        "{'metadata':{'deletionTimestamp':12345}}                   | true",
        "{'metadata':{'deletionTimestamp':{'seconds':1}}}           | true",
        "{'metadata':{'deletionTimestamp':''}}                      | true",
        "{'metadata':{'deletionTimestamp':false}}                   | true",
        "{'metadata':{'deletionTimestamp':null}}                    | false",
        "{'metadata':{}}                                            | false",
        "{}                                                         | false",
      })
  void deletionTimestampOfAnyTypeMeansDeleting(String object, boolean deleting) {
    assertThat(KubeObjects.isDeleting(json(object))).isEqualTo(deleting);
  }

  @Test
  void nullObjectIsNotDeleting() {
    assertThat(KubeObjects.isDeleting(null)).isFalse();
  }
}
