package dev.ironcore.maintenance.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs {@code h2load} (Debian package nghttp2-client) with a POSTed AdmissionReview and reads its
 * summary: requests succeeded/failed, status classes, and the throughput it reports.
 */
final class H2load {
  private static final Pattern FINISHED =
      Pattern.compile("finished in ([0-9.]+)(m?s), ([0-9.]+) req/s");
  private static final Pattern REQUESTS =
      Pattern.compile(
          "requests: (\\d+) total, (\\d+) started, (\\d+) done, (\\d+) succeeded, (\\d+) failed");
  private static final Pattern STATUS =
      Pattern.compile("status codes: (\\d+) 2xx, (\\d+) 3xx, (\\d+) 4xx, (\\d+) 5xx");

  /**
   * One h2load run's summary.
   *
   * @param succeeded requests answered (any status)
   * @param failed requests that got no answer
   * @param ok2xx answers with a 2xx status
   * @param errors answers with a 3xx, 4xx or 5xx status
   * @param reqPerSec h2load's throughput over the measured time
   * @param seconds measured time
   * @param latencies per-request latencies when a log file was asked for, else null
   */
  record Result(
      long succeeded,
      long failed,
      long ok2xx,
      long errors,
      double reqPerSec,
      double seconds,
      Latencies latencies) {}

  private H2load() {}

  /** True when {@code h2load} can be started. */
  static boolean available() {
    try {
      Process p = new ProcessBuilder("h2load", "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * @param url e.g. {@code https://127.0.0.1:21201/mutate/capi-machine}
   * @param body file with the AdmissionReview to POST
   * @param http1 true for HTTP/1.1 keep-alive, false for HTTP/2
   * @param load h2load's load options, e.g. {@code -n 10000 -c 4 -m 16}
   * @param logFile where h2load writes per-request lines, or null
   * @param output where h2load's own output is kept
   */
  static Result run(
      String url, Path body, boolean http1, List<String> load, Path logFile, Path output) {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "h2load",
                "-t",
                "1",
                "-d",
                body.toString(),
                "-H",
                "content-type: application/json"));
    if (http1) {
      cmd.add("--h1");
    }
    cmd.addAll(load);
    if (logFile != null) {
      cmd.add("--log-file=" + logFile);
    }
    cmd.add(url);
    String text;
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      text = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      p.waitFor();
      Files.writeString(output, String.join(" ", cmd) + "\n" + text);
    } catch (IOException e) {
      throw new UncheckedIOException("h2load failed: " + cmd, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    Matcher fin = FINISHED.matcher(text);
    Matcher req = REQUESTS.matcher(text);
    Matcher st = STATUS.matcher(text);
    if (!fin.find() || !req.find() || !st.find()) {
      throw new IllegalStateException("unexpected h2load output (" + output + "):\n" + text);
    }
    double seconds = Double.parseDouble(fin.group(1)) / ("ms".equals(fin.group(2)) ? 1000 : 1);
    return new Result(
        Long.parseLong(req.group(4)),
        Long.parseLong(req.group(5)),
        Long.parseLong(st.group(1)),
        Long.parseLong(st.group(2)) + Long.parseLong(st.group(3)) + Long.parseLong(st.group(4)),
        Double.parseDouble(fin.group(3)),
        seconds,
        logFile == null ? null : Latencies.read(logFile));
  }
}
