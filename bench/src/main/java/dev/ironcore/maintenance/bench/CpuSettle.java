package dev.ironcore.maintenance.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Waits until the machine is quiet: the share of busy CPU time over all cores ({@code /proc/stat},
 * everything but idle and iowait) stays below a threshold for a number of consecutive 1 s windows.
 * The fleet bench starts the controller only then, so that its start is not measured against the
 * tail of the population (the API server and etcd absorbing 12,000 creations, the bench JVM's own
 * JIT compiler and informers), which is the bench's cost, not the controller's.
 */
final class CpuSettle {
  private CpuSettle() {}

  /**
   * @param busyBelow the share of all cores' time (0..1) under which a window counts as quiet
   * @param windows how many consecutive quiet 1 s windows are needed
   * @param max how long to wait at most
   * @return seconds waited; NaN when {@code /proc/stat} cannot be read (not Linux: no wait)
   */
  static double await(double busyBelow, int windows, Duration max) throws InterruptedException {
    long start = System.nanoTime();
    long[] prev = read();
    if (prev == null) {
      return Double.NaN;
    }
    int quiet = 0;
    while (quiet < windows && System.nanoTime() - start < max.toNanos()) {
      Thread.sleep(1000);
      long[] now = read();
      if (now == null) {
        return Double.NaN;
      }
      long total = now[0] - prev[0];
      long idle = now[1] - prev[1];
      double busy = total <= 0 ? 0 : 1.0 - (double) idle / total;
      quiet = busy < busyBelow ? quiet + 1 : 0;
      prev = now;
    }
    return (System.nanoTime() - start) / 1e9;
  }

  /** {total, idle + iowait} jiffies of the aggregate "cpu" line, or null. */
  private static long[] read() {
    try {
      String line = Files.readAllLines(Path.of("/proc/stat")).get(0);
      String[] f = line.trim().split("\\s+");
      long total = 0;
      for (int i = 1; i < f.length && i <= 8; i++) { // user..steal; guest is inside user
        total += Long.parseLong(f[i]);
      }
      return new long[] {total, Long.parseLong(f[4]) + Long.parseLong(f[5])};
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
