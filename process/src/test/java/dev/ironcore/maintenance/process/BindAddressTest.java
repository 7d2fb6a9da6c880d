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

  /**
   * An IPv6 host without brackets is what Go's {@code net.SplitHostPort} refuses ("too many
   * colons"), so controller-runtime's notation does not have it: {@code ::1:36502} was read as
   * {@code [::1]:36502}.
   */
  @Test
  void refusesAnIPv6HostWithoutBracketsNamingTheBracketedForm() {
    assertThatThrownBy(() -> BindAddress.parse("::1:36502"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "invalid bind address \"::1:36502\": an IPv6 host takes brackets: use [::1]:36502");
    assertThatThrownBy(() -> BindAddress.parse(":::8080"))
        .hasMessage("invalid bind address \":::8080\": an IPv6 host takes brackets: use [::]:8080");
    assertThatThrownBy(() -> BindAddress.parse("fe80::1:0"))
        .hasMessageEndingWith("use [fe80::1]:0");
    // no IPv6 address and port to put in brackets: an example instead
    assertThatThrownBy(() -> BindAddress.parse("::1"))
        .hasMessage(
            "invalid bind address \"::1\": an IPv6 host takes brackets: write [address]:port,"
                + " e.g. [::1]:8080");
    assertThatThrownBy(() -> BindAddress.parse("a:b:8080"))
        .hasMessageEndingWith("write [address]:port, e.g. [::1]:8080");
    assertThatThrownBy(() -> BindAddress.parse("::1:http"))
        .hasMessageEndingWith("write [address]:port, e.g. [::1]:8080");
    // the bracketed forms stay accepted
    assertThat(BindAddress.parse("[::1]:36502").orElseThrow().getPort()).isEqualTo(36502);
    assertThat(BindAddress.parse("[::]:0").orElseThrow().getAddress().isAnyLocalAddress()).isTrue();
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
