import { describe, expect, it } from "vitest";
import { slackText, webhookBody, webhookFormatSchema, type WebhookMessage } from "./webhook-format";

const message = (over: Partial<WebhookMessage["alert"]> = {}, event: WebhookMessage["event"] = "opened"): WebhookMessage => ({
  id: 7,
  event,
  attempt: 1,
  alert: {
    id: "a1",
    kind: "missed",
    severity: "critical",
    message: "the run planned at 2026-12-01 09:00:00+00:00 never started",
    scheduleId: "s1",
    scheduleName: "nightly-reconcile",
    runId: null,
    openedAt: new Date("2026-12-01T09:01:00Z"),
    lastSeenAt: new Date("2026-12-01T09:01:00Z"),
    resolvedAt: null,
    resolution: null,
    occurrences: 1,
    acknowledgedAt: null,
    acknowledgedBy: null,
    data: {},
    ...over,
  },
});

describe("alert webhook formats", () => {
  it("a Slack-style body is only a text line naming the kind, the schedule, the message and the severity", () => {
    const body = JSON.parse(webhookBody(message(), "slack"));
    expect(Object.keys(body)).toEqual(["text"]);
    expect(body.text).toBe("🔴 Missed opened — nightly-reconcile: the run planned at 2026-12-01 09:00:00+00:00 never started (critical)");
  });

  it("says when an alert resolved and why, and escapes what Slack would read as links or mentions", () => {
    expect(slackText(message({ resolution: "a later run started" }, "resolved"))).toMatch(
      /^✅ Missed resolved \(a later run started\) — nightly-reconcile/,
    );
    expect(slackText(message({ message: "<!channel> & <http://x|y>" }))).toContain("&lt;!channel&gt; &amp; &lt;http://x|y&gt;");
    expect(slackText(message({ kind: "late", severity: "warning", scheduleName: null }))).toMatch(/^🟠 Late opened: /);
  });

  it("Vigil's own JSON keeps its shape", () => {
    expect(JSON.parse(webhookBody(message(), "vigil"))).toMatchObject({
      type: "alert.opened",
      deliveryId: "7",
      attempt: 1,
      alert: { kind: "missed", scheduleName: "nightly-reconcile" },
    });
  });

  it("refuses an unknown format with a message that lists the choices", () => {
    const r = webhookFormatSchema.safeParse("teams");
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toMatch(/"vigil".*"slack"/);
  });
});
