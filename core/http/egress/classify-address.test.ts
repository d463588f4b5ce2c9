import { describe, expect, it } from "vitest";
import { classifyAddress, ipv6Groups } from "./classify-address";
import { checkEgressAddress, egressLookup, parseEgressAllow } from "./egress-policy";

// The host as a URL spells it → the class the address it reaches is refused as (null: an ordinary address).
// Each host goes through the URL parser first, as every call does, so every spelling of one address lands on it.
const spellings: [string, string | null][] = [
  // IPv4 loopback, every way the URL parser accepts it
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["2130706433", "loopback"],
  ["0x7f000001", "loopback"],
  ["0X7F.0.0.1", "loopback"],
  ["0177.0.0.1", "loopback"],
  ["0177.0000.0000.0001", "loopback"],
  ["127.1", "loopback"],
  ["127.0.1", "loopback"],
  ["0x7f.1", "loopback"],
  ["127.0.0.1.", "loopback"],
  // unspecified ("this network"), which Linux delivers to this machine
  ["0.0.0.0", "unspecified"],
  ["0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  // private, shared address space, link-local (cloud metadata), multicast, broadcast, reserved
  ["10.0.0.1", "private"],
  ["012.0.0.1", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.168.1.1", "private"],
  ["3232235777", "private"],
  ["100.64.0.1", "shared address space"],
  ["100.127.255.255", "shared address space"],
  ["169.254.169.254", "link-local"],
  ["2852039166", "link-local"],
  ["0xa9fea9fe", "link-local"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["255.255.255.255", "broadcast"],
  ["240.0.0.1", "reserved"],
  // ordinary addresses next to the refused ranges
  ["8.8.8.8", null],
  ["172.15.255.255", null],
  ["172.32.0.0", null],
  ["100.63.255.255", null],
  ["100.128.0.0", null],
  ["169.253.255.255", null],
  ["11.0.0.0", null],
  ["223.255.255.255", null],
  ["1.1.1.1", null],
  // IPv6
  ["[::1]", "loopback"],
  ["[0:0:0:0:0:0:0:1]", "loopback"],
  ["[0000:0000:0000:0000:0000:0000:0000:0001]", "loopback"],
  ["[::]", "unspecified"],
  ["[fc00::1]", "private"],
  ["[fd12:3456:789a::1]", "private"],
  ["[FD00::ABCD]", "private"],
  ["[fec0::1]", "private"],
  ["[fe80::1]", "link-local"],
  ["[febf:ffff::1]", "link-local"],
  ["[ff02::1]", "multicast"],
  ["[64:ff9b:1::a]", "private"],
  // IPv6 carrying a refused IPv4 address
  ["[::ffff:127.0.0.1]", "loopback"],
  ["[::ffff:7f00:1]", "loopback"],
  ["[0:0:0:0:0:ffff:127.0.0.1]", "loopback"],
  ["[::ffff:169.254.169.254]", "link-local"],
  ["[::ffff:a9fe:a9fe]", "link-local"],
  ["[::ffff:10.1.2.3]", "private"],
  ["[::ffff:0.0.0.0]", "unspecified"],
  ["[::ffff:0:127.0.0.1]", "loopback"],
  ["[::127.0.0.1]", "loopback"],
  ["[::169.254.169.254]", "link-local"],
  ["[64:ff9b::127.0.0.1]", "loopback"],
  ["[64:ff9b::a9fe:a9fe]", "link-local"],
  ["[2002:7f00:1::]", "loopback"],
  ["[2002:a9fe:a9fe::1]", "link-local"],
  ["[2002:c0a8:101::]", "private"],
  ["[2001:0:4136:e378:8000:63bf:80ff:fffe]", "loopback"],
  // ordinary IPv6, including the same forms carrying a public IPv4 address
  ["[2001:4860:4860::8888]", null],
  ["[2606:4700:4700::1111]", null],
  ["[::ffff:8.8.8.8]", null],
  ["[64:ff9b::8.8.8.8]", null],
  ["[2002:808:808::]", null],
  ["[fbff::1]", null],
  ["[fe00::1]", null],
];

describe("classifyAddress: the class of the address a URL's host reaches", () => {
  it.each(spellings)("http://%s/ is %s", (host, expected) => {
    const hostname = new URL(`http://${host}/`).hostname.replace(/\.$/, "");
    expect(classifyAddress(hostname)?.name ?? null).toBe(expected);
  });

  it("names the IPv6 form that carried a refused IPv4 address", () => {
    expect(classifyAddress("::ffff:7f00:1")).toEqual({ name: "loopback", range: "127.0.0.0/8", via: "IPv4-mapped IPv6 ::ffff:7f00:1" });
    expect(classifyAddress("2002:a9fe:a9fe::1")).toMatchObject({ name: "link-local", via: "6to4 IPv6 2002:a9fe:a9fe::1" });
  });

  it("is null for things that are not IP addresses (host names are judged by what they resolve to)", () => {
    for (const s of ["localhost", "example.com", "", "1.2.3.4.5", "::g", "[::1", "999.0.0.1"]) expect(classifyAddress(s)).toBeNull();
  });
});

describe("ipv6Groups", () => {
  it.each([
    ["::", [0, 0, 0, 0, 0, 0, 0, 0]],
    ["::1", [0, 0, 0, 0, 0, 0, 0, 1]],
    ["1::", [1, 0, 0, 0, 0, 0, 0, 0]],
    ["2001:db8::8a2e:370:7334", [0x2001, 0xdb8, 0, 0, 0, 0x8a2e, 0x370, 0x7334]],
    ["::ffff:1.2.3.4", [0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]],
    ["1:2:3:4:5:6:7:8", [1, 2, 3, 4, 5, 6, 7, 8]],
    ["fe80::1%eth0", [0xfe80, 0, 0, 0, 0, 0, 0, 1]],
    ["[::1]", [0, 0, 0, 0, 0, 0, 0, 1]],
  ])("%s", (address, groups) => expect(ipv6Groups(address)).toEqual(groups));

  it("is null for anything else", () => {
    for (const s of ["1.2.3.4", "1:2:3:4:5:6:7:8:9", ":::", "localhost", "1::2::3"]) expect(ipv6Groups(s)).toBeNull();
  });
});

describe("checkEgressAddress with VIGIL_EGRESS_ALLOW", () => {
  const none = parseEgressAllow("");

  it("refuses with a reason naming the class, the range and the setting that would allow it", () => {
    const err = checkEgressAddress(none, "127.0.0.1", "localhost");
    expect(err?.message).toBe(
      "egress refused: localhost (resolved to 127.0.0.1) is a loopback address (127.0.0.0/8); Vigil does not call internal " +
        'addresses unless VIGIL_EGRESS_ALLOW allows them — add "127.0.0.1", a range containing it, or the host name "localhost" ' +
        "to VIGIL_EGRESS_ALLOW to allow it",
    );
    expect(checkEgressAddress(none, "169.254.169.254")?.message).toMatch(/^egress refused: 169\.254\.169\.254 is a link-local address/);
    expect(checkEgressAddress(none, "8.8.8.8")).toBeNull();
  });

  it("allows the addresses and ranges listed, in either family, and nothing next to them", () => {
    const p = parseEgressAllow(" 127.0.0.1 , 10.20.0.0/16, [::1], fd00:1::/32 ");
    expect(checkEgressAddress(p, "127.0.0.1")).toBeNull();
    expect(checkEgressAddress(p, "::ffff:127.0.0.1")).toBeNull();
    expect(checkEgressAddress(p, "::ffff:7f00:1")).toBeNull();
    expect(checkEgressAddress(p, "127.0.0.2")).not.toBeNull();
    expect(checkEgressAddress(p, "10.20.255.1")).toBeNull();
    expect(checkEgressAddress(p, "10.21.0.1")).not.toBeNull();
    expect(checkEgressAddress(p, "::1")).toBeNull();
    expect(checkEgressAddress(p, "fd00:1:2::3")).toBeNull();
    expect(checkEgressAddress(p, "fd00:2::3")).not.toBeNull();
    expect(checkEgressAddress(p, "169.254.169.254")).not.toBeNull();
    expect(checkEgressAddress(parseEgressAllow("0.0.0.0/0,::/0"), "169.254.169.254")).toBeNull();
  });

  it("reads host names (lower case, without a trailing dot) and refuses entries that are neither", () => {
    expect([...parseEgressAllow("Billing.Internal., localhost").hosts]).toEqual(["billing.internal", "localhost"]);
    for (const bad of ["10.0.0.0/33", "::1/129", "10.0.0.0/8/8", "http://x", "a b", "10.0.0.0/x", "host/8"]) {
      expect(() => parseEgressAllow(bad), bad).toThrow(/is not an address, a CIDR range/);
    }
  });
});

describe("egressLookup: the check on what a host name resolves to", () => {
  const lookup = (host: string, all: boolean, allow = "") =>
    new Promise<{ err: Error | null; address: unknown }>((resolve) =>
      egressLookup(parseEgressAllow(allow))(host, { all }, (err, address) => resolve({ err, address })),
    );

  it("refuses a name resolving to loopback, for single and all-address lookups", async () => {
    for (const all of [false, true]) {
      const { err } = await lookup("localhost", all);
      expect(err?.name).toBe("EgressRefusedError");
      expect(err?.message).toMatch(/^egress refused: localhost \(resolved to (127\.0\.0\.1|::1)\) is a loopback address/);
    }
  });

  it("answers the addresses when they are allowed", async () => {
    expect((await lookup("localhost", false, "127.0.0.0/8,::1")).address).toMatch(/^(127\.0\.0\.1|::1)$/);
  });
});
