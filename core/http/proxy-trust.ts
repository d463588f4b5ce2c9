// Which forwarding headers to believe. X-Forwarded-For/-Host/-Proto are plain request headers: any
// client can send them, so they mean something only when a proxy we run put them there. The
// operator says which proxies those are (VIGIL_TRUST_PROXY); without that, the client is the
// socket peer and the host is the Host header, whatever the request claims.
import net from "node:net";

export type ProxyTrust =
  | { kind: "none" }
  /** Exactly this many proxies stand in front of the console (the peer is the nearest). */
  | { kind: "hops"; hops: number }
  /** Proxies are recognised by address: the peer and each X-Forwarded-For entry from the right. */
  | { kind: "addresses"; list: net.BlockList; text: string };

const NAMED: Record<string, string[]> = {
  loopback: ["127.0.0.0/8", "::1/128"],
  private: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
};

/**
 * `""`/`false` → trust none; a whole number N ≥ 1 → N proxies in front; otherwise a comma-separated
 * list of addresses, CIDR ranges and the words `loopback`/`private`. Throws a message naming the bad entry.
 */
export function parseProxyTrust(value: string | undefined): ProxyTrust {
  const v = (value ?? "").trim();
  if (v === "" || v === "false" || v === "0") return { kind: "none" };
  if (/^\d+$/.test(v)) return { kind: "hops", hops: Number(v) };
  const list = new net.BlockList();
  for (const raw of v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    for (const entry of NAMED[raw] ?? [raw]) {
      const [addr, bits, extra] = entry.split("/");
      const family = net.isIPv4(addr!) ? "ipv4" : net.isIPv6(addr!) ? "ipv6" : null;
      const prefix = bits === undefined ? (family === "ipv4" ? 32 : 128) : Number(bits);
      const max = family === "ipv4" ? 32 : 128;
      if (!family || extra !== undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > max) {
        throw new Error(`"${raw}" is not an address, a CIDR range (10.0.0.0/8), loopback, private or a number of proxies`);
      }
      list.addSubnet(addr!, prefix, family);
    }
  }
  return { kind: "addresses", list, text: v };
}

/** `::ffff:10.0.0.1` (an IPv4 peer on a dual-stack socket) is 10.0.0.1. */
export function normaliseAddress(a: string): string {
  const s = a.trim().replace(/^\[(.*)\]$/, "$1");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(s);
  return mapped ? mapped[1]! : s;
}

function isTrusted(trust: ProxyTrust, address: string): boolean {
  if (trust.kind !== "addresses") return false;
  const family = net.isIPv4(address) ? "ipv4" : net.isIPv6(address) ? "ipv6" : null;
  return family !== null && trust.list.check(address, family);
}

const entries = (h: string | null) =>
  (h ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

export interface ClientView {
  /** The address the limit and the audit trail use. */
  ip: string | null;
  /** The host the client asked for (what an Origin must match). */
  host: string | null;
  /** The scheme the client used, when a trusted proxy says; null when only the socket could tell. */
  proto: string | null;
}

/**
 * Who the client is, from the socket peer and the headers, believing forwarding headers only as far
 * as the trusted proxies go: X-Forwarded-For is walked from the right (each proxy appends the
 * address it saw), so a client's own invented entries on the left are never reached.
 */
export function resolveClient(trust: ProxyTrust, peer: string | null, header: (name: string) => string | null): ClientView {
  const own: ClientView = { ip: peer ? normaliseAddress(peer) : null, host: header("host"), proto: null };
  if (!peer || trust.kind === "none") return own;
  const chain = [...entries(header("x-forwarded-for")).map(normaliseAddress), normaliseAddress(peer)];
  let i = chain.length - 1;
  if (trust.kind === "hops") {
    i = Math.max(0, chain.length - 1 - trust.hops);
  } else {
    if (!isTrusted(trust, chain[i]!)) return own;
    while (i > 0 && isTrusted(trust, chain[i]!)) i--;
  }
  // Host and scheme: the nearest proxy's word (the last entry), the one a trusted proxy wrote.
  return {
    ip: chain[i]!.slice(0, 64),
    host: entries(header("x-forwarded-host")).at(-1) ?? own.host,
    proto: entries(header("x-forwarded-proto")).at(-1)?.toLowerCase() ?? null,
  };
}
