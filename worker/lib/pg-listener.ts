// A dedicated LISTEN connection that reconnects by itself. Notifications can be lost while it is
// down, so every user pairs it with a poll and gets onConnect() to catch up after a reconnect.
import pg from "pg";
import type { Logger } from "../../core/log";

export interface PgListener {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createPgListener(opts: {
  connectionString: string;
  channels: string[];
  name: string;
  log: Logger;
  onNotify: (channel: string, payload: string) => void;
  onConnect?: () => void;
}): PgListener {
  let client: pg.Client | null = null;
  let stopped = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let failures = 0;

  const connect = async (): Promise<void> => {
    if (stopped) return;
    const c = new pg.Client({ connectionString: opts.connectionString, application_name: opts.name, keepAlive: true });
    client = c;
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      if (client === c) client = null;
      c.removeAllListeners("notification");
      void c.end().catch(() => undefined);
      if (stopped) return;
      failures++;
      const delay = Math.min(2000, 50 * 2 ** Math.min(failures, 6));
      opts.log.warn({ err, listener: opts.name, retryInMs: delay }, "LISTEN connection lost; reconnecting");
      retryTimer = setTimeout(() => void connect(), delay);
    };
    c.on("error", (err) => onLost(err));
    c.on("end", () => onLost());
    c.on("notification", (n) => opts.onNotify(n.channel, n.payload ?? ""));
    try {
      await c.connect();
      for (const ch of opts.channels) await c.query(`LISTEN ${pg.escapeIdentifier(ch)}`);
      failures = 0;
      opts.onConnect?.();
    } catch (err) {
      onLost(err as Error);
    }
  };

  return {
    start: connect,
    async stop() {
      stopped = true;
      clearTimeout(retryTimer);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
