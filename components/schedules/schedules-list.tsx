"use client";
import Link from "next/link";
import { useEffect, useState } from "react";
import { usePathname, useSearchParams } from "next/navigation";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { SCHEDULE_SORTS, type ScheduleSort } from "@/core/schedules/schedule-sorts";
import { useCan } from "../ui/use-can";
import { usePickedTeam } from "../ui/use-picked-team";
import { schedulesPageQuery, type ScheduleListParams } from "./schedules-queries";
import { SchedulesTable } from "./schedules-table";

export const SCHEDULE_PAGE_SIZES = [25, 50, 100, 200];
const DEFAULT_PAGE_SIZE = 50;

const SORT_LABELS: Record<ScheduleSort, string> = {
  name: "Name",
  next_fire: "Next fire",
  last_state: "Last outcome (worst first)",
  trouble: "Most trouble (24 h) first",
};

/** The list's controls live in the page's URL (?q=&tag=&sort=&dir=&page=&size=), so a view can be shared and reloaded. */
function paramsFromUrl(sp: URLSearchParams): ScheduleListParams & { page: number; size: number } {
  const sort = sp.get("sort") as ScheduleSort | null;
  const size = Number(sp.get("size"));
  const page = Math.max(1, Math.floor(Number(sp.get("page")) || 1));
  const pageSize = SCHEDULE_PAGE_SIZES.includes(size) ? size : DEFAULT_PAGE_SIZE;
  return {
    q: sp.get("q") ?? undefined,
    tag: sp.get("tag") ?? undefined,
    sort: sort && SCHEDULE_SORTS.includes(sort) ? sort : undefined,
    dir: sp.get("dir") === "desc" ? "desc" : undefined,
    page,
    size: pageSize,
    offset: (page - 1) * pageSize,
    limit: pageSize,
  };
}

/** Schedules, searched, sorted and paged by the server: the page costs the same at 50 schedules and at 5,000. */
export function SchedulesList() {
  const pathname = usePathname();
  const sp = useSearchParams();
  const p = paramsFromUrl(new URLSearchParams(sp.toString()));
  const canOperate = useCan("operate");
  const [text, setText] = useState(p.q ?? "");
  const [tag, setTag] = useState(p.tag ?? "");

  function update(changes: Record<string, string | number | undefined>): void {
    const next = new URLSearchParams(sp.toString());
    for (const [k, v] of Object.entries(changes)) {
      if (v === undefined || v === "" || (k === "page" && v === 1)) next.delete(k);
      else next.set(k, String(v));
    }
    const qs = next.toString();
    // The browser's own history call (Next.js syncs useSearchParams with it): no navigation, no server round
    // trip, and the text fields keep what is being typed.
    window.history.replaceState(null, "", qs ? `${pathname}?${qs}` : pathname);
  }

  // Typing searches after a short pause, not on every key.
  useEffect(() => {
    if ((p.q ?? "") === text && (p.tag ?? "") === tag) return;
    const t = setTimeout(() => update({ q: text.trim() || undefined, tag: tag.trim() || undefined, page: 1 }), 250);
    return () => clearTimeout(t);
  }, [text, tag]);

  const { page, size, ...api } = p;
  const team = usePickedTeam();
  const q = useQuery({ ...schedulesPageQuery({ ...api, team }), placeholderData: keepPreviousData });
  const data = q.data;
  const pages = data ? Math.max(1, Math.ceil(data.total / size)) : 1;
  const filtered = Boolean(p.q || p.tag);

  return (
    <div data-testid="schedules-list">
      <div className="row toolbar" role="search" aria-label="Find schedules">
        <div className="field inline">
          <label htmlFor="schedules-q">Search</label>
          <input
            id="schedules-q"
            type="search"
            placeholder="name, handler or description"
            value={text}
            onChange={(e) => setText(e.target.value)}
            data-testid="schedules-search"
          />
        </div>
        <div className="field inline">
          <label htmlFor="schedules-tag">Tag</label>
          <input id="schedules-tag" type="search" placeholder="e.g. payments" value={tag} onChange={(e) => setTag(e.target.value)} />
        </div>
        <div className="field inline">
          <label htmlFor="schedules-sort">Sort</label>
          <select
            id="schedules-sort"
            value={p.sort ?? "name"}
            onChange={(e) => update({ sort: e.target.value === "name" ? undefined : e.target.value, page: 1 })}
          >
            {SCHEDULE_SORTS.map((s) => (
              <option key={s} value={s}>
                {SORT_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        <label className="inline small">
          <input
            type="checkbox"
            checked={p.dir === "desc"}
            onChange={(e) => update({ dir: e.target.checked ? "desc" : undefined, page: 1 })}
          />{" "}
          reversed
        </label>
      </div>
      {q.isLoading && <p className="muted">Loading schedules…</p>}
      {q.error && <p className="error">Could not load schedules: {q.error.message}</p>}
      {data && data.total === 0 && !filtered && (
        <div className="card empty">
          <p>No schedules yet.</p>
          {canOperate && (
            <Link href="/schedules/new" className="button primary-link">
              Create the first schedule
            </Link>
          )}
        </div>
      )}
      {data && data.total === 0 && filtered && <p className="muted">No schedule matches this search.</p>}
      {data && data.schedules.length > 0 && <SchedulesTable list={data.schedules} />}
      {data && data.total > 0 && (
        <nav className="row pager" aria-label="Schedule pages" data-testid="schedules-pager">
          <button type="button" disabled={page <= 1} onClick={() => update({ page: page - 1 })}>
            ← Previous
          </button>
          <span data-testid="schedules-range">
            {data.offset + 1}–{data.offset + data.schedules.length} of {data.total}
          </span>
          <button type="button" disabled={page >= pages} onClick={() => update({ page: page + 1 })}>
            Next →
          </button>
          <span className="spacer" />
          <label className="inline small" htmlFor="schedules-size">
            Per page
          </label>
          <select
            id="schedules-size"
            style={{ width: "auto" }}
            value={size}
            onChange={(e) => update({ size: Number(e.target.value), page: 1 })}
          >
            {SCHEDULE_PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </nav>
      )}
    </div>
  );
}
