import { beforeAll, describe, expect, it } from "vitest";
import { NextRequest } from "next/server";
import { getPool } from "@/core/db/pool";
import { useTestDatabase } from "@/test/db";
import { createTestToken } from "@/test/auth";
import * as overview from "../overview/route";
import * as schedules from "../schedules/route";
import * as health from "../health/route";
import * as alertSummary from "../alerts/summary/route";

const db = useTestDatabase("conditional_json");
let viewer: string;
let operator: string;

beforeAll(async () => {
  viewer = await createTestToken(db.url, "viewer");
  operator = await createTestToken(db.url, "operator");
});

async function get(handler: typeof overview.GET, path: string, token: string, etag?: string) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (etag) headers["if-none-match"] = etag;
  const res = await handler(new NextRequest(new URL(path, "http://localhost:3000"), { headers }), { params: Promise.resolve({}) });
  return { status: res.status, etag: res.headers.get("etag"), text: await res.text() };
}

/**
 * A first answer and its revalidation's status (304 expected). The tag carries a time slice
 * (CONSOLE_VERSION_SLICE_SECONDS): two requests on either side of a slice boundary differ by it alone, so a pair
 * that straddled one is asked again once.
 */
async function revalidated(handler: typeof overview.GET, path: string) {
  for (let i = 0; ; i++) {
    const first = await get(handler, path, viewer);
    const status = (await get(handler, path, viewer, first.etag!)).status;
    if (status === 304 || i === 1) {
      expect(status).toBe(304);
      return first;
    }
  }
}

describe("polled reads answer 304 while nothing they show has changed", () => {
  it("the schedules list: 304 to its ETag, 200 with a new one after a change, and a role sees its own ETag", async () => {
    await getPool().query(
      `INSERT INTO schedules (name, handler, trigger) VALUES ('etag-a', 'demo.noop', '{"kind":"interval","everySeconds":60}')`,
    );
    const first = await get(schedules.GET, "/api/schedules", viewer);
    expect(first.status).toBe(200);
    expect(first.etag).toMatch(/^W\/".+"$/);
    const again = await get(schedules.GET, "/api/schedules", viewer, first.etag!);
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    // Another role may see another payload (masked credentials): never the viewer's answer.
    expect((await get(schedules.GET, "/api/schedules", operator, first.etag!)).status).toBe(200);
    await getPool().query(`UPDATE schedules SET description = 'changed', updated_at = clock_timestamp() WHERE name = 'etag-a'`);
    const changed = await get(schedules.GET, "/api/schedules", viewer, first.etag!);
    expect(changed.status).toBe(200);
    expect(JSON.parse(changed.text).schedules[0].description).toBe("changed");
  });

  it("the header's overview: 304 until a run changes state", async () => {
    const first = await revalidated(overview.GET, "/api/overview");
    const { rows } = await getPool().query(`SELECT id FROM schedules WHERE name = 'etag-a'`);
    await getPool().query(
      `INSERT INTO runs (schedule_id, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds)
       VALUES ($1, clock_timestamp(), clock_timestamp(), 'etag-run', 'missed', 'demo.noop', 60, 5)`,
      [rows[0].id],
    );
    const after = await get(overview.GET, "/api/overview", viewer, first.etag!);
    expect(after.status).toBe(200);
    expect(JSON.parse(after.text).lastHour.missed).toBe(1);
  });

  it("the health pill and the alert badge: 304 while their answer is the same, 200 when it changes", async () => {
    const h = await get(health.GET, "/api/health", viewer);
    expect(h.status).toBe(200);
    expect(h.etag).toMatch(/^W\/"h.+"$/);
    const h2 = await get(health.GET, "/api/health", viewer, h.etag!);
    expect(h2.status).toBe(304);
    expect(h2.text).toBe("");
    // A worker comes up: the pill's answer changes.
    await getPool().query(`INSERT INTO workers (id, host, pid, version) VALUES ('etag-worker', 'h', 1, 'test')`);
    const h3 = await get(health.GET, "/api/health", viewer, h.etag!);
    expect(h3.status).toBe(200);
    expect(JSON.parse(h3.text).worker).toBe("up");

    const a = await get(alertSummary.GET, "/api/alerts/summary", viewer);
    expect(a.status).toBe(200);
    expect((await get(alertSummary.GET, "/api/alerts/summary", viewer, a.etag!)).status).toBe(304);
    await getPool().query(`INSERT INTO alerts (kind, dedupe_key, message) VALUES ('missed', 'etag-alert', 'a run was missed')`);
    const a2 = await get(alertSummary.GET, "/api/alerts/summary", viewer, a.etag!);
    expect(a2.status).toBe(200);
    expect(JSON.parse(a2.text).open).toBe(1);
  });
});
