import { describe, expect, it } from "vitest";
import { parseProxyTrust, resolveClient } from "./proxy-trust";

const headers = (h: Record<string, string>) => (name: string) => h[name] ?? null;

describe("VIGIL_TRUST_PROXY", () => {
  it("parses none, a hop count and address lists, and names a bad entry", () => {
    expect(parseProxyTrust(undefined).kind).toBe("none");
    expect(parseProxyTrust("").kind).toBe("none");
    expect(parseProxyTrust("false").kind).toBe("none");
    expect(parseProxyTrust("2")).toEqual({ kind: "hops", hops: 2 });
    expect(parseProxyTrust("10.0.0.0/8, ::1, loopback").kind).toBe("addresses");
    expect(() => parseProxyTrust("10.0.0.0/33")).toThrow(/"10.0.0.0\/33" is not an address/);
    expect(() => parseProxyTrust("proxy.internal")).toThrow(/"proxy.internal"/);
  });

  it("ignores every forwarding header when no proxy is trusted", () => {
    const c = resolveClient(
      parseProxyTrust(""),
      "192.0.2.1",
      headers({ host: "vigil:3000", "x-forwarded-for": "1.1.1.1", "x-forwarded-host": "evil", "x-forwarded-proto": "https" }),
    );
    expect(c).toEqual({ ip: "192.0.2.1", host: "vigil:3000", proto: null });
  });

  it("walks X-Forwarded-For from the right past trusted proxies only", () => {
    const trust = parseProxyTrust("10.0.0.0/8");
    const h = headers({
      host: "internal",
      "x-forwarded-for": "6.6.6.6, 198.51.100.1, 10.0.0.9",
      "x-forwarded-host": "a, vigil.example",
      "x-forwarded-proto": "https",
    });
    expect(resolveClient(trust, "::ffff:10.0.0.2", h)).toEqual({ ip: "198.51.100.1", host: "vigil.example", proto: "https" });
    // The peer is not a proxy: it is the client, and its headers are its own claims.
    expect(resolveClient(trust, "198.51.100.5", h)).toEqual({ ip: "198.51.100.5", host: "internal", proto: null });
  });

  it("takes the address a fixed number of proxies back", () => {
    const h = headers({ "x-forwarded-for": "6.6.6.6, 198.51.100.1" });
    expect(resolveClient(parseProxyTrust("1"), "192.0.2.1", h).ip).toBe("198.51.100.1");
    expect(resolveClient(parseProxyTrust("2"), "192.0.2.1", h).ip).toBe("6.6.6.6");
    expect(resolveClient(parseProxyTrust("5"), "192.0.2.1", h).ip).toBe("6.6.6.6");
    expect(resolveClient(parseProxyTrust("1"), "192.0.2.1", headers({})).ip).toBe("192.0.2.1");
  });
});
