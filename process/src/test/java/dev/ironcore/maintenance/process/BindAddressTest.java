package dev.ironcore.maintenance.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class BindAddressTest {
  @Test
  void acceptsControllerRuntimeNotation() {
    assertThat(BindAddress.parse("0")).isEmpty();
    assertThat(BindAddress.parse(":8081")).contains(new InetSocketAddress(8081));
    InetSocketAddress loopback = BindAddress.parse("127.0.0.1:0").orElseThrow();
    assertThat(loopback.isUnresolved()).isFalse();
    assertThat(loopback.getAddress().isLoopbackAddress()).isTrue();
    assertThat(BindAddress.parse("localhost:65535").orElseThrow().getPort()).isEqualTo(65535);
    assertThat(BindAddress.parse("[::1]:8080").orElseThrow().getAddress().isLoopbackAddress())
        .isTrue();
    assertThat(BindAddress.parse("0.0.0.0:8080").orElseThrow().getAddress().isAnyLocalAddress())
        .isTrue();
  }

  @Test
  void refusesWhatCouldNeverBeBound() {
    assertThatThrownBy(() -> BindAddress.parse("garbage"))
        .hasMessage("invalid bind address \"garbage\": want host:port, :port or 0 (off)");
    assertThatThrownBy(() -> BindAddress.parse(":70000"))
        .hasMessageContaining("port must be 0-65535");
    assertThatThrownBy(() -> BindAddress.parse(":-1")).hasMessageContaining("port must be 0-65535");
    assertThatThrownBy(() -> BindAddress.parse("127.0.0.1:http"))
        .hasMessageContaining("port must be 0-65535");
    assertThatThrownBy(() -> BindAddress.parse("garbage.invalid:8081"))
        .hasMessageContaining("invalid bind address \"garbage.invalid:8081\"")
        .hasMessageContaining("does not resolve");
    assertThatThrownBy(() -> BindAddress.parse("999.1.1.1:8081"))
        .hasMessageContaining("\"999.1.1.1\" does not resolve");
    // TEST-NET-1 (RFC 5737): a valid address no interface of this machine has
    assertThatThrownBy(() -> BindAddress.parse("192.0.2.1:8081"))
        .hasMessageContaining("192.0.2.1")
        .hasMessageContaining("is not an address of this machine");
  }

  @Test
  void hostAloneIsCheckedTheSameWay() {
    assertThat(BindAddress.host("127.0.0.1").isLoopbackAddress()).isTrue();
    assertThat(BindAddress.host("0.0.0.0").isAnyLocalAddress()).isTrue();
    assertThatThrownBy(() -> BindAddress.host("999.1.1.1"))
        .hasMessageContaining("does not resolve");
    assertThatThrownBy(() -> BindAddress.host("192.0.2.1"))
        .hasMessageContaining("not an address of this machine");
  }
}
