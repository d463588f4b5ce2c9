import Link from "next/link";

/** A schedule's tags as small pills; each links to the schedules list filtered by that tag (unless `plain`). */
export function TagList({ tags, plain = false }: { tags: string[]; plain?: boolean }) {
  if (tags.length === 0) return null;
  return (
    <span className="tag-list" data-testid="tag-list">
      {tags.map((t) =>
        plain ? (
          <span key={t} className="pill tag" data-testid="tag">
            {t}
          </span>
        ) : (
          <Link
            key={t}
            href={`/schedules?tag=${encodeURIComponent(t)}`}
            className="pill tag"
            data-testid="tag"
            title={`Schedules tagged ${t}`}
          >
            {t}
          </Link>
        ),
      )}
    </span>
  );
}
