package dev.ironcore.maintenance.image;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.process.VersionInfo;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import picocli.CommandLine;

/**
 * The shipped Deployments start exactly what the image holds: their {@code command} is the Jib
 * entrypoint's {@code java} (the image's own runtime at /opt/java) and classpath argfile (read from
 * this module's {@code pom.xml}; it names every jar of the image's runtime classpath) with a main
 * class that is on that classpath; their {@code args} parse with that class's real flag parser; the
 * image runs as the non-root user the pods require; its labels name the version and the full git
 * commit; and no simulator, demo or test tool is on the image's classpath.
 */
class ImageContentsTest {
  private static final Map<String, String> MAINS =
      Map.of(
          "controller_deployment.yaml", "dev.ironcore.maintenance.controller.ControllerMain",
          "webhook_deployment.yaml", "dev.ironcore.maintenance.server.WebhookServerMain");

  private static Element jibContainer() throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    Document pom = factory.newDocumentBuilder().parse(new File("pom.xml"));
    NodeList plugins = pom.getElementsByTagName("plugin");
    for (int i = 0; i < plugins.getLength(); i++) {
      Element plugin = (Element) plugins.item(i);
      if (text(plugin, "artifactId").equals("jib-maven-plugin")) {
        return (Element) plugin.getElementsByTagName("container").item(0);
      }
    }
    throw new AssertionError("no jib-maven-plugin in image/pom.xml");
  }

  private static String text(Element parent, String tag) {
    return parent.getElementsByTagName(tag).item(0).getTextContent().trim();
  }

  private static List<String> entrypoint() throws Exception {
    Element ep = (Element) jibContainer().getElementsByTagName("entrypoint").item(0);
    List<String> args = new ArrayList<>();
    NodeList list = ep.getElementsByTagName("arg");
    for (int i = 0; i < list.getLength(); i++) {
      args.add(list.item(i).getTextContent().trim());
    }
    return args;
  }

  /** Class files on the image's runtime classpath (written by Maven at build time). */
  private static List<String> imageClasses() throws IOException {
    List<String> classes = new ArrayList<>();
    String listing = Files.readString(Path.of("target", "image-classpath.txt")).trim();
    for (String entry : listing.split(File.pathSeparator)) {
      Path p = Path.of(entry);
      if (Files.isDirectory(p)) {
        try (Stream<Path> files = Files.walk(p)) {
          files
              .filter(f -> f.toString().endsWith(".class"))
              .forEach(f -> classes.add(p.relativize(f).toString().replace('\\', '/')));
        }
      } else if (entry.endsWith(".jar")) {
        try (JarFile jar = new JarFile(p.toFile())) {
          jar.stream()
              .map(e -> e.getName())
              .filter(n -> n.endsWith(".class"))
              .forEach(classes::add);
        }
      }
    }
    return classes;
  }

  /** Jib's extra directories: build directory (relative to the module) to path in the image. */
  private static Map<String, String> extraDirectories() throws Exception {
    Element extra = (Element) jibContainer().getParentNode();
    NodeList paths =
        ((Element) extra.getElementsByTagName("extraDirectories").item(0))
            .getElementsByTagName("path");
    Map<String, String> out = new java.util.LinkedHashMap<>();
    for (int i = 0; i < paths.getLength(); i++) {
      Element path = (Element) paths.item(i);
      out.put(
          text(path, "from").replace("${project.build.directory}", "target"), text(path, "into"));
    }
    return out;
  }

  @Test
  void theDeploymentsStartTheImagesJavaWithItsClasspathAndARealMainClass() throws Exception {
    List<String> entrypoint = entrypoint();
    assertThat(entrypoint).hasSize(3);
    String appRoot = text(jibContainer(), "appRoot");
    Map<String, String> extra = extraDirectories();
    assertThat(extra)
        .as("the runtime and the argfile/AOT cache that hack/java-runtime.sh writes")
        .containsEntry("target/jvm/runtime", "/opt/java")
        .containsEntry("target/jvm/app", appRoot + "/jvm");
    assertThat(entrypoint.subList(0, 2))
        .isEqualTo(List.of("/opt/java/bin/java", "@" + appRoot + "/jvm/classpath"));
    assertThat(Path.of("target/jvm/runtime/bin/java")).isExecutable();
    // the argfile names exactly the jars Jib puts into appRoot/libs, in the classpath's order
    List<String> jars = new ArrayList<>();
    for (String entry :
        Files.readString(Path.of("target", "image-classpath.txt"))
            .trim()
            .split(File.pathSeparator)) {
      jars.add(appRoot + "/libs/" + Path.of(entry).getFileName());
    }
    assertThat(Files.readString(Path.of("target/jvm/app/classpath")).trim())
        .isEqualTo("-cp " + String.join(":", jars));
    List<String> classes = imageClasses();
    for (var e : MAINS.entrySet()) {
      Container c =
          ShippedContainer.deployment(e.getKey())
              .getSpec()
              .getTemplate()
              .getSpec()
              .getContainers()
              .get(0);
      assertThat(c.getCommand()).as(e.getKey()).hasSize(3);
      assertThat(c.getCommand().subList(0, 2)).isEqualTo(entrypoint.subList(0, 2));
      assertThat(c.getCommand().get(2)).isEqualTo(e.getValue());
      assertThat(classes).contains(e.getValue().replace('.', '/') + ".class");
      Object main = Class.forName(e.getValue()).getDeclaredConstructor().newInstance();
      new CommandLine(main).parseArgs(c.getArgs().toArray(String[]::new));
      // each process starts from its own AOT cache, which the build wrote where Jib takes /app/jvm
      String aot = ShippedContainer.of(e.getKey(), Path.of("target", "jvm")).javaToolOptions();
      java.util.regex.Matcher cache =
          java.util.regex.Pattern.compile("-XX:AOTCache=(\\S+)").matcher(aot);
      assertThat(cache.find()).as(e.getKey() + " names its AOT cache").isTrue();
      assertThat(Path.of(cache.group(1))).as(e.getKey()).isRegularFile();
    }
    assertThat(
            ShippedContainer.deployment("controller_deployment.yaml")
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .getCommand())
        .as("the controller Deployment runs the image's own entrypoint")
        .isEqualTo(entrypoint);
  }

  /**
   * The image's OCI labels name its version and the full commit it was built from, the one whose
   * abbreviation {@code --version} prints; {@code image.revision} is what {@code ${git.commit.id}}
   * is in this module's build (surefire, image/pom.xml).
   */
  @Test
  void theImageIsLabelledWithItsVersionAndTheFullCommitThatVersionNames() throws Exception {
    Map<String, String> labels = new java.util.LinkedHashMap<>();
    NodeList list =
        ((Element) jibContainer().getElementsByTagName("labels").item(0)).getChildNodes();
    for (int i = 0; i < list.getLength(); i++) {
      if (list.item(i) instanceof Element label) {
        labels.put(label.getTagName(), label.getTextContent().trim());
      }
    }
    assertThat(labels)
        .containsEntry("org.opencontainers.image.version", "${project.version}")
        .containsEntry("org.opencontainers.image.revision", "${git.commit.id}");
    String revision = System.getProperty("image.revision");
    String commit = VersionInfo.current().commit().replaceFirst("-dirty$", "");
    if (commit.equals("unknown")) { // a source tree without .git
      assertThat(revision).isEqualTo("unknown");
    } else {
      assertThat(revision).matches("[0-9a-f]{40}").startsWith(commit);
    }
  }

  @Test
  void theImageRunsAsTheNonRootUserThePodsRequire() throws Exception {
    int user = Integer.parseInt(text(jibContainer(), "user"));
    assertThat(user).isPositive();
    for (String file : MAINS.keySet()) {
      PodSpec pod = ShippedContainer.deployment(file).getSpec().getTemplate().getSpec();
      assertThat(pod.getSecurityContext().getRunAsNonRoot()).as(file).isTrue();
      assertThat(pod.getContainers().get(0).getImage()).startsWith("ironcore-maintenance");
    }
  }

  @Test
  void noSimulatorDemoOrTestToolIsInTheImage() throws Exception {
    List<String> classes = imageClasses();
    assertThat(classes)
        .contains(
            "dev/ironcore/maintenance/controller/ControllerMain.class",
            "dev/ironcore/maintenance/server/WebhookServerMain.class",
            "ch/qos/logback/classic/Logger.class");
    assertThat(classes)
        .noneMatch(c -> c.startsWith("dev/ironcore/maintenance/devtools/"))
        .noneMatch(c -> c.startsWith("dev/ironcore/maintenance/testkit/"))
        .noneMatch(c -> c.endsWith("/PoolletSimulator.class") || c.endsWith("/CapiStandIn.class"))
        .noneMatch(c -> c.startsWith("org/junit/") || c.startsWith("org/testcontainers/"));
  }
}
