package dev.ironcore.maintenance.server.warning;

import dev.ironcore.maintenance.api.compute.Machine;
import dev.ironcore.maintenance.api.compute.MachinePool;
import dev.ironcore.maintenance.api.compute.Taint;
import dev.ironcore.maintenance.api.compute.TaintEffect;
import dev.ironcore.maintenance.api.compute.TimeAdded;
import dev.ironcore.maintenance.api.compute.Tolerations;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which warnings a MachinePool change deserves (pure): for every {@code NoExecute} taint the change
 * adds (key, value and effect not on the old pool), how many bound Machines not yet deleting do not
 * tolerate it, as IronCore's eviction will then delete them (IEP-21), and how many tolerate it only
 * for their {@code tolerationSeconds} (our v1alpha2; the first matching toleration counts, as for
 * pods), which the eviction deletes once those have passed.
 */
public final class EvictionWarnings {
  private EvictionWarnings() {}

  /**
   * Most warnings about taints: 16 (the API server shows every warning to the user); the new
   * NoExecute taints after them are counted in one more line, not checked (each is checked against
   * every bound Machine's tolerations).
   */
  static final int MAX_WARNINGS = 16;

  /**
   * @return whether {@code updated} carries a {@code NoExecute} taint (key, value, effect) that
   *     {@code old} (null on CREATE) does not: only then can {@link #of} warn, so only then are the
   *     bound Machines read
   */
  public static boolean addsNoExecute(MachinePool old, MachinePool updated) {
    Set<dev.ironcore.maintenance.api.json.HashKey.Strings> before = new HashSet<>();
    taints(old)
        .forEach(
            b -> before.add(new dev.ironcore.maintenance.api.json.HashKey.Strings(identity(b))));
    for (Taint t : taints(updated)) {
      if (t != null
          && TaintEffect.NO_EXECUTE.equals(t.getEffect())
          && !before.contains(new dev.ironcore.maintenance.api.json.HashKey.Strings(identity(t)))) {
        return true;
      }
    }
    return false;
  }

