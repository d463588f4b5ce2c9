"use client";
import { useState } from "react";
import { ALERT_KINDS, ALERT_KIND_INFO } from "@/core/alerts/alert-kinds";
import { AlertsTable } from "./alerts-table";

/** The alerts page body: open alerts by default, all (history) on request, and what clears each kind. */
export function AlertsView() {
  const [state, setState] = useState<"open" | "all">("open");
  const [tag, setTag] = useState("");
  return (
    <>
      <div className="row" role="radiogroup" aria-label="Which alerts" style={{ marginBottom: 12 }}>
        {(["open", "all"] as const).map((s) => (
          <label key={s} className="row" style={{ gap: 4, margin: 0, color: "var(--text)", fontSize: 14 }}>
            <input type="radio" name="alert-state" value={s} checked={state === s} onChange={() => setState(s)} style={{ width: "auto" }} />
            {s === "open" ? "Open" : "All, including resolved"}
          </label>
        ))}
        <label className="row" style={{ gap: 4, margin: 0, color: "var(--text)", fontSize: 14 }}>
          Tag
          <input
            placeholder="e.g. team:payments"
            size={16}
            onBlur={(e) => setTag(e.target.value.trim().toLowerCase())}
            onKeyDown={(e) => {
              if (e.key === "Enter") setTag(e.currentTarget.value.trim().toLowerCase());
            }}
            data-testid="alerts-tag-filter"
          />
        </label>
      </div>
      <AlertsTable filters={{ state, ...(tag ? { tag } : {}) }} />
      <details style={{ marginTop: 16 }}>
        <summary className="muted">When does each kind resolve?</summary>
        <dl className="kv">
          {ALERT_KINDS.map((k) => (
            <div key={k} className="kv-row">
              <dt>{ALERT_KIND_INFO[k].label}</dt>
              <dd>
                {ALERT_KIND_INFO[k].severity}: resolves when {ALERT_KIND_INFO[k].clears}.
              </dd>
            </div>
          ))}
        </dl>
      </details>
    </>
  );
}
