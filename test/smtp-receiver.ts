// A real SMTP server (smtp-server) on 127.0.0.1 standing in for a mail relay: keeps every message it accepts,
// with its subject and its text and HTML parts decoded (encoded words, quoted-printable, base64), and the
// login it was given. `password` set: only that login is accepted.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedEmail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  text: string;
  html: string;
  /** The user the client logged in as, if it did. */
  user: string | null;
}

export interface SmtpReceiver {
  host: string;
  port: number;
  messages: ReceivedEmail[];
  /** Login attempts refused (a wrong password). */
  refusedLogins: number;
  close(): Promise<void>;
}

const decodeBytes = (s: string) =>
  Buffer.from(
    s.replace(/=([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
    "latin1",
  ).toString("utf8");

function decodeWords(header: string): string {
  return header
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_m, _charset: string, enc: string, text: string) =>
      enc.toUpperCase() === "B" ? Buffer.from(text, "base64").toString("utf8") : decodeBytes(text.replace(/_/g, " ")),
    );
}

function splitHeaders(block: string): { headers: Map<string, string>; body: string } {
  const at = block.indexOf("\r\n\r\n");
  const head = (at < 0 ? block : block.slice(0, at)).replace(/\r\n[ \t]+/g, " ");
  const headers = new Map<string, string>();
  for (const line of head.split("\r\n")) {
    const i = line.indexOf(":");
    if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  return { headers, body: at < 0 ? "" : block.slice(at + 4) };
}

function decodeBody(headers: Map<string, string>, body: string): string {
  const enc = (headers.get("content-transfer-encoding") ?? "").toLowerCase();
  if (enc === "quoted-printable") return decodeBytes(body.replace(/=\r\n/g, ""));
  if (enc === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  return body;
}

/** Text and HTML of a message: its parts, depth first, the first of each type. */
export function parseEmail(raw: string): { subject: string; text: string; html: string } {
  const out = { subject: "", text: "", html: "" };
  const walk = (block: string, top: boolean) => {
    const { headers, body } = splitHeaders(block);
    if (top) out.subject = decodeWords(headers.get("subject") ?? "");
    const type = headers.get("content-type") ?? "text/plain";
    const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
    if (type.startsWith("multipart/") && boundary) {
      for (const part of body.split(`--${boundary}`).slice(1)) if (!part.startsWith("--")) walk(part.replace(/^\r\n/, ""), false);
      return;
    }
    if (type.startsWith("text/html") && !out.html) out.html = decodeBody(headers, body);
    else if (type.startsWith("text/plain") && !out.text) out.text = decodeBody(headers, body);
  };
  walk(raw, true);
  return out;
}

export async function startSmtpReceiver(login?: { user: string; password: string }): Promise<SmtpReceiver> {
  const messages: ReceivedEmail[] = [];
  let refusedLogins = 0;
  const server = new SMTPServer({
    authOptional: !login,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth(auth, _session, callback) {
      if (login && auth.username === login.user && auth.password === login.password) return callback(null, { user: auth.username });
      refusedLogins++;
      callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          ...parseEmail(raw),
          user: typeof session.user === "string" ? session.user : null,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    host: "127.0.0.1",
    port,
    messages,
    get refusedLogins() {
      return refusedLogins;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
