package dev.ironcore.maintenance.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.api.selector.LabelSelector;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code --capi-machine-selector} selects what {@code kubectl get -l} and the API server select
 * (apimachinery's {@code labels.Parse}), for the selectors whose reading is least obvious: an empty
 * value set {@code ()} is the set holding the empty value.
 */
class SelectorSyntaxApiServerTest {

  @Test
  void ourSelectorSelectsWhatKubectlAndTheApiServerSelect() {
    ControllerWorld world = new ControllerWorld();
    Map<String, Map<String, String>> objects = new LinkedHashMap<>();
    objects.put("none", Map.of());
    objects.put("empty", Map.of("a", ""));
    objects.put("x", Map.of("a", "x"));
    objects.put("empty-b", Map.of("a", "", "b", "1"));
    objects.put("y-b", Map.of("a", "y", "b", "2"));
    objects.forEach(
        (name, labels) ->
            world
                .client
                .configMaps()
                .inNamespace(world.ns)
                .resource(
                    new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withLabels(labels)
                        .endMetadata()
                        .build())
                .create());
    for (String selector :
        List.of(
            "a in ()",
            "a notin ()",
            "a in ( )",
            "a in (),b",
            "a notin (),!b",
            "a in (,x)",
            "a notin (x,)",
            "a=",
            "a!=")) {
      String listed =
          world
              .cp
              .kubectl("get", "configmaps", "-n", world.ns, "-l", selector, "-o", "name")
              .orThrow()
              .stdout();
      List<String> byApiServer =
          Arrays.stream(listed.split("\\R"))
              .filter(l -> !l.isBlank())
              .map(l -> l.substring("configmap/".length()))
              .filter(objects::containsKey) // kube-root-ca.crt
              .sorted()
              .toList();
      LabelSelector ours = LabelSelector.parse(selector);
      List<String> byUs =
          objects.entrySet().stream()
              .filter(e -> ours.test(e.getValue()))
              .map(Map.Entry::getKey)
              .sorted()
              .collect(Collectors.toList());
      assertThat(byUs).as(selector).isEqualTo(byApiServer);
      if (selector.equals("a in ()")) {
        assertThat(byApiServer).containsExactly("empty", "empty-b");
      }
      if (selector.equals("a notin ()")) {
        assertThat(byApiServer).containsExactly("none", "x", "y-b");
      }
    }
  }
}
