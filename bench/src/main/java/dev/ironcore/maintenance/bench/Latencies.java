package dev.ironcore.maintenance.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Per-request latencies from an h2load {@code --log-file} (one line per request: start time in µs
 * since the epoch, HTTP status, duration in µs), as exact order statistics, never means.
 *
 * @param micros sorted durations in µs of the requests answered with 2xx
 * @param non2xx requests without a 2xx status (cut off at the end of a timed run), not in {@code
 *     micros}
 */
record Latencies(long[] micros, int non2xx) {

  static Latencies read(Path logFile) {
    List<String> lines;
    try {
      lines = Files.readAllLines(logFile);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    long[] micros = new long[lines.size()];
    int n = 0;
    int bad = 0;
    for (String line : lines) {
      String[] f = line.trim().split("\\s+");
      if (f.length < 3) {
        continue;
      }
      int status = Integer.parseInt(f[1]);
      if (status < 200 || status > 299) {
        bad++;
        continue;
      }
      micros[n++] = Long.parseLong(f[2]);
    }
    long[] sorted = Arrays.copyOf(micros, n);
    Arrays.sort(sorted);
    return new Latencies(sorted, bad);
  }

  int count() {
    return micros.length;
  }

  /**
   * @param q quantile in (0, 1], e.g. 0.99
   * @return the nearest-rank quantile in milliseconds; NaN without samples
   */
  double quantileMillis(double q) {
    if (micros.length == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(q * micros.length);
    return micros[Math.max(0, Math.min(micros.length, rank) - 1)] / 1000.0;
  }
}
