// Which IP addresses Vigil refuses to call by default: the ones that reach this machine, the local network or a
// cloud's metadata service rather than the internet. An IPv6 address that carries an IPv4 address (IPv4-mapped,
// IPv4-compatible, NAT64, 6to4, Teredo) is judged by the IPv4 address it carries, since a dual-stack host or a
// translator delivers it there.
import net from "node:net";

export type AddressClassName =
  "loopback" | "private" | "shared address space" | "link-local" | "unspecified" | "multicast" | "broadcast" | "reserved";

export interface AddressClass {
  name: AddressClassName;
  /** The refused range the address falls in, e.g. 127.0.0.0/8. */
  range: string;
  /** How an IPv6 address carried the IPv4 address that was judged ("IPv4-mapped IPv6 ::ffff:7f00:1"). */
  via?: string;
}

interface Range {
  name: AddressClassName;
  cidr: string;
  list: net.BlockList;
}

function ranges(family: "ipv4" | "ipv6", table: [AddressClassName, string][]): Range[] {
  return table.map(([name, cidr]) => {
    const [addr, bits] = cidr.split("/");
    const list = new net.BlockList();
    list.addSubnet(addr!, Number(bits), family);
    return { name, cidr, list };
  });
}

const IPV4 = ranges("ipv4", [
  ["unspecified", "0.0.0.0/8"],
  ["loopback", "127.0.0.0/8"],
  ["private", "10.0.0.0/8"],
  ["private", "172.16.0.0/12"],
  ["private", "192.168.0.0/16"],
  ["shared address space", "100.64.0.0/10"],
  ["link-local", "169.254.0.0/16"],
  ["multicast", "224.0.0.0/4"],
  ["broadcast", "255.255.255.255/32"],
  ["reserved", "240.0.0.0/4"],
]);

const IPV6 = ranges("ipv6", [
  ["unspecified", "::/128"],
  ["loopback", "::1/128"],
  ["private", "fc00::/7"],
  // Site-local: deprecated, but still routed inside some networks.
  ["private", "fec0::/10"],
  // Local-use NAT64 prefix: a translator inside this network.
  ["private", "64:ff9b:1::/48"],
  ["link-local", "fe80::/10"],
  ["multicast", "ff00::/8"],
]);

/**
 * The eight 16-bit groups of an IPv6 address, or null when it is not one. The WHATWG URL parser does the parsing
 * (every spelling: embedded dotted IPv4, upper case, leading zeros, "::" anywhere) and serialises the canonical
 * form, which has hex groups only and at most one "::" — all that is left is expanding that.
 */
export function ipv6Groups(address: string): number[] | null {
  const bare = address.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  if (!net.isIPv6(bare)) return null;
  const canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const [head, tail] = canonical.split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const zeros = tail === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...Array<string>(zeros).fill("0"), ...right].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : null;
}

const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/** The IPv4 addresses an IPv6 address delivers to, each with the name of the form that carries it. */
function embeddedIpv4(g: number[]): { address: string; form: string }[] {
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const found: { address: string; form: string }[] = [];
  if (zero(0, 5) && g[5] === 0xffff) found.push({ address: v4(g[6]!, g[7]!), form: "IPv4-mapped IPv6" });
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) found.push({ address: v4(g[6]!, g[7]!), form: "IPv4-translated IPv6" });
  if (zero(0, 6)) found.push({ address: v4(g[6]!, g[7]!), form: "IPv4-compatible IPv6" });
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) found.push({ address: v4(g[6]!, g[7]!), form: "NAT64 IPv6" });
  if (g[0] === 0x2002) found.push({ address: v4(g[1]!, g[2]!), form: "6to4 IPv6" });
  if (g[0] === 0x2001 && g[1] === 0) {
    // Teredo: the server's address in the clear, the client's with every bit inverted.
    found.push({ address: v4(g[2]!, g[3]!), form: "Teredo IPv6 (server)" });
    found.push({ address: v4(g[6]! ^ 0xffff, g[7]! ^ 0xffff), form: "Teredo IPv6 (client)" });
  }
  return found;
}

function inRanges(table: Range[], address: string, family: "ipv4" | "ipv6"): Range | undefined {
  return table.find((r) => r.list.check(address, family));
}

/** The refused class an IP address belongs to, or null for an ordinary (public) address or something not an IP. */
export function classifyAddress(address: string): AddressClass | null {
  const bare = address.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  if (net.isIPv4(bare)) {
    const r = inRanges(IPV4, bare, "ipv4");
    return r ? { name: r.name, range: r.cidr } : null;
  }
  const groups = ipv6Groups(bare);
  if (!groups) return null;
  const r = inRanges(IPV6, bare, "ipv6");
  if (r) return { name: r.name, range: r.cidr };
  for (const e of embeddedIpv4(groups)) {
    const inner = inRanges(IPV4, e.address, "ipv4");
    if (inner) return { name: inner.name, range: inner.cidr, via: `${e.form} ${bare}` };
  }
  return null;
}

/** The IPv4 addresses an IPv6 address carries (for allow-list matching), none for other addresses. */
export function carriedIpv4(address: string): string[] {
  const groups = ipv6Groups(address);
  return groups ? embeddedIpv4(groups).map((e) => e.address) : [];
}
