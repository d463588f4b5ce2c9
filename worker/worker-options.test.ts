import { describe, expect, it } from "vitest";
import { parseWorkerOptions, servesHandler, WorkerOptionsError } from "./worker-options";

const env = { VIGIL_HANDLERS: "./jobs, ./more", VIGIL_SERVE: "*" };

describe("worker options", () => {
  it("takes handler sources and serve patterns from env, flags replacing them", () => {
    expect(parseWorkerOptions([], env)).toEqual({ handlerSources: ["./jobs", "./more"], serve: ["*"], pool: null });
    expect(parseWorkerOptions(["--handlers", "/srv/a", "--handlers=@acme/jobs", "--serve", "payouts.*,ledger.post"], env)).toEqual({
      handlerSources: ["/srv/a", "@acme/jobs"],
      serve: ["payouts.*", "ledger.post"],
      pool: null,
    });
  });

  it("takes the worker pool from --pool or VIGIL_WORKER_POOL, and refuses a name that is not a pool's", () => {
    expect(parseWorkerOptions([], { ...env, VIGIL_WORKER_POOL: "payments" }).pool).toBe("payments");
    expect(parseWorkerOptions(["--pool", "data-team"], { ...env, VIGIL_WORKER_POOL: "payments" }).pool).toBe("data-team");
    expect(parseWorkerOptions(["--pool=gpu_1"], env).pool).toBe("gpu_1");
    expect(() => parseWorkerOptions(["--pool", "Bad Pool"], env)).toThrow(/not a pool name/);
    expect(() => parseWorkerOptions(["--pool", "a", "--pool", "b"], env)).toThrow(/once/);
  });

  it("refuses unknown arguments and flags without a value", () => {
    expect(() => parseWorkerOptions(["--handler", "x"], env)).toThrow(WorkerOptionsError);
    expect(() => parseWorkerOptions(["--serve"], env)).toThrow(/needs a value/);
  });

  it("matches serve patterns against whole names", () => {
    expect(servesHandler(["payouts.*"], "payouts.send")).toBe(true);
    expect(servesHandler(["payouts.*"], "ledger.post")).toBe(false);
    expect(servesHandler(["ledger.post"], "ledger.poster")).toBe(false);
    expect(servesHandler(["*"], "anything.at-all")).toBe(true);
  });
});
