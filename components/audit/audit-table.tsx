"use client";
import Link from "next/link";
import { Fragment, useState } from "react";
import { formatInZone } from "../ui/time-format";
import { AuditDiff } from "./audit-diff";
import type { AuditEventView } from "./audit-queries";

const PAGES: Record<string, string> = { schedule: "/schedules/", run: "/runs/" };

function Target({ e }: { e: AuditEventView }) {
  if (!e.targetId) return <span>{e.targetType}</span>;
  const page = PAGES[e.targetType];
  const label = `${e.targetType}:${e.targetId.length > 12 ? `${e.targetId.slice(0, 8)}…` : e.targetId}`;
  return (
    <span title={`${e.targetType}:${e.targetId}`}>
      {page ? <Link href={`${page}${encodeURIComponent(e.targetId)}`}>{label}</Link> : label}{" "}
      <Link
        href={`/audit?target=${encodeURIComponent(`${e.targetType}:${e.targetId}`)}`}
        className="muted"
        title="Only this target's audit trail"
      >
        ⌕
      </Link>
    </span>
  );
}

export function AuditTable({ events }: { events: AuditEventView[] }) {
  const [open, setOpen] = useState<number | null>(null);
  return (
    <table className="table" aria-label="Audit events" data-testid="audit-table">
      <thead>
        <tr>
          <th>Time</th>
          <th>Actor</th>
          <th>Action</th>
          <th>Target</th>
          <th>Reason</th>
          <th>Address</th>
          <th>
            <span style={{ position: "absolute", left: -9999 }}>Details</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {events.map((e) => (
          <Fragment key={e.id}>
            <tr data-testid="audit-row" data-action={e.action}>
              <td className="mono" title={`#${e.id}`}>
                {formatInZone(e.at)}
              </td>
              <td>
                {e.actor} {e.actorType !== "user" && <span className="pill muted">{e.actorType}</span>}
              </td>
              <td className="mono">{e.action}</td>
              <td className="mono">
                <Target e={e} />
              </td>
              <td style={{ maxWidth: 320, overflowWrap: "anywhere" }}>{e.reason ?? <span className="muted">—</span>}</td>
              <td className="mono muted">{e.ip ?? "—"}</td>
              <td>
                <button type="button" aria-expanded={open === e.id} onClick={() => setOpen(open === e.id ? null : e.id)}>
                  {open === e.id ? "Hide" : "Details"}
                </button>
              </td>
            </tr>
            {open === e.id && (
              <tr>
                <td colSpan={7} style={{ background: "var(--panel-2)" }}>
                  <AuditDiff before={e.before} after={e.after} />
                  <p className="muted mono" style={{ marginBottom: 0 }}>
                    #{e.id} · {e.userAgent ?? "no user agent"} · hash {e.hash.slice(0, 16)}…
                  </p>
                </td>
              </tr>
            )}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}
