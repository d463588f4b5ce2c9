"use client";
// Create or edit an alert channel: its type's settings, its secrets (write-only: a stored one shows as set and is
// kept when left empty) and its routing (kinds × schedules or tags; nothing chosen means everything).
import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ALERT_KINDS, ALERT_KIND_INFO } from "@/core/alerts/alert-kinds";
import { ALERT_CHANNEL_TYPES, ALERT_CHANNEL_TYPE_INFO, type AlertChannelType } from "@/core/alerts/channels/alert-channel-types";
import { ApiError, fetchJson } from "../ui/fetch-json";
import { FormField } from "../ui/form-field";
import { ModalDialog } from "../ui/modal-dialog";
import { schedulesQuery } from "../schedules/schedules-queries";
import type { AlertChannelView } from "./alerts-queries";
import { AdminTeamSelect } from "../teams/admin-team-select";

const list = (s: string) =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

const SECRET_LABEL = { password: "SMTP password", routingKey: "Routing key (integration key)", url: "Webhook URL" } as const;

export function AlertChannelDialog({ channel, onClose }: { channel: AlertChannelView | null; onClose: () => void }) {
  const client = useQueryClient();
  const schedules = useQuery(schedulesQuery());
  const s = (channel?.settings ?? {}) as Record<string, unknown>;
  const [name, setName] = useState(channel?.name ?? "");
  const [type, setType] = useState<AlertChannelType>(channel?.type ?? "email");
  const [host, setHost] = useState(String(s.host ?? ""));
  const [port, setPort] = useState(String(s.port ?? 587));
  const [secure, setSecure] = useState(Boolean(s.secure));
  const [user, setUser] = useState(String(s.user ?? ""));
  const [from, setFrom] = useState(String(s.from ?? ""));
  const [to, setTo] = useState(((s.to as string[] | undefined) ?? []).join(", "));
  const [endpoint, setEndpoint] = useState(String(s.endpoint ?? ""));
  const [consoleUrl, setConsoleUrl] = useState(String(s.consoleUrl ?? (channel ? "" : window.location.origin)));
  const [secret, setSecret] = useState("");
  const [kinds, setKinds] = useState<string[]>(channel?.routing.kinds ?? []);
  const [scheduleIds, setScheduleIds] = useState<string[]>(channel?.routing.scheduleIds ?? []);
  const [tags, setTags] = useState((channel?.routing.tags ?? []).join(", "));
  const [enabled, setEnabled] = useState(channel?.enabled ?? true);
  const [team, setTeam] = useState("");
  const secretField = ALERT_CHANNEL_TYPE_INFO[type].secrets[0]!;
  const secretStored = channel?.secrets[secretField] === true;

  const save = useMutation({
    mutationFn: () => {
      const settings: Record<string, unknown> =
        type === "email"
          ? { host, port: Number(port), secure, ...(user ? { user } : {}), from, to: list(to) }
          : type === "pagerduty" && endpoint
            ? { endpoint }
            : {};
      if (consoleUrl) settings.consoleUrl = consoleUrl;
      const json = {
        name,
        type,
        settings,
        secrets: secret ? { [secretField]: secret } : {},
        routing: { kinds, scheduleIds, tags: list(tags) },
        enabled,
        // A channel stays in its team; a new one goes into the team chosen (or the caller's only admin team).
        ...(!channel && team ? { team } : {}),
      };
      return channel
        ? fetchJson(`/api/alert-channels/${channel.id}`, { method: "PUT", json })
        : fetchJson("/api/alert-channels", { method: "POST", json });
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ["alert-channels"] });
      onClose();
    },
  });
  const err = (k: string) => (save.error instanceof ApiError ? save.error.fields?.[k] : undefined);

  return (
    <ModalDialog
      open
      title={channel ? `Edit channel ${channel.name}` : "New alert channel"}
      onClose={onClose}
      onSubmit={() => save.mutate()}
      testId="channel-dialog"
      actions={
        <button type="submit" className="primary" disabled={save.isPending} data-testid="save-channel">
          {channel ? "Save" : "Create channel"}
        </button>
      }
    >
      <div className="grid-2">
        <FormField label="Name" error={err("name")}>
          <input value={name} onChange={(e) => setName(e.target.value)} data-testid="channel-name" autoComplete="off" />
        </FormField>
        <FormField label="Type" error={err("type")}>
          <select
            value={type}
            onChange={(e) => setType(e.target.value as AlertChannelType)}
            disabled={Boolean(channel)}
            data-testid="channel-type"
          >
            {ALERT_CHANNEL_TYPES.map((t) => (
              <option key={t} value={t}>
                {ALERT_CHANNEL_TYPE_INFO[t].label}
              </option>
            ))}
          </select>
        </FormField>
        {channel ? (
          <FormField label="Team" hint="A channel stays in its team; it takes only that team's alerts.">
            <input value={channel.team} readOnly data-testid="channel-team" />
          </FormField>
        ) : (
          <AdminTeamSelect value={team} onChange={setTeam} error={err("team")} testId="channel-team" />
        )}
      </div>
      {type === "email" && (
        <>
          <div className="grid-2">
            <FormField label="SMTP host" error={err("settings.host")}>
              <input value={host} onChange={(e) => setHost(e.target.value)} data-testid="channel-host" autoComplete="off" />
            </FormField>
            <FormField label="Port" error={err("settings.port")}>
              <input value={port} onChange={(e) => setPort(e.target.value)} inputMode="numeric" data-testid="channel-port" />
            </FormField>
            <FormField label="User" hint="Leave empty when the relay needs no login." error={err("settings.user")}>
              <input value={user} onChange={(e) => setUser(e.target.value)} autoComplete="off" data-testid="channel-user" />
            </FormField>
            <FormField label="From" error={err("settings.from")}>
              <input value={from} onChange={(e) => setFrom(e.target.value)} data-testid="channel-from" autoComplete="off" />
            </FormField>
          </div>
          <FormField label="To" hint="Addresses, comma-separated." error={err("settings.to")}>
            <input value={to} onChange={(e) => setTo(e.target.value)} data-testid="channel-to" autoComplete="off" />
          </FormField>
          <label className="check-row">
            <input type="checkbox" checked={secure} onChange={(e) => setSecure(e.target.checked)} /> TLS from the first byte (port 465);
            otherwise STARTTLS when offered
          </label>
        </>
      )}
      {type === "pagerduty" && (
        <FormField label="Events API endpoint" hint="Empty: PagerDuty's own (events.pagerduty.com)." error={err("settings.endpoint")}>
          <input value={endpoint} onChange={(e) => setEndpoint(e.target.value)} autoComplete="off" />
        </FormField>
      )}
      <FormField
        label={SECRET_LABEL[secretField]}
        hint={secretStored ? "Stored in the secret store; leave empty to keep it." : "Kept in the secret store; never shown again."}
        error={err(`secrets.${secretField}`)}
      >
        <input
          type="password"
          value={secret}
          onChange={(e) => setSecret(e.target.value)}
          autoComplete="new-password"
          data-testid="channel-secret"
        />
      </FormField>
      <FormField label="Console address" hint="Links in the alerts point here." error={err("settings.consoleUrl")}>
        <input value={consoleUrl} onChange={(e) => setConsoleUrl(e.target.value)} autoComplete="off" />
      </FormField>
      <fieldset className="channel-routing" data-testid="channel-routing">
        <legend>Routing — nothing chosen means every kind / every schedule</legend>
        <div className="channel-kinds">
          {ALERT_KINDS.map((k) => (
            <label key={k} className="check-row">
              <input
                type="checkbox"
                checked={kinds.includes(k)}
                onChange={(e) => setKinds(e.target.checked ? [...kinds, k] : kinds.filter((x) => x !== k))}
                data-testid={`route-kind-${k}`}
              />
              {ALERT_KIND_INFO[k].label}
            </label>
          ))}
        </div>
        <div className="grid-2">
          <FormField label="Schedules" error={err("routing.scheduleIds")}>
            <select
              multiple
              value={scheduleIds}
              onChange={(e) => setScheduleIds([...e.target.selectedOptions].map((o) => o.value))}
              data-testid="route-schedules"
            >
              {(schedules.data?.schedules ?? []).map((x) => (
                <option key={x.id} value={x.id}>
                  {x.name}
                </option>
              ))}
            </select>
          </FormField>
          <FormField label="Or schedules tagged" hint="Tags, comma-separated." error={err("routing.tags")}>
            <input value={tags} onChange={(e) => setTags(e.target.value)} autoComplete="off" data-testid="route-tags" />
          </FormField>
        </div>
      </fieldset>
      <label className="check-row">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Enabled
      </label>
      {save.error && !(save.error instanceof ApiError && save.error.fields) && (
        <p className="error" role="alert">
          {save.error.message}
        </p>
      )}
    </ModalDialog>
  );
}
