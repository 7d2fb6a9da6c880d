package dev.ironcore.maintenance.devtools.sim;

import static org.assertj.core.api.Assertions.assertThat;

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
  void nothingToSimulateIsAUsageError() {
    StringWriter err = new StringWriter();
    int code = new CommandLine(new SimulatorsMain()).setErr(new PrintWriter(err)).execute();
    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains("nothing to simulate");
  }
}
