package dev.ironcore.maintenance.certs.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * SANS entries are checked when read: a bad one is named, with SANS, before anything is written.
 */
class SanListTest {
  @Test
  void sortsDnsNamesAndIpsAndSkipsBlanks() {
    SanList l =
        SanList.parse(
            List.of(
                "svc",
                " svc.ns.svc ",
                "",
                "*.example.com",
                "127.0.0.1",
                "::1",
                "fd00::a:1",
                "x-1.y"));
    assertThat(l.dnsNames()).containsExactly("svc", "svc.ns.svc", "*.example.com", "x-1.y");
    assertThat(l.ipAddresses()).containsExactly("127.0.0.1", "::1", "fd00::a:1");
  }

  /**
   * An IPv4-mapped IPv6 address is the IPv4 address (as Go's x509 writes it): issued as 4 bytes, so
   * a later SANS naming the IPv4 form finds the certificate up to date, and so it is.
   */
  @Test
  void aRepeatedEntryIsKeptOnceAtItsFirstPlace() {
    // fresh eyes: SANS='a,a' gave a certificate naming a twice
    SanList l =
        SanList.parse(
            List.of(
                "webhook.ns.svc",
                "10.0.0.1",
                "Webhook.NS.svc",
                "::1",
                "0:0:0:0:0:0:0:1",
                "10.0.0.1",
                "localhost"));
    assertThat(l.dnsNames()).containsExactly("webhook.ns.svc", "localhost");
    assertThat(l.ipAddresses()).containsExactly("10.0.0.1", "::1");
  }

  @Test
  void anIpv4MappedIpv6AddressIsItsIpv4Address() {
    assertThat(
            SanList.parse(List.of("::ffff:127.0.0.2", "::FFFF:7f00:3", "::1", "fd00::1"))
                .ipAddresses())
        .containsExactly("127.0.0.2", "127.0.0.3", "::1", "fd00::1");
  }

  @Test
  void anInvalidIpIsNamed() {
    for (String ip :
        List.of("1.2.3.999", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1::2::3", "fd00::1/64", "::1%lo")) {
      assertThatThrownBy(() -> SanList.parse(List.of("ok.example.com", ip)))
          .as(ip)
          .hasMessage(
              "SANS (--san) entry '"
                  + ip
                  + "': not a valid IP address (IPv4 as 10.0.0.1, IPv6 as fd00::1)");
    }
  }

  @Test
  void anInvalidDnsNameIsNamed() {
    for (String name :
        List.of("not a name!!", "a..b", "-a.b", "a-.b", "a_b.c", "a.b.", "x".repeat(64) + ".com")) {
      assertThatThrownBy(() -> SanList.parse(List.of(name)))
          .as(name)
          .hasMessageStartingWith(
              "SANS (--san) entry '" + name + "': not a valid DNS name (RFC 1123");
    }
  }

  @Test
  void aWildcardOnlyAsTheWholeLeftmostLabel() {
    for (String name : List.of("*.*.bad", "a.*.b", "f*.example.com", "*x.example.com")) {
      assertThatThrownBy(() -> SanList.parse(List.of(name)))
          .as(name)
          .hasMessage(
              "SANS (--san) entry '"
                  + name
                  + "': not a valid DNS name: '*' only as the whole leftmost label (*.example.com)");
    }
    assertThatThrownBy(() -> SanList.parse(List.of("*")))
        .hasMessageContaining("a wildcard needs a domain after it");
  }

  @Test
  void aTooLongNameIsRefused() {
    String name = ("a".repeat(60) + ".").repeat(5) + "com";
    assertThatThrownBy(() -> SanList.parse(List.of(name)))
        .hasMessageContaining("longer than 253 characters");
  }
}
