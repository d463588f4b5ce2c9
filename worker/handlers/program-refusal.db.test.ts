// A worker set to refuse programs (VIGIL_WORKER_PROGRAMS=refuse) neither advertises nor serves any handler that
// runs one — shell.command, or a user's handler marked runsPrograms — so the console shows that no worker serves
// them and their runs wait; everything else it serves as usual. A marked handler needs the program permission.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase, usePoolAndBoss } from "../../test/db";
import type { TestWorker } from "../../test/worker-process";
import { startWarmWorker } from "../../test/warm-worker";
import { waitFor } from "../../test/wait-for";
import { createTestToken } from "../../test/auth";
import { callRoute } from "../../test/call-route";
import { createRun, insertSchedule, runState } from "../../test/run-fixtures";
import { assertMayUseHandlers } from "../../core/auth/program-permission";
import { GET as listHandlersRoute } from "../../app/api/handlers/route";
import { advertiseHandlers } from "../../core/handlers/advertise-handlers";
import { describeHandler } from "../../core/handlers/advertised-handler";
import { loadHandlers } from "./load-handlers";

const db = useTestDatabase("program_refusal");
const h = usePoolAndBoss(db);
let worker: TestWorker;
let jobs: string;
let viewer: string;

// A user's handler that declares it runs a program on the host.
const SPAWNING = `
import { defineHandler, z } from "vigil/sdk";
export const job = defineHandler({
  name: "acme.spawn",
  description: "runs a program on the host",
  runsPrograms: true,
  payload: z.strictObject({}),
  async run() {},
});
`;
const PLAIN = `
import { defineHandler, z } from "vigil/sdk";
export const job = defineHandler({ name: "acme.plain", description: "no program", payload: z.strictObject({}), async run() {} });
`;

beforeAll(async () => {
  jobs = fs.mkdtempSync(path.join(os.tmpdir(), "acme-programs-"));
  fs.writeFileSync(path.join(jobs, "spawn.ts"), SPAWNING);
  fs.writeFileSync(path.join(jobs, "plain.ts"), PLAIN);
  worker = await startWarmWorker(db.url, { VIGIL_HEARTBEAT_MS: "500", VIGIL_WORKER_PROGRAMS: "refuse" }, 180_000, ["--handlers", jobs]);
  viewer = await createTestToken(db.url, "viewer");
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  fs.rmSync(jobs, { recursive: true, force: true });
});

describe("a worker that refuses programs", () => {
  it("does not advertise shell.command or a handler marked runsPrograms, and says so in its log", async () => {
    const { rows } = await h.pool.query<{ handler: string }>(`SELECT handler FROM worker_handlers ORDER BY handler`);
    const served = rows.map((r) => r.handler);
    expect(served).toContain("demo.noop");
    expect(served).toContain("acme.plain");
    expect(served).not.toContain("shell.command");
    expect(served).not.toContain("acme.spawn");
    const line = worker.logs.find((l) => l.includes("program handlers (shell.command…) are not served"));
    expect(line).toContain("VIGIL_WORKER_PROGRAMS=refuse");
  });

  it("the console shows that no worker serves them", async () => {
    const res = await callRoute(listHandlersRoute, { path: "/api/handlers", token: viewer });
    const byName = new Map((res.body.handlers as { name: string; liveWorkers: number }[]).map((x) => [x.name, x.liveWorkers]));
    expect(byName.get("shell.command")).toBe(0);
    expect(byName.get("demo.noop")).toBe(1);
    expect(byName.get("acme.plain")).toBe(1);
  });

  it("a shell.command run is not started by it, while a plain run is", async () => {
    const shell = await createRun(h.pool, h.boss, await insertSchedule(h.pool, { handler: "shell.command", payload: { script: "true" } }));
    const plain = await createRun(h.pool, h.boss, await insertSchedule(h.pool, { handler: "demo.noop", payload: {} }));
    await waitFor("the plain run to succeed", async () => ((await runState(h.pool, plain)).state === "succeeded" ? true : null), {
      timeoutMs: 30_000,
    });
    expect((await runState(h.pool, shell)).state).toBe("queued");
  });

  it("a user's handler marked runsPrograms needs the program permission (its mark is in the catalog)", async () => {
    // What a worker that serves them advertises (worker/main.ts): the loaded specs, described and stored.
    const loaded = (await loadHandlers({ sources: [jobs] })).filter((x) => !x.builtin);
    const code = (file: string) => fs.readFileSync(file, "utf8");
    await h.pool.query(`INSERT INTO workers (id, host, pid, version, heartbeat_at) VALUES ('w-allowing', 'h', 1, 'v', clock_timestamp())`);
    await advertiseHandlers(
      h.pool,
      "w-allowing",
      loaded.map((x) => describeHandler(x.def, { source: x.source, builtin: false, code: code(x.source) })),
    );
    const { rows } = await h.pool.query(`SELECT name, runs_programs FROM handlers WHERE name LIKE 'acme.%' ORDER BY name`);
    expect(rows).toEqual([
      { name: "acme.plain", runs_programs: false },
      { name: "acme.spawn", runs_programs: true },
    ]);
    const operator = { type: "user" as const, id: null, label: "op@vigil.test", role: "operator" as const };
    await expect(assertMayUseHandlers(h.pool, operator, ["acme.spawn"])).rejects.toMatchObject({
      status: 403,
      code: "program_permission_required",
    });
    await expect(assertMayUseHandlers(h.pool, operator, ["acme.plain"])).resolves.toBeUndefined();
    await expect(assertMayUseHandlers(h.pool, { ...operator, mayRunPrograms: true }, ["acme.spawn"])).resolves.toBeUndefined();
  });
});
