"use client";
import Link from "next/link";
import type { ReactNode } from "react";
import { useQuery } from "@tanstack/react-query";
import { RunsTable } from "../runs/runs-table";
import { formatDuration, formatInZone } from "../ui/time-format";
import { DailyHistory } from "./daily-history";
import { FirePreview } from "./fire-preview";
import { LatenessSparkline } from "./lateness-sparkline";
import { MISFIRE_POLICIES, OVERLAP_POLICIES } from "./policy-fields";
import { ScheduleActions } from "./schedule-actions";
import { ScheduleState } from "./schedule-state";
import { scheduleQuery, type ScheduleView } from "./schedules-queries";
import type { TriggerBody } from "./schedule-form-values";
import { HandlerName } from "./handler-availability";
import { TagList } from "./tag-list";
import { policyLabel } from "../calendars/calendars-list";

const CHAIN_MAPPING_LABELS: Record<string, string> = {
  same_time: "same planned time",
  latest_before: "latest at or before",
  same_day: "same calendar day",
};

/** The saved trigger as the preview should read it: an interval counts from the schedule's creation. */
function savedTrigger(s: ScheduleView): TriggerBody {
  if (s.trigger.kind === "interval") return { ...s.trigger, anchor: s.trigger.anchor ?? s.createdAt } as TriggerBody;
  return s.trigger;
}

function Policies({ s }: { s: ScheduleView }) {
  const rows: [string, ReactNode, string?][] = [
    ["Overlap", s.overlapPolicy, OVERLAP_POLICIES[s.overlapPolicy]],
    [
      "Misfire",
      `${s.misfirePolicy}${s.misfirePolicy === "catch_up" ? ` (up to ${s.catchUpLimit})` : ""}`,
      MISFIRE_POLICIES[s.misfirePolicy],
    ],
    ["Starting deadline", `${s.startingDeadlineSeconds} s`, "Not started by then → missed."],
    ["Timeout", `${s.timeoutSeconds} s + ${s.graceSeconds} s grace`, "Aborted at the timeout, killed after the grace."],
    [
      "Retries",
      s.retryMaxAttempts > 1 ? `${s.retryMaxAttempts} attempts, backoff ${s.retryBaseSeconds}–${s.retryMaxSeconds} s` : "none",
      s.retryMaxAttempts > 1 ? "Exponential backoff with full jitter." : undefined,
    ],
    ["Start jitter", s.startJitterMs ? formatDuration(s.startJitterMs) : "none"],
    ["Concurrency group", s.concurrencyGroup ? `${s.concurrencyGroup} (max ${s.concurrencyLimit ?? "?"} at once)` : "none"],
    ...(s.startRateLimit
      ? [
          [
            "Start-rate limit",
            `${s.concurrencyGroup}: at most ${s.startRateLimit.maxStarts} starts per ${s.startRateLimit.perSeconds} s`,
            "Shared by the group across all workers; runs over it wait their turn.",
          ] as [string, string, string],
        ]
      : []),
    ["Expected work", s.expectRecordsMin !== null ? `≥ ${s.expectRecordsMin} records, else hollow` : "not checked"],
    [
      "Run history kept",
      s.retentionDays !== null ? `${s.retentionDays} days` : "global setting",
      "Finished runs older than this expire; daily summaries stay (Workers page: retention).",
    ],
  ];
  return (
    <dl className="kv">
      {rows.map(([k, v, hint]) => (
        <div key={k} className="kv-row">
          <dt>{k}</dt>
          <dd>
            {v}
            {hint && <div className="small muted">{hint}</div>}
          </dd>
        </div>
      ))}
    </dl>
  );
}

