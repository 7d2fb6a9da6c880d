package dev.ironcore.maintenance.testkit;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A main class of ours as a separate OS process, on this JVM's java and class path (tests). */
public final class JavaMain {
  private JavaMain() {}

  /**
   * @param mainClass a class with {@code public static void main(String[])}
   * @param args its arguments
   * @return {@code java -cp <this class path> mainClass args...}, not started; its output and
   *     environment are the caller's to set
   */
  public static ProcessBuilder processBuilder(Class<?> mainClass, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(mainClass.getName());
    cmd.addAll(List.of(args));
    return new ProcessBuilder(cmd);
  }
}
