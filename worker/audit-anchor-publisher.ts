// Publishes the audit chain head every VIGIL_AUDIT_ANCHOR_INTERVAL seconds when it moved (one worker at a time:
// core/audit/publish-audit-anchor.ts). A trail that no longer matches the last anchor is logged as an error on
// every tick until someone looks.
import type pg from "pg";
import type { Env } from "../core/env";
import type { Logger } from "../core/log";
import { publishAuditAnchor, type AnchorSinks } from "../core/audit/publish-audit-anchor";
import { every, type WorkerService } from "./service";

export function anchorSinksFromEnv(env: Env, userAgent: string): AnchorSinks {
  return {
    file: env.VIGIL_AUDIT_ANCHOR_FILE,
    webhook: env.VIGIL_AUDIT_ANCHOR_WEBHOOK
      ? {
          url: env.VIGIL_AUDIT_ANCHOR_WEBHOOK,
          secret: env.VIGIL_AUDIT_ANCHOR_WEBHOOK_SECRET ?? env.VIGIL_ALERT_WEBHOOK_SECRET ?? null,
          timeoutMs: env.VIGIL_ALERT_WEBHOOK_TIMEOUT_MS,
          userAgent,
        }
      : undefined,
  };
}

export function createAuditAnchorPublisher(opts: {
  pool: pg.Pool;
  env: Env;
  log: Logger;
  workerId: string;
  version: string;
}): WorkerService {
  const log = opts.log.child({ service: "audit-anchor" });
  const sinks = anchorSinksFromEnv(opts.env, `vigil/${opts.version}`);
  const intervalMs = opts.env.VIGIL_AUDIT_ANCHOR_INTERVAL * 1000;
  const loop = every(
    intervalMs,
    async () => {
      await publishAuditAnchor(opts.pool, { sinks, publishedBy: opts.workerId, log });
    },
    (err) => log.error({ err }, "audit anchor publication failed (retried next interval)"),
  );
  return {
    name: "audit-anchor",
    async start() {
      if (intervalMs > 0) loop.start();
    },
    async stop() {
      await loop.stop();
    },
  };
}
