import { describe, expect, it } from "vitest";
import { z } from "zod";
import { getPool } from "../db/pool";
import { ValidationError } from "../errors";
import { useTestDatabase } from "../../test/db";
import { describeHandler } from "./advertised-handler";
import { advertiseHandlers } from "./advertise-handlers";
import { defineHandlerSpec } from "./define-handler";
import { listHandlers, validateHandlerPayload } from "./handler-registry";

useTestDatabase("handler_registry");

async function fieldsOf(p: Promise<unknown>): Promise<Record<string, string>> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).fields ?? {};
  }
  throw new Error("expected a ValidationError");
}

const payoutsSpec = defineHandlerSpec({
  name: "payouts.send",
  description: "Sends payouts",
  payload: z.strictObject({ batch: z.string().min(3), limit: z.number().int().max(100).default(10) }),
});

async function registerWorker(id: string, heartbeatAgoMs = 0): Promise<void> {
  await getPool().query(
    `INSERT INTO workers (id, host, pid, version, heartbeat_at) VALUES ($1, 'h', 1, 'v', clock_timestamp() - make_interval(secs => $2 / 1000.0))`,
    [id, heartbeatAgoMs],
  );
}

describe("handler registry", () => {
  it("lists every built-in with a JSON schema of its payload before any worker advertised", async () => {
    const list = await listHandlers(getPool(), { deadAfterMs: 10_000 });
    expect(list.map((h) => h.name)).toEqual([
      "demo.cpu",
      "demo.flaky",
      "demo.hang",
      "demo.noop",
      "demo.sleep",
      "http.request",
      "ledger.post",
      "shell.command",
    ]);
    const ledger = list.find((h) => h.name === "ledger.post")!;
    expect(ledger).toMatchObject({ builtin: true, liveWorkers: 0, payloadSchema: { type: "object", required: ["from", "to", "amount"] } });
  });

  it("validates built-in payloads with their own zod schemas, field by field", async () => {
    const db = getPool();
    expect(await validateHandlerPayload(db, "ledger.post", { from: "a", to: "b", amount: 5 })).toEqual({ from: "a", to: "b", amount: 5 });
    expect(await fieldsOf(validateHandlerPayload(db, "ledger.post", { from: "a", to: "b", amount: 0 }))).toHaveProperty("payload.amount");
    expect(await fieldsOf(validateHandlerPayload(db, "ledger.post", { from: "a", to: "a", amount: 1 }))).toHaveProperty("payload.to");
    expect((await fieldsOf(validateHandlerPayload(db, "ledger.post", { from: "a", to: "b", amount: 1.5 })))["payload.amount"]).toMatch(
      /whole/,
    );
    expect(await fieldsOf(validateHandlerPayload(db, "ledger.post", { from: "a", to: "b", amount: 1, extra: 1 }))).toHaveProperty(
      "payload",
    );
    expect(await validateHandlerPayload(db, "http.request", { url: "https://example.com/x" })).toMatchObject({
      method: "GET",
      url: "https://example.com/x",
    });
    expect((await fieldsOf(validateHandlerPayload(db, "http.request", { url: "file:///etc/passwd" })))["payload.url"]).toMatch(/http/);
    expect(await validateHandlerPayload(db, "demo.sleep", { ms: 10 })).toEqual({ ms: 10, records: 1 });
    expect(await validateHandlerPayload(db, "demo.hang", undefined)).toEqual({});
  });

  it("refuses a handler no worker ever served, saying how to fix it", async () => {
    const fields = await fieldsOf(validateHandlerPayload(getPool(), "payouts.send", { batch: "abc" }));
    expect(fields.handler).toMatch(/No worker has ever served handler "payouts.send"/);
    expect(fields.handler).toMatch(/VIGIL_HANDLERS/);
  });

  it("validates an advertised handler's payload against its JSON Schema and counts live workers", async () => {
    const db = getPool();
    await registerWorker("w-live");
    await registerWorker("w-dead", 60_000);
    const spec = describeHandler(payoutsSpec, { source: "/srv/jobs/payouts.ts", builtin: false, code: "v1" });
    await advertiseHandlers(db, "w-live", [spec]);
    await advertiseHandlers(db, "w-dead", [describeHandler(payoutsSpec, { source: "/srv/jobs/payouts.ts", builtin: false, code: "v0" })]);

    expect(await validateHandlerPayload(db, "payouts.send", { batch: "abc" })).toEqual({ batch: "abc" });
    const fields = await fieldsOf(validateHandlerPayload(db, "payouts.send", { batch: "ab", limit: 500, nope: 1 }));
    expect(Object.keys(fields).sort()).toEqual(["payload.batch", "payload.limit", "payload.nope"]);

    const listed = (await listHandlers(db, { deadAfterMs: 10_000 })).find((h) => h.name === "payouts.send")!;
    // The dead worker's older version does not count; the catalog keeps the newest advertised spec.
    expect(listed).toMatchObject({ builtin: false, liveWorkers: 1, liveVersions: 1, source: "/srv/jobs/payouts.ts" });
    expect(listed.payloadSchema).toMatchObject({ required: ["batch"] });
  });
});
