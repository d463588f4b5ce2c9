"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";

/** The schedules list's tag filter: the tags in force (each removable) and a box to add one. It lives in the URL. */
export function TagFilter({ tags }: { tags: string[] }) {
  const router = useRouter();
  const href = (next: string[]) => `/schedules${next.length ? `?${next.map((t) => `tag=${encodeURIComponent(t)}`).join("&")}` : ""}`;
  return (
    <div className="row filters" role="search" aria-label="Filter schedules by tag" data-testid="tag-filter">
      <form
        className="field"
        onSubmit={(e) => {
          e.preventDefault();
          const input = new FormData(e.currentTarget).get("tag");
          const tag = typeof input === "string" ? input.trim().toLowerCase() : "";
          if (tag && !tags.includes(tag)) router.push(href([...tags, tag]));
          e.currentTarget.reset();
        }}
      >
        <label htmlFor="schedules-tag">Tag</label>
        <input
          id="schedules-tag"
          name="tag"
          placeholder="e.g. team:payments"
          size={24}
          title="Type a tag and press Enter"
          autoComplete="off"
        />
      </form>
      {tags.length > 0 && (
        <span className="tag-list" data-testid="active-tags">
          <span className="muted small">Schedules tagged</span>
          {tags.map((t) => (
            <Link key={t} href={href(tags.filter((x) => x !== t))} className="pill tag" title={`Remove ${t} from the filter`}>
              {t} ✕
            </Link>
          ))}
          <Link href="/schedules" className="small">
            Clear
          </Link>
        </span>
      )}
    </div>
  );
}
