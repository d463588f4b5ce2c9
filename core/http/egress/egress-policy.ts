// The one rule for every HTTP call Vigil makes on someone's behalf (http.request, alert and audit anchor
// webhooks): loopback, private, link-local, unspecified and other internal addresses are refused unless the
// operator's allow-list (VIGIL_EGRESS_ALLOW) names them. The rule is applied to the address a connection is
// actually made to (see egressLookup and egress-fetch.ts), never to the URL's text alone.
import dns from "node:dns";
import net from "node:net";
import { carriedIpv4, classifyAddress, type AddressClass } from "./classify-address.ts";

export const EGRESS_ALLOW_SETTING = "VIGIL_EGRESS_ALLOW";

export interface EgressPolicy {
  /** Allowed CIDR ranges and single addresses. */
  cidrs: net.BlockList;
  /** Allowed host names, lower case without a trailing dot: calls to them skip the address check. */
  hosts: Set<string>;
  /** The setting's text, for messages. */
  text: string;
}

export class EgressRefusedError extends Error {
  override name = "EgressRefusedError";
  readonly host: string;
  readonly address: string;
  readonly addressClass: AddressClass;

  constructor(host: string, address: string, addressClass: AddressClass) {
    const c = addressClass;
    const what = host === address ? address : `${host} (resolved to ${address})`;
    const via = c.via ? `, carried in the ${c.via}` : "";
    const hint = host === address ? `"${address}"` : `"${address}", a range containing it, or the host name "${host}"`;
    super(
      `egress refused: ${what} is ${/^[aeiou]/.test(c.name) ? "an" : "a"} ${c.name} address (${c.range}${via}); Vigil does not call internal addresses ` +
        `unless ${EGRESS_ALLOW_SETTING} allows them — add ${hint} to ${EGRESS_ALLOW_SETTING} to allow it`,
    );
    this.host = host;
    this.address = address;
    this.addressClass = addressClass;
  }
}

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

const normaliseHost = (h: string) => h.trim().toLowerCase().replace(/\.$/, "");

/**
 * A comma-separated list of addresses (127.0.0.1, [::1]), CIDR ranges (10.0.0.0/8, fd00::/8) and host names
 * (billing.internal). Empty allows nothing internal. Throws a message naming the bad entry.
 */
export function parseEgressAllow(value: string | undefined): EgressPolicy {
  const text = (value ?? "").trim();
  const cidrs = new net.BlockList();
  const hosts = new Set<string>();
  for (const raw of text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [left, bits, extra] = raw.split("/");
    const addr = left!.replace(/^\[(.*)\]$/, "$1");
    const family = net.isIPv4(addr) ? "ipv4" : net.isIPv6(addr) ? "ipv6" : null;
    if (family) {
      const max = family === "ipv4" ? 32 : 128;
      const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
      if (extra !== undefined || !(prefix >= 0 && prefix <= max)) {
        throw new Error(`"${raw}" is not an address, a CIDR range (10.0.0.0/8) or a host name`);
      }
      cidrs.addSubnet(addr, prefix, family);
      continue;
    }
    const host = normaliseHost(raw);
    if (bits !== undefined || !HOST_NAME.test(host))
      throw new Error(`"${raw}" is not an address, a CIDR range (10.0.0.0/8) or a host name`);
    hosts.add(host);
  }
  return { cidrs, hosts, text };
}

let fromEnv: { text: string | undefined; policy: EgressPolicy } | undefined;

/**
 * The operator's policy, from VIGIL_EGRESS_ALLOW. core/env.ts validates the setting when a process starts; this
 * reads it directly because handler threads load this module without the rest of the environment's modules.
 */
export function egressPolicyFromEnv(): EgressPolicy {
  const text = process.env[EGRESS_ALLOW_SETTING];
  if (!fromEnv || fromEnv.text !== text) fromEnv = { text, policy: parseEgressAllow(text) };
  return fromEnv.policy;
}

/** True when the URL's host (as the URL parser gives it) is allowed by name. */
export function allowsHostName(policy: EgressPolicy, hostname: string): boolean {
  return policy.hosts.has(normaliseHost(hostname));
}

/** Why a connection to `address` (reached through `host`) is refused, or null when it may be made. */
export function checkEgressAddress(policy: EgressPolicy, address: string, host: string = address): EgressRefusedError | null {
  const bare = address.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  const family = net.isIPv4(bare) ? "ipv4" : net.isIPv6(bare) ? "ipv6" : null;
  // Not an IP address at all: nothing a socket could connect to, so nothing to allow.
  if (!family) return new EgressRefusedError(host, address, { name: "reserved", range: "not an IP address" });
  const found = classifyAddress(bare);
  if (!found) return null;
  if (policy.cidrs.check(bare, family)) return null;
  if (carriedIpv4(bare).some((v4) => policy.cidrs.check(v4, "ipv4"))) return null;
  return new EgressRefusedError(host, bare, found);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/http/tls connect options: resolves like the default, then refuses the connection when any
 * address the name resolves to is refused. The socket connects only to an address this function returned, so a
 * name that resolves differently between a check and the connection (DNS rebinding) cannot slip through.
 */
export function egressLookup(policy: EgressPolicy) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "");
      for (const a of addresses) {
        const refused = checkEgressAddress(policy, a.address, hostname);
        if (refused) return callback(refused as NodeJS.ErrnoException, "");
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "");
      callback(null, first.address, first.family);
    });
  };
}
