import { describe, expect, it } from "vitest";
import { emailHtml, emailSubject, emailText, pagerdutyEvent, teamsMessage, type ChannelMessage } from "./channel-message";

const message = (event: ChannelMessage["event"] = "opened", over: Partial<ChannelMessage["alert"]> = {}): ChannelMessage => ({
  event,
  dedupeKey: "missed:s1",
  consoleUrl: "https://vigil.example.com/",
  alert: {
    id: "a1",
    kind: "missed",
    severity: "critical",
    message: "the run planned at 09:00 never started <b>",
    scheduleId: "s1",
    scheduleName: "nightly-reconcile",
    runId: null,
    openedAt: new Date("2026-12-01T09:01:00Z"),
    lastSeenAt: new Date("2026-12-01T09:01:00Z"),
    resolvedAt: null,
    resolution: null,
    occurrences: 2,
    acknowledgedAt: null,
    acknowledgedBy: null,
    data: {},
    ...over,
  },
});

describe("channel messages", () => {
  it("an email names severity, kind and schedule in its subject, and links the schedule's page", () => {
    expect(emailSubject(message())).toBe("[Vigil] CRITICAL Missed opened — nightly-reconcile");
    expect(emailSubject(message("resolved", { kind: "late", severity: "warning", scheduleName: null }))).toBe(
      "[Vigil] WARNING Late resolved",
    );
    const text = emailText(message());
    expect(text).toContain("Schedule: nightly-reconcile");
    expect(text).toContain("Occurrences: 2");
    expect(text).toContain("Open in Vigil: https://vigil.example.com/schedules/s1");
    expect(emailHtml(message())).toContain("never started &lt;b&gt;");
    expect(emailText(message("opened", {}))).not.toContain("undefined");
  });

  it("PagerDuty: trigger carries the payload; acknowledge and resolve only the key and the action", () => {
    const trigger = pagerdutyEvent(message(), "rk");
    expect(trigger).toMatchObject({
      routing_key: "rk",
      event_action: "trigger",
      dedup_key: "missed:s1",
      payload: { severity: "critical", source: "vigil", component: "nightly-reconcile", class: "missed" },
      links: [{ href: "https://vigil.example.com/schedules/s1" }],
    });
    expect(pagerdutyEvent(message("acknowledged"), "rk")).toEqual({
      routing_key: "rk",
      event_action: "acknowledge",
      dedup_key: "missed:s1",
    });
    expect(pagerdutyEvent(message("resolved"), "rk")).toEqual({ routing_key: "rk", event_action: "resolve", dedup_key: "missed:s1" });
  });

  it("Teams: one Adaptive Card with the title, the facts and an Open in Vigil action", () => {
    const card = (teamsMessage(message()) as { attachments: { content: Record<string, unknown> }[] }).attachments[0]!.content;
    expect(card).toMatchObject({
      type: "AdaptiveCard",
      version: "1.4",
      body: [
        { type: "TextBlock", text: "Missed opened — nightly-reconcile", color: "Attention" },
        { type: "TextBlock" },
        { type: "FactSet" },
      ],
      actions: [{ type: "Action.OpenUrl", url: "https://vigil.example.com/schedules/s1" }],
    });
  });
});
