"use client";
// The schedule form's run-after links: which schedules this one starts after for the same logical instant, what of
// their outcome it needs (condition), how its planned time maps to theirs (mapping), and how long it waits.
import { useQuery } from "@tanstack/react-query";
import type { ChainCondition, ChainMapping } from "@/core/runs/chain/chain-rules";
import { FormField } from "../ui/form-field";
import { schedulesQuery } from "./schedules-queries";

export interface RunAfterValue {
  schedule: string;
  condition: ChainCondition;
  mapping: ChainMapping;
  mappingTimezone?: string;
}

interface Props {
  value: RunAfterValue[];
  onChange: (value: RunAfterValue[]) => void;
  waitDeadlineSeconds: string;
  onWaitDeadlineChange: (v: string) => void;
  /** The schedule being edited (it cannot run after itself). */
  selfName?: string;
  errors: Record<string, string>;
}

const CONDITIONS: { value: ChainCondition; label: string }[] = [
  { value: "succeeded", label: "succeeded" },
  { value: "finished", label: "finished (any outcome)" },
  { value: "failed", label: "failed" },
];

const MAPPINGS: { value: ChainMapping; label: string }[] = [
  { value: "same_time", label: "its occurrence at the same planned time" },
  { value: "latest_before", label: "its latest occurrence at or before" },
  { value: "same_day", label: "its latest occurrence the same calendar day" },
];

export function RunAfterFieldset({ value, onChange, waitDeadlineSeconds, onWaitDeadlineChange, selfName, errors }: Props) {
  const { data } = useQuery(schedulesQuery());
  const names = (data?.schedules ?? []).map((s) => s.name).filter((n) => n !== selfName);
  const setRow = (i: number, patch: Partial<RunAfterValue>) => onChange(value.map((v, j) => (j === i ? { ...v, ...patch } : v)));
  return (
    <fieldset className="fieldset" data-testid="run-after">
      <legend>Runs after</legend>
      <p className="muted small" style={{ marginTop: 0 }}>
        Each occurrence waits for the matching occurrence of these schedules to end as required, then runs; past the wait deadline it is
        recorded missed and alerts.
      </p>
      <datalist id="run-after-schedules">
        {names.map((n) => (
          <option key={n} value={n} />
        ))}
      </datalist>
      {value.map((v, i) => {
        const rowError = errors[`after.${i}.schedule`] ?? errors[`after.${i}.mappingTimezone`] ?? errors[`after.${i}`];
        return (
          <div key={i} className="row" data-testid="run-after-link" style={{ gap: 8, flexWrap: "wrap", marginBottom: 8 }}>
            <input
              aria-label={`Run after schedule ${i + 1}`}
              list="run-after-schedules"
              value={v.schedule}
              placeholder="schedule name"
              onChange={(e) => setRow(i, { schedule: e.target.value })}
            />
            <select
              aria-label={`Run after ${i + 1} condition`}
              value={v.condition}
              onChange={(e) => setRow(i, { condition: e.target.value as ChainCondition })}
            >
              {CONDITIONS.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
            <select
              aria-label={`Run after ${i + 1} mapping`}
              value={v.mapping}
              onChange={(e) => {
                const mapping = e.target.value as ChainMapping;
                setRow(i, { mapping, mappingTimezone: mapping === "same_day" ? (v.mappingTimezone ?? "UTC") : undefined });
              }}
            >
              {MAPPINGS.map((m) => (
                <option key={m.value} value={m.value}>
                  {m.label}
                </option>
              ))}
            </select>
            {v.mapping === "same_day" && (
              <input
                aria-label={`Run after ${i + 1} time zone`}
                value={v.mappingTimezone ?? ""}
                placeholder="Europe/Paris"
                onChange={(e) => setRow(i, { mappingTimezone: e.target.value })}
              />
            )}
            <button type="button" className="small-button" onClick={() => onChange(value.filter((_, j) => j !== i))}>
              Remove
            </button>
            {rowError && (
              <div className="field-error" role="alert">
                {rowError}
              </div>
            )}
          </div>
        );
      })}
      {errors["after"] && (
        <div className="field-error" role="alert">
          {errors["after"]}
        </div>
      )}
      <button
        type="button"
        data-testid="add-run-after"
        onClick={() => onChange([...value, { schedule: "", condition: "succeeded", mapping: "same_time" }])}
      >
        Run after a schedule
      </button>
      {value.length > 0 && (
        <FormField
          label="Wait deadline (seconds)"
          testId="field-waitDeadlineSeconds"
          error={errors["waitDeadlineSeconds"]}
          hint="How long an occurrence waits for its upstream ones, from its due time, before it is missed."
        >
          <input inputMode="numeric" value={waitDeadlineSeconds} onChange={(e) => onWaitDeadlineChange(e.target.value)} />
        </FormField>
      )}
    </fieldset>
  );
}