  /**
   * @param old the pool before (null on CREATE)
   * @param updated the pool after
   * @param bound the Machines bound to the pool
   * @param now the time of the write: {@code tolerationSeconds} count from a taint's {@code
   *     timeAdded} where it is earlier (IronCore IEP-21, as the eviction loop counts them)
   * @return e.g. {@code 2 bound Machines do not tolerate maintenance.ironcore.dev=x:NoExecute and
   *     will be evicted} ({@code tolerates ... for 0 s (tolerationSeconds 0 or less) and will be
   *     evicted} for Machines tolerating it for no time) and {@code 1 bound Machine tolerates
   *     k:NoExecute for 30 s only (tolerationSeconds) and will be evicted then} (the seconds left
   *     since {@code timeAdded}), or {@code ... tolerates k:NoExecute for less than the 600 s since
   *     its timeAdded (tolerationSeconds) and will be evicted now}; a {@code timeAdded} ahead of
   *     {@code now} adds its distance to every toleration's seconds, as the eviction loop waits for
   *     it ({@code ... for 130 to 700 s only (tolerationSeconds, counted from its timeAdded 100 s
   *     from now) ...}); at most three per added taint, none for a taint that evicts no Machine
   */
  public static List<String> of(
      MachinePool old, MachinePool updated, List<Machine> bound, Instant now) {
    Set<dev.ironcore.maintenance.api.json.HashKey.Strings> before = new HashSet<>();
    taints(old)
        .forEach(
            b -> before.add(new dev.ironcore.maintenance.api.json.HashKey.Strings(identity(b))));
    List<String> warnings = new ArrayList<>();
    long unchecked = 0;
    for (Taint t : taints(updated)) {
      if (t == null
          || !TaintEffect.NO_EXECUTE.equals(t.getEffect())
          || before.contains(new dev.ironcore.maintenance.api.json.HashKey.Strings(identity(t)))) {
        continue;
      }
      if (warnings.size() >= MAX_WARNINGS) {
        unchecked++;
        continue;
      }
      // tolerationSeconds count from the taint's timeAdded (IronCore IEP-21, as the eviction
      // loop counts them): a taint written with an earlier timeAdded has used some up already
      Instant added = TimeAdded.parse(t.getTimeAdded());
      // negative for a timeAdded ahead (fresh eyes: announced as "for 30 s" while the eviction
      // loop waits for timeAdded first)
      long elapsed = added == null ? 0 : Duration.between(added, now).toSeconds();
      if (Math.abs(elapsed) <= 1) {
        // timeAdded has second precision and our mutating webhook stamps it in this very write:
        // a second boundary between the two webhooks' calls made "for 29 s" of a 30 s toleration
        // now and then (a flaky E2E test); a warning need not be that exact
        elapsed = 0;
      }
      long evictedNow = 0;
      long forNoTime = 0;
      long shortest = Long.MAX_VALUE;
      long longest = 0;
      long later = 0;
      long elapsedAlready = 0;
      for (Machine m : bound) {
        if (m.getMetadata() != null && m.getMetadata().getDeletionTimestamp() != null) {
          continue;
        }
        Long seconds =
            Tolerations.secondsTolerated(
                t, m.getSpec() == null ? null : m.getSpec().getTolerations());
        if (seconds != null && seconds == Tolerations.FOREVER) {
          continue; // tolerated for good
        }
        if (seconds == null || seconds <= 0) {
          // not tolerated, or for no time at all: evicted at once, also under a timeAdded ahead
          // (as the eviction loop and Kubernetes' taint eviction do; fresh eyes, session 40: "for
          // 60 s only ... evicted then" was said while the loop evicted them that second)
          evictedNow++;
          if (seconds != null) {
            forNoTime++;
          }
        } else {
          long tolerated = Math.max(seconds, 0);
          // saturating: tolerationSeconds may be up to 2^63-1, elapsed negative
          long left =
              elapsed < 0 && tolerated > Long.MAX_VALUE + elapsed
                  ? Long.MAX_VALUE
                  : tolerated - elapsed;
          if (left <= 0) {
            elapsedAlready++;
          } else {
            later++;
            shortest = Math.min(shortest, left);
            longest = Math.max(longest, left);
          }
        }
      }
      if (evictedNow > 0) {
        // fresh eyes (session 40): a Machine tolerating the taint for 0 s was said not to tolerate
        String machines = evictedNow == 1 ? "1 bound Machine " : evictedNow + " bound Machines ";
        String zero = "for 0 s (tolerationSeconds 0 or less)";
        if (forNoTime == 0) {
          machines += (evictedNow == 1 ? "does not tolerate " : "do not tolerate ") + describe(t);
        } else if (forNoTime == evictedNow) {
          machines += (evictedNow == 1 ? "tolerates " : "tolerate ") + describe(t) + " " + zero;
        } else {
          machines +=
              "do not tolerate "
                  + describe(t)
                  + " or tolerate it "
                  + zero.replace(")", ": " + forNoTime + " of them)");
        }
        warnings.add(machines + " and will be evicted");
      }
      if (elapsedAlready > 0) {
        warnings.add(
            (elapsedAlready == 1
                    ? "1 bound Machine tolerates "
                    : elapsedAlready + " bound Machines tolerate ")
                + describe(t)
                + " for less than the "
                + elapsed
                + " s since its timeAdded (tolerationSeconds) and will be evicted now");
      }
      if (later > 0) {
        warnings.add(
            (later == 1 ? "1 bound Machine tolerates " : later + " bound Machines tolerate ")
                + describe(t)
                + " for "
                + (shortest == longest ? shortest + " s" : shortest + " to " + longest + " s")
                + " only (tolerationSeconds"
                + (elapsed < 0 ? ", counted from its timeAdded " + -elapsed + " s from now" : "")
                + ") and will be evicted then");
      }
    }
    if (unchecked > 0) {
      warnings.add(
          unchecked
              + " more added NoExecute taints were not checked for evictions (at most "
              + MAX_WARNINGS
              + " warnings)");
    }
    return warnings;
  }

  /** {@code key=value:Effect}, or {@code key:Effect} without a value (as kubectl writes taints). */
  static String describe(Taint t) {
    String value = t.getValue() == null || t.getValue().isEmpty() ? "" : "=" + t.getValue();
    return t.getKey() + value + ":" + t.getEffect();
  }

  /** Key, value ({@code ""} when absent) and effect: what makes two taints the same one. */
  private static List<String> identity(Taint t) {
    return t == null
        ? List.of()
        : Arrays.asList(t.getKey(), emptyIfNull(t.getValue()), t.getEffect());
  }

  private static String emptyIfNull(String s) {
    return s == null ? "" : s;
  }

  private static List<Taint> taints(MachinePool p) {
    return p == null || p.getSpec() == null ? List.of() : p.getSpec().taintsOrEmpty();
  }
}
