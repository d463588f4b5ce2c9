"use client";
import { useEffect } from "react";
import { useQuery } from "@tanstack/react-query";
import { ApiError } from "../ui/fetch-json";
import { formatInZone, viewerZone } from "../ui/time-format";
import { useDebounced } from "../ui/use-debounced";
import type { TriggerBody } from "./schedule-form-values";
import { triggerPreviewQuery, type FireTimeView } from "./schedules-queries";

interface Props {
  trigger: TriggerBody;
  count?: number;
  title?: string;
  /** A saved schedule: each fire also shows what its plan does with it (calendars, dates, pause), as the forecast. */
  scheduleId?: string;
  /** Server field errors of the preview ("trigger.cron" …), shown at the trigger's own inputs. */
  onFieldErrors?: (fields: Record<string, string>) => void;
}

/** The next fires of the trigger as typed, from the server's own trigger math, with DST notes. */
export function FirePreview({ trigger, count = 10, title = `Next ${count} fires`, scheduleId, onFieldErrors }: Props) {
  const debounced = useDebounced(trigger, 350);
  const q = useQuery(triggerPreviewQuery(debounced, count, scheduleId));
  const zone = trigger.kind === "cron" ? trigger.timezone : "UTC";
  const me = viewerZone();
  const err = q.error instanceof ApiError ? q.error : null;
  const fields = err?.fields ?? {};
  const fieldKey = q.isFetching ? null : JSON.stringify(fields);
  // Report the preview's field errors (or that there are none) so the trigger inputs show them inline.
  useEffect(() => {
    if (fieldKey !== null) onFieldErrors?.(JSON.parse(fieldKey));
  }, [fieldKey, onFieldErrors]);

  return (
    <section className="card preview" aria-labelledby="preview-title" data-testid="fire-preview">
      <div className="row">
        <h3 id="preview-title" style={{ margin: 0 }}>
          {title}
        </h3>
        <span className="spacer" />
        {q.isFetching && <span className="muted">updating…</span>}
      </div>
      {q.data?.description && (
        <p className="muted" style={{ margin: "6px 0" }}>
          {q.data.description}
        </p>
      )}
      {err && (
        <p className="error" role="alert">
          ✕ {Object.values(fields)[0] ?? err.message}
        </p>
      )}
      {q.data && q.data.fires.length === 0 && <p className="muted">This trigger does not fire again.</p>}
      {q.data && q.data.fires.length > 0 && (
        <table className="table compact">
          <thead>
            <tr>
              <th>#</th>
              <th>In the schedule&apos;s zone ({zone})</th>
              {me !== zone && <th>Your time ({me})</th>}
              <th>DST</th>
              {scheduleId && <th>Plan</th>}
            </tr>
          </thead>
          <tbody>
            {q.data.fires.map((f, i) => (
              <tr key={`${f.at}-${i}`} data-testid="preview-row" className={f.dst?.skipped ? "struck" : undefined}>
                <td className="muted">{f.dst?.skipped ? "—" : i + 1}</td>
                <td className="mono">
                  {f.localTime} <span className="muted">UTC{f.utcOffset}</span>
                </td>
                {me !== zone && <td className="mono">{formatInZone(f.at, me)}</td>}
                <td>
                  {f.dst ? (
                    <span className={`pill ${f.dst.skipped ? "muted" : "warn"}`} title={f.dst.note}>
                      {f.dst.kind === "gap" ? "⤳ gap" : "⟲ repeat"}
                      {f.dst.skipped ? " (skipped)" : ""}
                    </span>
                  ) : (
                    <span className="muted">—</span>
                  )}
                  {f.dst && <div className="hint">{f.dst.note}</div>}
                </td>
                {scheduleId && (
                  <td data-testid="preview-plan" data-fate={f.plan?.fate}>
                    {f.plan ? <PlanCell plan={f.plan} zone={zone} /> : <span className="muted">—</span>}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

const FATE_LABEL: Record<string, string> = {
  run: "runs",
  excluded: "excluded",
  paused: "held (paused)",
  ended: "after the end date",
  not_started: "before the start date",
  dst_skipped: "skipped (DST)",
};

/** What the plan does with one fire: runs (moved by a calendar: where to), or why it does not. */
function PlanCell({ plan, zone }: { plan: NonNullable<FireTimeView["plan"]>; zone: string }) {
  return (
    <>
      <span className={`pill ${plan.fate === "run" ? "" : "muted"}`}>{FATE_LABEL[plan.fate] ?? plan.fate}</span>
      {plan.fate === "run" && plan.reason && <span className="mono"> at {formatInZone(plan.plannedAt, zone)}</span>}
      {plan.reason && <div className="hint">{plan.reason}</div>}
    </>
  );
}
