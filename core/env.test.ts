import { afterEach, describe, expect, it, vi } from "vitest";

async function freshEnv(vars: Record<string, string>) {
  vi.resetModules();
  for (const [k, v] of Object.entries(vars)) vi.stubEnv(k, v);
  return (await import("./env")).getEnv;
}

describe("environment: credentials and proxies", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it("defaults token lifetimes to 90 days, at most 365, and trusts no proxy", async () => {
    const env = (await freshEnv({}))();
    expect(env.VIGIL_TOKEN_TTL_DAYS).toBe(90);
    expect(env.VIGIL_TOKEN_MAX_TTL_DAYS).toBe(365);
    expect(env.VIGIL_TRUST_PROXY).toEqual({ kind: "none" });
  });

  it("refuses a default token lifetime longer than the maximum", async () => {
    const getEnv = await freshEnv({ VIGIL_TOKEN_TTL_DAYS: "400", VIGIL_TOKEN_MAX_TTL_DAYS: "365" });
    expect(() => getEnv()).toThrow(/VIGIL_TOKEN_TTL_DAYS: must be between 1 and VIGIL_TOKEN_MAX_TTL_DAYS \(365\)/);
  });

  it("names a VIGIL_TRUST_PROXY entry it cannot read", async () => {
    const getEnv = await freshEnv({ VIGIL_TRUST_PROXY: "10.0.0.0/8, proxy.internal" });
    expect(() => getEnv()).toThrow(/VIGIL_TRUST_PROXY: "proxy.internal" is not an address/);
  });
});

describe("environment: alerts", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it("alerts after 3 consecutive failures by default; 0 turns the default off; out of range is refused", async () => {
    expect((await freshEnv({}))().VIGIL_ALERT_FAILURE_THRESHOLD).toBe(3);
    expect((await freshEnv({ VIGIL_ALERT_FAILURE_THRESHOLD: "0" }))().VIGIL_ALERT_FAILURE_THRESHOLD).toBe(0);
    const negative = await freshEnv({ VIGIL_ALERT_FAILURE_THRESHOLD: "-1" });
    expect(() => negative()).toThrow(
      /VIGIL_ALERT_FAILURE_THRESHOLD: must be between 0 \(no failure alerts by default\) and 1000 failures, got -1/,
    );
    const word = await freshEnv({ VIGIL_ALERT_FAILURE_THRESHOLD: "three" });
    expect(() => word()).toThrow(/VIGIL_ALERT_FAILURE_THRESHOLD: must be an integer, got "three"/);
  });
});

describe("environment: retention pacing", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it("paces the runs step at a 1:1 duty cycle by default and reads a fractional ratio", async () => {
    expect((await freshEnv({}))()).toMatchObject({ VIGIL_RETENTION_PAUSE_RATIO: 1, VIGIL_RETENTION_MAX_PAUSE_MS: 5000 });
    expect((await freshEnv({ VIGIL_RETENTION_PAUSE_RATIO: "0.5" }))().VIGIL_RETENTION_PAUSE_RATIO).toBe(0.5);
  });

  it("refuses a pause ratio that is not a number or out of range", async () => {
    expect(await freshEnv({ VIGIL_RETENTION_PAUSE_RATIO: "lots" })).toThrow(/VIGIL_RETENTION_PAUSE_RATIO.*must be a number/);
    expect(await freshEnv({ VIGIL_RETENTION_PAUSE_RATIO: "25" })).toThrow(/VIGIL_RETENTION_PAUSE_RATIO: must be between 0/);
    expect(await freshEnv({ VIGIL_RETENTION_MAX_PAUSE_MS: "-1" })).toThrow(/VIGIL_RETENTION_MAX_PAUSE_MS: must be between 0 and 60000/);
  });

  it("yields the runs step to the fleet's firings by default; off turns it off, anything else is refused", async () => {
    expect((await freshEnv({}))().VIGIL_RETENTION_YIELD_TO_RUNS).toBe("on");
    expect((await freshEnv({ VIGIL_RETENTION_YIELD_TO_RUNS: "off" }))().VIGIL_RETENTION_YIELD_TO_RUNS).toBe("off");
    expect(await freshEnv({ VIGIL_RETENTION_YIELD_TO_RUNS: "sometimes" })).toThrow(/VIGIL_RETENTION_YIELD_TO_RUNS.*must be on or off/);
  });
});
