"use client";
// The run page's "Upstream / downstream" section: the occurrences of the schedules this run runs after (each with
// its state and whether it meets the link's condition) and the occurrences waiting for this run, with links.
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { RunStatePill } from "../ui/run-state-pill";
import { runChainQuery, type RunChainView } from "./runs-queries";
import { formatInZone } from "../ui/time-format";

const VERDICT: Record<RunChainView["upstream"][number]["verdict"], string> = {
  met: "condition met",
  impossible: "condition cannot be met",
  wait: "waiting for it",
};

const MAPPING: Record<string, string> = {
  same_time: "same planned time",
  latest_before: "latest at or before",
  same_day: "same calendar day",
};

export function RunChain({ runId }: { runId: string }) {
  const q = useQuery(runChainQuery(runId));
  const chain = q.data;
  if (!chain || (chain.upstream.length === 0 && chain.downstream.length === 0)) return null;
  return (
    <section className="card" aria-labelledby="chain-title" data-testid="run-chain">
      <h2 id="chain-title" style={{ marginTop: 0 }}>
        Upstream / downstream
      </h2>
      {chain.upstream.length > 0 && (
        <>
          <h3 className="small">Runs after</h3>
          <ul data-testid="run-upstream">
            {chain.upstream.map((u) => (
              <li key={u.scheduleId}>
                <Link href={`/schedules/${u.scheduleId}`}>{u.scheduleName}</Link>{" "}
                <span className="muted small">
                  {u.condition} · {MAPPING[u.mapping] ?? u.mapping}
                  {u.mappingTimezone ? ` in ${u.mappingTimezone}` : ""}
                </span>
                {" — "}
                {u.run ? (
                  <>
                    <Link href={`/runs/${u.run.runId}`} data-testid="upstream-run-link">
                      occurrence of {formatInZone(u.run.plannedAt)}
                    </Link>{" "}
                    <RunStatePill state={u.run.state} />
                  </>
                ) : (
                  <span className="muted">no occurrence yet</span>
                )}{" "}
                <span className={u.verdict === "impossible" ? "error small" : "muted small"}>({VERDICT[u.verdict]})</span>
              </li>
            ))}
          </ul>
        </>
      )}
      {chain.downstream.length > 0 && (
        <>
          <h3 className="small">Followed by</h3>
          <ul data-testid="run-downstream">
            {chain.downstream.flatMap((d) =>
              d.runs.length === 0
                ? [
                    <li key={d.scheduleId}>
                      <Link href={`/schedules/${d.scheduleId}`}>{d.scheduleName}</Link>{" "}
                      <span className="muted">no occurrence planned yet</span>
                    </li>,
                  ]
                : d.runs.map((r) => (
                    <li key={r.runId}>
                      <Link href={`/schedules/${d.scheduleId}`}>{d.scheduleName}</Link>{" "}
                      <span className="muted small">(after it {d.condition})</span> —{" "}
                      <Link href={`/runs/${r.runId}`} data-testid="downstream-run-link">
                        occurrence of {formatInZone(r.plannedAt)}
                      </Link>{" "}
                      <RunStatePill state={r.state} />
                      {r.waitReason === "upstream" && <span className="muted small"> waiting for it</span>}
                    </li>
                  )),
            )}
          </ul>
        </>
      )}
    </section>
  );
}
