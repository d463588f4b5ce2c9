"use client";
// The Alerts page's "Channels" section: where alerts go besides each schedule's webhook (email, PagerDuty, Teams,
// webhook, Slack), what each one takes, and a "Send a test alert" button that answers whether it arrived.
// Operators see their teams' channels and can test them; a team's admins create, edit and delete its channels.
import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ALERT_KIND_INFO, isAlertKind } from "@/core/alerts/alert-kinds";
import { ALERT_CHANNEL_TYPE_INFO } from "@/core/alerts/channels/alert-channel-types";
import { fetchJson } from "../ui/fetch-json";
import { useCan } from "../ui/use-can";
import { usePickedTeam } from "../ui/use-picked-team";
import { AlertChannelDialog } from "./alert-channel-dialog";
import { useAdminTeams } from "../teams/admin-team-select";
import { alertChannelsQuery, type AlertChannelView } from "./alerts-queries";

interface TestOutcome {
  delivered: boolean;
  error: string | null;
  status: number | null;
  durationMs: number;
}

function routingText(c: AlertChannelView): string {
  const kinds =
    c.routing.kinds.length === 0 ? "every kind" : c.routing.kinds.map((k) => (isAlertKind(k) ? ALERT_KIND_INFO[k].label : k)).join(", ");
  const scope = [
    ...(c.routing.scheduleIds.length > 0 ? [`${c.routing.scheduleIds.length} schedule(s)`] : []),
    ...(c.routing.tags.length > 0 ? [`tags ${c.routing.tags.join(", ")}`] : []),
  ];
  return `${kinds} · ${scope.length === 0 ? "every schedule" : scope.join(" or ")}`;
}

function TestButton({ channel }: { channel: AlertChannelView }) {
  const test = useMutation({
    mutationFn: () => fetchJson<{ outcome: TestOutcome }>(`/api/alert-channels/${channel.id}/test`, { method: "POST" }),
  });
  const o = test.data?.outcome;
  return (
    <span className="row">
      <button type="button" className="small-button" onClick={() => test.mutate()} disabled={test.isPending} data-testid="test-channel">
        {test.isPending ? "Sending…" : "Send a test alert"}
      </button>
      {o && (
        <span className={`pill ${o.delivered ? "ok" : "bad"}`} data-testid="test-outcome" data-delivered={o.delivered} role="status">
          {o.delivered ? `Delivered in ${o.durationMs} ms` : `Not delivered: ${o.error ?? "unknown error"}`}
        </span>
      )}
      {test.error && (
        <span className="pill bad" role="alert">
          {test.error.message}
        </span>
      )}
    </span>
  );
}

export function AlertChannels() {
  const canOperate = useCan("operate");
  const adminTeams = useAdminTeams(canOperate);
  const manages = (team: string) => adminTeams.some((t) => t.name === team);
  const client = useQueryClient();
  const { data, error } = useQuery({ ...alertChannelsQuery(usePickedTeam()), enabled: canOperate });
  const [editing, setEditing] = useState<AlertChannelView | "new" | null>(null);
  const remove = useMutation({
    mutationFn: (id: string) => fetchJson(`/api/alert-channels/${id}`, { method: "DELETE" }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["alert-channels"] }),
  });
  if (!canOperate) return null;
  const channels = data?.channels ?? [];
  return (
    <section className="card alert-channels" data-testid="alert-channels" id="channels">
      <div className="row">
        <h2>Channels</h2>
        {adminTeams.length > 0 && (
          <button type="button" className="small-button" onClick={() => setEditing("new")} data-testid="new-channel">
            New channel
          </button>
        )}
      </div>
      <p className="muted small">
        Email, PagerDuty, Microsoft Teams, webhook and Slack destinations for alerts, beside each schedule&apos;s own webhook. Each channel
        takes the alert kinds of the schedules (or tags) it is routed; PagerDuty incidents are acknowledged and resolved with the alert.
      </p>
      {error && <p className="error">{error.message}</p>}
      {channels.length === 0 ? (
        <p className="muted small">No channel yet: alerts go only to webhooks.</p>
      ) : (
        <table className="table compact">
          <thead>
            <tr>
              <th>Name</th>
              <th>Team</th>
              <th>Type</th>
              <th>Routing</th>
              <th>State</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {channels.map((c) => (
              <tr key={c.id} data-testid="alert-channel" data-name={c.name}>
                <td>{c.name}</td>
                <td data-testid="alert-channel-team">{c.team}</td>
                <td>{ALERT_CHANNEL_TYPE_INFO[c.type].label}</td>
                <td className="small">{routingText(c)}</td>
                <td>{c.enabled ? <span className="pill ok">enabled</span> : <span className="pill muted">disabled</span>}</td>
                <td>
                  <span className="row">
                    <TestButton channel={c} />
                    {manages(c.team) && (
                      <>
                        <button type="button" className="link-button" onClick={() => setEditing(c)} data-testid="edit-channel">
                          Edit
                        </button>
                        <button
                          type="button"
                          className="link-button"
                          onClick={() => window.confirm(`Delete channel ${c.name} and its secrets?`) && remove.mutate(c.id)}
                        >
                          Delete
                        </button>
                      </>
                    )}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {editing && <AlertChannelDialog channel={editing === "new" ? null : editing} onClose={() => setEditing(null)} />}
    </section>
  );
}
