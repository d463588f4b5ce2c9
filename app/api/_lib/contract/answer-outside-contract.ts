// Whether a success answer is what the API contract (GET /api/openapi.json) promises: the route's own `answer`
// schema, the one the contract publishes. The db tests check every answer they receive (test/call-route.ts); with
// VIGIL_CHECK_ANSWERS=true the console checks every answer it sends and logs the ones outside the contract, which
// the e2e suite turns into a failure when it stops (e2e/global-setup.ts). Only paths and zod messages are reported,
// never values: an answer may hold what a log must not.
import type { z } from "zod";

interface AnswerSpec {
  answer?: z.ZodType;
  answerMedia?: string;
}

/** The reasons a JSON success answer falls outside its route's contract, one line each; null when it fits or is not JSON. */
export function answerOutsideContract(spec: AnswerSpec | undefined, status: number, body: unknown): string[] | null {
  const answer = spec?.answer;
  if (!answer || spec?.answerMedia || status < 200 || status >= 300 || body === null || body === undefined) return null;
  const parsed = answer.safeParse(body);
  if (parsed.success) return null;
  return parsed.error.issues.map((i) => `${i.path.join(".") || "(answer)"}: ${i.message}`);
}

/** The log message that marks an answer outside the contract (the e2e suite looks for it). */
export const OUTSIDE_CONTRACT_MESSAGE = "API answer outside its contract";
