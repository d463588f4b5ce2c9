// The HTTP client for every call Vigil makes on someone's behalf, with the egress policy applied where it cannot
// be dodged: an IP literal is checked before anything is sent, a host name at the moment its socket connects (the
// connection's own DNS lookup is the checked one), and redirects are followed here, hop by hop, each hop checked
// the same way. Built on node:http(s) because the global fetch offers no hook on the address it connects to.
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { Readable } from "node:stream";
import { allowsHostName, checkEgressAddress, egressLookup, egressPolicyFromEnv, type EgressPolicy } from "./egress-policy.ts";

export const MAX_REDIRECTS = 10;

export interface EgressRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** "follow" (at most MAX_REDIRECTS hops, each checked) or "manual" (a 3xx is the answer). */
  redirect?: "follow" | "manual";
  /** The operator's policy (VIGIL_EGRESS_ALLOW) unless given. */
  policy?: EgressPolicy;
}

const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/** Like fetch(url, init), answering a standard Response; throws EgressRefusedError for a refused address. */
export async function egressFetch(url: string, init: EgressRequest = {}): Promise<Response> {
  const policy = init.policy ?? egressPolicyFromEnv();
  let target = new URL(url);
  let method = (init.method ?? "GET").toUpperCase();
  let body = init.body;
  const headers: Record<string, string> = { accept: "*/*" };
  for (const [k, v] of Object.entries(init.headers ?? {})) headers[k.toLowerCase()] = v;
  if (body !== undefined && headers["content-type"] === undefined) headers["content-type"] = "text/plain;charset=UTF-8";
  for (let hop = 0; ; hop++) {
    const res = await requestOnce(target, method, headers, body, init.signal, policy);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (init.redirect === "manual" || ![301, 302, 303, 307, 308].includes(status) || !location) return toResponse(res, method);
    res.resume();
    if (hop >= MAX_REDIRECTS) throw new Error(`${url}: more than ${MAX_REDIRECTS} redirects (the last to ${location.slice(0, 200)})`);
    const next = new URL(location, target);
    if (next.protocol !== "http:" && next.protocol !== "https:") throw new Error(`${url}: redirect to a ${next.protocol} URL refused`);
    // As fetch does: 303 (and 301/302 after a POST) turn into a GET without a body.
    if ((status === 303 && method !== "HEAD") || ((status === 301 || status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
      delete headers["content-type"];
    }
    // Credentials meant for one origin are not handed to another.
    if (next.origin !== target.origin) for (const h of CREDENTIAL_HEADERS) delete headers[h];
    target = next;
  }
}

function requestOnce(
  target: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal | undefined,
  policy: EgressPolicy,
): Promise<http.IncomingMessage> {
  // As fetch does: credentials in a URL are refused rather than silently dropped or sent.
  if (target.username || target.password) return Promise.reject(new TypeError("a URL to call cannot include credentials (user:password@)"));
  const host = target.hostname.replace(/^\[(.*)\]$/, "$1");
  const byName = allowsHostName(policy, host);
  if (!byName && net.isIP(host)) {
    // An IP literal connects without a lookup: check it here, before any socket exists.
    const refused = checkEgressAddress(policy, host);
    if (refused) return Promise.reject(refused);
  }
  if (signal?.aborted) return Promise.reject(signal.reason);
  const client = target.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request({
      protocol: target.protocol,
      hostname: host,
      port: target.port || undefined,
      path: `${target.pathname}${target.search}`,
      method,
      headers: { ...headers, ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}) },
      signal,
      // A connection of its own: a pooled socket would carry another call's checked address and policy.
      agent: false,
      ...(byName ? {} : { lookup: egressLookup(policy) }),
      ...(target.protocol === "https:" && !net.isIP(host) ? { servername: host } : {}),
    });
    req.on("response", resolve);
    // An aborted call fails with the abort's reason, as fetch does (a timeout reads "aborted due to timeout").
    req.on("error", (err) => reject(signal?.aborted ? signal.reason : err));
    req.end(body);
  });
}

function toResponse(res: http.IncomingMessage, method: string): Response {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) {
    res.destroy();
    throw new Error(`answered with an invalid HTTP status ${status}`);
  }
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i]!, raw[i + 1]!);
    } catch {
      // A header value fetch would not accept either: left out.
    }
  }
  const empty = method === "HEAD" || NULL_BODY_STATUS.has(status);
  if (empty) res.resume();
  const body = empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: res.statusMessage ?? "", headers });
}
