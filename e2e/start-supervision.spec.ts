// Fault test of `npm start`'s supervision: the embedded PostgreSQL's postmaster is killed (SIGKILL) under a
// running console and worker with a schedule firing every 2 s. The launcher must start it again on the same data
// folder; meanwhile every API call answers 200 or 503 database_unavailable (never 500); health is back within
// 30 s, the worker resumes scheduling without being restarted, and nothing is lost.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { freePort } from "../test/postgres-for-tests";
import { waitFor } from "../test/wait-for";

test.describe.configure({ timeout: 240_000 });

const ADMIN = { email: "supervision@vigil.test", password: "correct-horse-battery-staple" };

interface Health {
  status?: string;
  ready?: boolean;
  database?: string;
}
interface RunRow {
  id: string;
  state: string;
  plannedAt: string;
}

test("a killed PostgreSQL is restarted by npm start; the API answers 503 (never 500) meanwhile and scheduling resumes", async ({
  browser,
}) => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-supervise-"));
  const dataDir = path.join(parent, "pgdata");
  const pgPort = await freePort();
  const httpPort = await freePort();
  const base = `http://127.0.0.1:${httpPort}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    VIGIL_DATA_DIR: dataDir,
    VIGIL_PG_PORT: String(pgPort),
    PORT: String(httpPort),
    VIGIL_ADMIN_EMAIL: ADMIN.email,
    VIGIL_ADMIN_PASSWORD: ADMIN.password,
  };
  delete env.DATABASE_URL;
  const output: string[] = [];
  const log = () => output.join("");
  const child: ChildProcess = spawn("npm", ["start"], { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (d) => output.push(String(d)));
  child.stderr!.on("data", (d) => output.push(String(d)));
  /** Where the server keeps the data: the data folder, or the folder npm start announced instead (as root). */
  const serverDataDir = () => /the database is kept in (\S+pgdata)/.exec(log())?.[1] ?? dataDir;
  // A launcher that exits fails the test at once instead of at the end of a wait.
  const launcherExit = new Promise<never>((_r, reject) =>
    child.on("exit", (code) => reject(new Error(`npm start exited (${code}):\n${log().slice(-3000)}`))),
  );
  launcherExit.catch(() => undefined);
  const until = <T>(...args: Parameters<typeof waitFor<T>>) => Promise.race([waitFor<T>(...args), launcherExit]);
  const health = async (): Promise<Health | null> => {
    try {
      return (await (await fetch(`${base}/api/health`)).json()) as Health;
    } catch {
      return null;
    }
  };

  let polling = true;
  let launcherPaused: number | null = null;
  const pollers: Promise<void>[] = [];
  try {
    await until("console and worker up", async () => (await health())?.ready === true, { timeoutMs: 180_000, intervalMs: 500 });

    const login = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base },
      body: JSON.stringify(ADMIN),
    });
    expect(login.status, await login.clone().text()).toBe(200);
    const cookie = login.headers
      .getSetCookie()
      .find((c) => c.startsWith("vigil_session="))!
      .split(";")[0]!;
    const api = (p: string, init: RequestInit = {}) =>
      fetch(`${base}${p}`, { ...init, headers: { cookie, origin: base, "content-type": "application/json", ...init.headers } });

    const created = await api("/api/schedules", {
      method: "POST",
      body: JSON.stringify({
        name: "every-two-seconds",
        handler: "demo.noop",
        payload: {},
        trigger: { kind: "interval", everySeconds: 2 },
      }),
    });
    expect(created.status, await created.clone().text()).toBe(200);
    const scheduleId = ((await created.json()) as { schedule: { id: string } }).schedule.id;
    const succeeded = async () =>
      ((await (await api(`/api/runs?scheduleId=${scheduleId}&state=succeeded&limit=500`)).json()) as { runs: RunRow[] }).runs;
    const before = await until(
      "two runs succeeded before the kill",
      async () => {
        const runs = await succeeded();
        return runs.length >= 2 && runs;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );

    // Poll a few routes for the whole outage: each answer must be 200, or 503 with code database_unavailable.
    const answers: { route: string; status: number; code?: string }[] = [];
    for (const route of [
      "/api/health",
      "/api/schedules",
      `/api/runs?scheduleId=${scheduleId}`,
      "/api/workers",
      `/api/schedules/${scheduleId}`,
    ]) {
      pollers.push(
        (async () => {
          while (polling) {
            const started = performance.now();
            try {
              const res = await api(route);
              const body = (await res.json().catch(() => null)) as { error?: { code?: string } } | null;
              answers.push({ route, status: res.status, code: body?.error?.code });
            } catch (err) {
              answers.push({ route, status: 0, code: `console unreachable: ${(err as Error).message}` });
            }
            await new Promise((r) => setTimeout(r, Math.max(0, 200 - (performance.now() - started))));
          }
        })(),
      );
    }

    // The console in a browser: the header shows the database up.
    const context = await browser.newContext({
      storageState: {
        cookies: [
          {
            name: "vigil_session",
            value: cookie.slice("vigil_session=".length),
            domain: "127.0.0.1",
            path: "/",
            expires: -1,
            httpOnly: true,
            secure: false,
            sameSite: "Lax",
          },
        ],
        origins: [],
      },
    });
    const page = await context.newPage();
    await page.goto(`${base}/schedules`);
    await expect(page.getByTestId("health-db")).toHaveText(/DB up/, { timeout: 30_000 });
    await expect(page.getByTestId("db-unavailable")).toHaveCount(0);

    const pidFile = path.join(serverDataDir(), "postmaster.pid");
    const postmaster = Number(fs.readFileSync(pidFile, "utf8").split("\n")[0]);
    expect(postmaster).toBeGreaterThan(0);
    // The launcher is the postmaster's parent. Paused (SIGSTOP) for a moment, it cannot restart the server yet, so
    // the outage lasts long enough for the browser to show it; the console and the worker keep running meanwhile.
    const launcher = Number(/^PPid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${postmaster}/status`, "utf8"))![1]);
    process.kill(launcher, "SIGSTOP");
    launcherPaused = launcher;
    const killedAt = performance.now();
    process.kill(postmaster, "SIGKILL");
    try {
      await expect(page.getByTestId("db-unavailable")).toHaveText("Database unavailable — retrying", { timeout: 10_000 });
      await expect(page.getByTestId("health-db")).toHaveText(/DB down/);
    } finally {
      process.kill(launcher, "SIGCONT");
      launcherPaused = null;
    }

    await until("the launcher to report the death", () => log().includes("the embedded PostgreSQL died"), { timeoutMs: 10_000 });
    await until("health ok again", async () => (await health())?.ready === true, { timeoutMs: 30_000, intervalMs: 200 });
    const recoveredMs = performance.now() - killedAt;
    expect(log()).toContain("the embedded PostgreSQL is back");
    console.log(`health ok ${Math.round(recoveredMs)} ms after SIGKILL of the postmaster (the launcher was paused for part of it)`);
    // The page recovers by itself: the banner goes, the header says up, the schedules list is there.
    await expect(page.getByTestId("db-unavailable")).toHaveCount(0, { timeout: 10_000 });
    await expect(page.getByTestId("health-db")).toHaveText(/DB up/);
    await expect(page.getByText("every-two-seconds")).toBeVisible();
    await context.close();

    // Scheduling resumes: a run planned after recovery succeeds (the worker was not restarted for it).
    const recoveredAt = Date.now();
    await until(
      "a run planned after recovery to succeed",
      async () => (await succeeded()).some((r) => Date.parse(r.plannedAt) > recoveredAt),
      {
        timeoutMs: 30_000,
        intervalMs: 500,
      },
    );
    // The worker heartbeats again (it was not restarted: the same worker, a heartbeat newer than the recovery).
    await until(
      "the worker to heartbeat after recovery",
      async () => {
        const { workers } = (await (await api("/api/workers")).json()) as { workers: { heartbeatAt: string; stoppedAt?: string | null }[] };
        return workers.some((w) => !w.stoppedAt && Date.parse(w.heartbeatAt) > recoveredAt);
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    polling = false;
    await Promise.all(pollers);

    const bad = answers.filter((a) => !(a.status === 200 || (a.status === 503 && a.code === "database_unavailable")));
    expect(bad, `answers other than 200 / 503 database_unavailable:\n${JSON.stringify(bad.slice(0, 20))}\n${log().slice(-3000)}`).toEqual(
      [],
    );
    expect(answers.length).toBeGreaterThan(20);
    console.log(`${answers.length} polled answers, ${answers.filter((a) => a.status === 503).length} of them 503 database_unavailable`);
    expect(log()).not.toMatch(/\[start\] worker exited/);

    // Nothing lost: the schedule and every run that had succeeded before the kill, and the audit chain verifies.
    expect((await api(`/api/schedules/${scheduleId}`)).status).toBe(200);
    const after = new Set((await succeeded()).map((r) => r.id));
    for (const r of before) expect(after.has(r.id), `run ${r.id} lost`).toBe(true);
    const verify = (await (await api("/api/audit/verify")).json()) as { ok: boolean };
    expect(verify.ok).toBe(true);
  } finally {
    if (launcherPaused) process.kill(launcherPaused, "SIGCONT");
    polling = false;
    await Promise.all(pollers);
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.on("exit", r));
      process.kill(-child.pid!, "SIGINT");
      await exited;
    }
  }
  fs.writeFileSync(test.info().outputPath("npm-start.log"), log());
  await waitFor("the launcher to report it stopped", () => log().includes("[start] stopped"), { timeoutMs: 30_000 });
  fs.rmSync(path.dirname(serverDataDir()), { recursive: true, force: true });
  fs.rmSync(parent, { recursive: true, force: true });
});
