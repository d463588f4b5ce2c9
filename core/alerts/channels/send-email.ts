// One alert email over SMTP (nodemailer), under the egress policy: the SMTP host's name is resolved here, every
// address is checked like an HTTP call's (core/http/egress/), and nodemailer connects to the checked address
// (the name kept for TLS), so a name that resolves elsewhere between check and connect cannot slip through.
import dns from "node:dns/promises";
import net from "node:net";
import nodemailer from "nodemailer";
import { allowsHostName, checkEgressAddress, egressPolicyFromEnv, type EgressPolicy } from "../../http/egress/egress-policy";
import type { SendResult } from "../webhook/send-webhook";
import type { EmailSettings } from "./alert-channel-types";

export interface Email {
  subject: string;
  text: string;
  html: string;
}

async function connectAddress(host: string, policy: EgressPolicy): Promise<string> {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  if (net.isIP(bare)) {
    const refused = checkEgressAddress(policy, bare);
    if (refused) throw refused;
    return bare;
  }
  const addresses = await dns.lookup(bare, { all: true });
  if (!allowsHostName(policy, bare)) {
    for (const a of addresses) {
      const refused = checkEgressAddress(policy, a.address, bare);
      if (refused) throw refused;
    }
  }
  const first = addresses[0];
  if (!first) throw new Error(`${bare} has no address`);
  return first.address;
}

export async function sendEmail(
  settings: EmailSettings,
  password: string | undefined,
  email: Email,
  opts: { timeoutMs: number; policy?: EgressPolicy },
): Promise<SendResult> {
  const started = performance.now();
  try {
    const address = await connectAddress(settings.host, opts.policy ?? egressPolicyFromEnv());
    const transport = nodemailer.createTransport({
      host: address,
      port: settings.port,
      secure: settings.secure,
      auth: settings.user ? { user: settings.user, pass: password ?? "" } : undefined,
      tls: { servername: net.isIP(settings.host) ? undefined : settings.host },
      connectionTimeout: opts.timeoutMs,
      greetingTimeout: opts.timeoutMs,
      socketTimeout: opts.timeoutMs,
    });
    try {
      const info = await transport.sendMail({
        from: settings.from,
        to: settings.to,
        subject: email.subject,
        text: email.text,
        html: email.html,
      });
      const refused = info.rejected.length;
      if (refused > 0)
        return { ok: false, status: null, error: `the server refused ${refused} recipient(s)`, durationMs: performance.now() - started };
      return { ok: true, status: null, error: null, durationMs: performance.now() - started };
    } finally {
      transport.close();
    }
  } catch (err) {
    const e = err as Error & { code?: string; responseCode?: number };
    const error = e.name === "EgressRefusedError" ? e.message : `${e.code ? `${e.code}: ` : ""}${e.message}`;
    return { ok: false, status: e.responseCode ?? null, error: error.slice(0, 500), durationMs: performance.now() - started };
  }
}