export function ScheduleDetail({ id }: { id: string }) {
  const q = useQuery(scheduleQuery(id));
  if (q.isLoading) return <p className="muted">Loading schedule…</p>;
  if (q.error) return <p className="error">Could not load schedule: {q.error.message}</p>;
  const s = q.data!.schedule;
  return (
    <div data-testid="schedule-detail" data-name={s.name}>
      <div className="row page-head">
        <h1>{s.name}</h1>
        <ScheduleState schedule={s} detailed />
        {s.managedBy && (
          <span
            className="pill info"
            data-testid="managed-pill"
            title={`Created or last changed by applying ${s.managedBy}: edit the file, not the console`}
          >
            managed by {s.managedBy}
          </span>
        )}
        <span className="spacer" />
        <Link href={`/audit?target=schedule:${s.id}`}>Audit trail →</Link>
      </div>
      {s.description && <p>{s.description}</p>}
      {s.tags.length > 0 && (
        <p data-testid="schedule-tags">
          <TagList tags={s.tags} />
        </p>
      )}
      {(s.calendars ?? []).length > 0 && (
        <p data-testid="schedule-calendars">
          Follows{" "}
          {(s.calendars ?? []).map((c, i) => (
            <span key={c.id}>
              {i > 0 && ", then "}
              calendar <Link href={`/calendars/${c.id}`}>{c.name}</Link> <span className="muted">({policyLabel(c.policy)})</span>
            </span>
          ))}
          .
        </p>
      )}
      {(s.after ?? []).length > 0 && (
        <p data-testid="schedule-runs-after">
          Runs after{" "}
          {(s.after ?? []).map((l, i) => (
            <span key={l.id}>
              {i > 0 && " and "}
              <Link href={`/schedules/${l.id}`}>{l.name}</Link>{" "}
              <span className="muted">
                ({l.condition}; {CHAIN_MAPPING_LABELS[l.mapping]}
                {l.mappingTimezone ? ` in ${l.mappingTimezone}` : ""})
              </span>
            </span>
          ))}
          , waiting up to {formatDuration(s.waitDeadlineSeconds * 1000)}.
        </p>
      )}
      {(s.followedBy ?? []).length > 0 && (
        <p data-testid="schedule-followed-by">
          Followed by{" "}
          {(s.followedBy ?? []).map((f, i) => (
            <span key={f.id}>
              {i > 0 && ", "}
              <Link href={`/schedules/${f.id}`}>{f.name}</Link>
            </span>
          ))}
          .
        </p>
      )}
      <ScheduleActions schedule={s} />
      <div className="grid-2">
        <section className="card" aria-labelledby="what-title">
          <h2 id="what-title" style={{ marginTop: 0 }}>
            Trigger and handler
          </h2>
          <dl className="kv">
            <dt>Runs</dt>
            <dd data-testid="trigger-description">{s.triggerDescription}</dd>
            {s.trigger.kind === "cron" && (
              <>
                <dt>Cron</dt>
                <dd className="mono">
                  {s.trigger.cron}{" "}
                  <span className="muted">
                    in {s.trigger.timezone}; DST gap: {s.trigger.dst.gap}, repeat: {s.trigger.dst.repeat}
                  </span>
                </dd>
              </>
            )}
            {(s.startsAt || s.endsAt) && (
              <>
                <dt>Active</dt>
                <dd data-testid="schedule-dates">
                  {s.startsAt ? `from ${formatInZone(s.startsAt)}` : "from its creation"}
                  {s.endsAt ? ` until ${formatInZone(s.endsAt)}` : ", no end date"}
                </dd>
              </>
            )}
            <dt>Team</dt>
            <dd data-testid="schedule-team">{s.team}</dd>
            {s.workerPool && (
              <>
                <dt>Worker pool</dt>
                <dd
                  className="mono"
                  data-testid="schedule-worker-pool"
                  title="The team's runs execute only on workers started with this pool"
                >
                  {s.workerPool}
                </dd>
              </>
            )}
            <dt>Handler</dt>
            <dd>
              <HandlerName name={s.handler} pool={s.workerPool ?? null} />
            </dd>
            <dt>Payload</dt>
            <dd>
              <pre className="json">{JSON.stringify(s.payload, null, 2)}</pre>
            </dd>
            <dt>Revision</dt>
            <dd>
              {s.revision} <span className="muted small">updated {formatInZone(s.updatedAt)}</span>
            </dd>
            <dt>Lateness</dt>
            <dd>
              <LatenessSparkline values={s.recentLateness} jitterMs={s.startJitterMs} />
            </dd>
            <dt>Last 24 h</dt>
            <dd>
              {s.counts24h.late} late · {s.counts24h.missed} missed · {s.counts24h.hollow} hollow · {s.counts24h.failed} failed
            </dd>
          </dl>
        </section>
        <section className="card" aria-labelledby="policies-title">
          <h2 id="policies-title" style={{ marginTop: 0 }}>
            Policies
          </h2>
          <Policies s={s} />
        </section>
      </div>
      <h2>Last 90 days</h2>
      <DailyHistory scheduleId={s.id} />
      <FirePreview trigger={savedTrigger(s)} count={5} title="Next fires" scheduleId={s.id} />
      <h2>Recent runs</h2>
      <RunsTable filters={{ scheduleId: s.id }} hideSchedule limit={20} />
    </div>
  );
}
