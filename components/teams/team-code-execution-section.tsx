"use client";
// A team's code execution on the Teams page: whether its schedules may run programs on a worker host, and the argv
// patterns (one JSON array per line) they may run, and the worker pool its runs execute on. Every member reads it; a
// global admin changes it.
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ApiError, fetchJson } from "../ui/fetch-json";
import { FormField } from "../ui/form-field";

export interface TeamCodeExecutionView {
  teamId: string;
  team: string;
  codeExecution: boolean;
  commandAllowList: string[][];
  workerPool: string | null;
}

export const teamCodeExecutionQuery = (teamId: string) =>
  queryOptions({
    queryKey: ["teams", teamId, "code-execution"],
    queryFn: () => fetchJson<{ team: TeamCodeExecutionView }>(`/api/teams/${teamId}/code-execution`),
  });

const toLines = (list: string[][]) => list.map((p) => JSON.stringify(p)).join("\n");

/** One pattern per line, each a JSON array of strings; a line that is not is reported by its number. */
function parseLines(text: string): { list: string[][] } | { error: string } {
  const list: string[][] = [];
  const lines = text.split("\n").map((l) => l.trim());
  for (const [i, line] of lines.entries()) {
    if (!line) continue;
    try {
      const p: unknown = JSON.parse(line);
      if (!Array.isArray(p) || !p.every((e) => typeof e === "string")) throw new Error();
      list.push(p as string[]);
    } catch {
      return { error: `Line ${i + 1} is not a JSON array of strings, e.g. ["pg_dump", "-Fc", "*"].` };
    }
  }
  return { list };
}

function CodeExecutionForm({ view, canEdit }: { view: TeamCodeExecutionView; canEdit: boolean }) {
  const qc = useQueryClient();
  const [enabled, setEnabled] = useState(view.codeExecution);
  const [text, setText] = useState(toLines(view.commandAllowList));
  const [pool, setPool] = useState(view.workerPool ?? "");
  const [lineError, setLineError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (list: string[][]) =>
      fetchJson<{ team: TeamCodeExecutionView }>(`/api/teams/${view.teamId}/code-execution`, {
        method: "PUT",
        json: { codeExecution: enabled, commandAllowList: list, workerPool: pool.trim() || null },
      }),
    onSuccess: (r) => qc.setQueryData(teamCodeExecutionQuery(view.teamId).queryKey, r),
  });
  const fields = save.error instanceof ApiError ? (save.error.fields ?? {}) : {};
  const listError = lineError ?? Object.entries(fields).find(([k]) => k.startsWith("commandAllowList"))?.[1];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseLines(text);
    setLineError("error" in parsed ? parsed.error : null);
    if ("list" in parsed) save.mutate(parsed.list);
  };
  return (
    <form onSubmit={submit} aria-label={`Code execution of team ${view.team}`} noValidate>
      <label className="check-row">
        <input type="checkbox" checked={enabled} disabled={!canEdit} onChange={(e) => setEnabled(e.target.checked)} /> Schedules of this
        team may run programs on worker hosts (shell jobs and handlers that run programs)
      </label>
      <FormField
        label="Command allow-list"
        hint='One argv pattern per line, as a JSON array: "*" is any one argument, "**" last is any further arguments, * inside an element stays within one path segment. Empty: any command.'
        error={listError}
      >
        <textarea
          rows={5}
          value={text}
          disabled={!canEdit}
          onChange={(e) => setText(e.target.value)}
          placeholder={'["pg_dump", "-Fc", "*"]\n["/srv/jobs/*.sh", "**"]'}
          style={{ fontFamily: "var(--mono, monospace)" }}
        />
      </FormField>
      <FormField
        label="Worker pool"
        hint="Its runs execute only on workers started with this pool (--pool NAME); empty: on the workers started without one."
        error={fields.workerPool}
        testId="team-worker-pool"
      >
        <input value={pool} disabled={!canEdit} onChange={(e) => setPool(e.target.value)} placeholder="none" autoComplete="off" />
      </FormField>
      {save.error && !listError && !fields.workerPool && (
        <p className="error" role="alert">
          {save.error.message}
        </p>
      )}
      {save.isSuccess && <p role="status">Saved.</p>}
      {canEdit && (
        <button type="submit" className="primary" disabled={save.isPending}>
          Save code execution
        </button>
      )}
    </form>
  );
}

/** `canEdit`: the viewer is a global admin (the only one the API lets change it). */
export function TeamCodeExecutionSection({ teamId, canEdit }: { teamId: string; canEdit: boolean }) {
  const { data, error } = useQuery(teamCodeExecutionQuery(teamId));
  return (
    <section className="card" aria-labelledby={`code-execution-${teamId}`}>
      <h3 id={`code-execution-${teamId}`} style={{ marginTop: 0 }}>
        Code execution
      </h3>
      {error && <p className="error">{error.message}</p>}
      {data && <CodeExecutionForm key={teamId} view={data.team} canEdit={canEdit} />}
    </section>
  );
}
