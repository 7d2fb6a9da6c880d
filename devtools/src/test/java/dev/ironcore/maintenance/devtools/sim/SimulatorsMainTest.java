package dev.ironcore.maintenance.devtools.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.process.Cli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SimulatorsMainTest {

  @Test
  void theFlagsMakeRunGivesParse() {
    SimulatorsMain main = new SimulatorsMain();
    new CommandLine(main)
        .parseArgs("--simulate-poollet", "--simulate-capi", "--poollet-shutdown-delay=5s");
    assertThat(main.simulatePoollet).isTrue();
    assertThat(main.simulateCapi).isTrue();
    assertThat(main.poolletShutdownDelay).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void simulatorArgsOverrideTheFlagsMakeRunGives() {
    SimulatorsMain main = new SimulatorsMain();
    Cli.of(main)
        .parseArgs(
            "--simulate-poollet",
            "--simulate-capi",
            "--poollet-shutdown-delay=2s",
            "--simulate-poollet",
            "--poollet-shutdown-delay=5s");
    assertThat(main.simulatePoollet).isTrue();
    assertThat(main.poolletShutdownDelay).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void zeroIntervalsAreOneLineFlagErrors() {
    StringWriter err = new StringWriter();
    int code =
        Cli.of(new SimulatorsMain())
            .setErr(new PrintWriter(err, true))
            .execute("--simulate-poollet", "--poollet-renew-interval=0");
    assertThat(code).isEqualTo(2);
    assertThat(err.toString())
        .isEqualTo(
            "ironcore-maintenance-simulators: --poollet-renew-interval must be more than 0,"
                + " got 0s\n");
    StringWriter lease = new StringWriter();
    assertThat(
            Cli.of(new SimulatorsMain())
                .setErr(new PrintWriter(lease, true))
                .execute("--simulate-poollet", "--poollet-lease-duration=500ms"))
        .isEqualTo(2);
    assertThat(lease.toString()).contains("--poollet-lease-duration must be at least 1s");
  }

  @Test
  void nothingToSimulateIsAUsageError() {
    StringWriter err = new StringWriter();
    int code = new CommandLine(new SimulatorsMain()).setErr(new PrintWriter(err)).execute();
    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains("nothing to simulate");
  }

  @Test
  void validateFlagsChecksTheFlagsAndStartsNothing() {
    StringWriter err = new StringWriter();
    assertThat(
            Cli.of(new SimulatorsMain())
                .setErr(new PrintWriter(err, true))
                .execute(
                    "--simulate-poollet",
                    "--simulate-capi",
                    "--poollet-shutdown-delay=5s",
                    "--validate-flags"))
        .as("accepted flags: exit 0 at once, no cluster asked (%s)", err)
        .isZero();
    StringWriter bad = new StringWriter();
    assertThat(
            Cli.of(new SimulatorsMain())
                .setErr(new PrintWriter(bad, true))
                .execute("--simulate-poollet", "--poollet-shutdown-delay=soon", "--validate-flags"))
        .isEqualTo(2);
    assertThat(bad.toString()).contains("--poollet-shutdown-delay");
  }
}
