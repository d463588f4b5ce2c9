import { describe, expect, it } from "vitest";
import { buildChildEnv } from "./child-env";

const meta = { runId: "r1", scheduleId: "s1", idempotencyKey: "s1:2026", attempt: 2, resultFile: "/tmp/x/result.json" };
const worker = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/vigil",
  LANG: "C.UTF-8",
  LC_TIME: "de_DE.UTF-8",
  DATABASE_URL: "postgres://vigil:pw@db/vigil",
  VIGIL_ADMIN_PASSWORD: "admin-pw",
  PAYOUT_TOKEN: "tok",
  AWS_SECRET_ACCESS_KEY: "aws",
} as unknown as NodeJS.ProcessEnv;

describe("buildChildEnv", () => {
  it("starts from the harmless basics, adds passEnv, env and run metadata, and nothing else of the worker's", () => {
    const env = buildChildEnv({ env: { REGION: "eu" }, passEnv: ["PAYOUT_TOKEN"] }, meta, worker);
    expect(env).toEqual({
      PATH: "/usr/bin:/bin",
      HOME: "/home/vigil",
      LANG: "C.UTF-8",
      LC_TIME: "de_DE.UTF-8",
      PAYOUT_TOKEN: "tok",
      REGION: "eu",
      VIGIL_RUN_ID: "r1",
      VIGIL_SCHEDULE_ID: "s1",
      VIGIL_IDEMPOTENCY_KEY: "s1:2026",
      VIGIL_ATTEMPT: "2",
      VIGIL_RESULT_FILE: "/tmp/x/result.json",
    });
  });

  it("fails when passEnv names a variable the worker does not have, and gives a PATH when the worker has none", () => {
    expect(() => buildChildEnv({ env: {}, passEnv: ["NOPE"] }, meta, worker)).toThrow(/passEnv names NOPE/);
    expect(buildChildEnv({ env: {}, passEnv: [] }, meta, {} as NodeJS.ProcessEnv).PATH).toBe("/usr/local/bin:/usr/bin:/bin");
  });
});
