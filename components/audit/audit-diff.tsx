// Before/after of one audit event, field by field: what changed stands out, what stayed is muted.
function show(v: unknown): string {
  if (v === undefined) return "—";
  return typeof v === "string" ? v : JSON.stringify(v);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function AuditDiff({ before, after }: { before: unknown; after: unknown }) {
  if (before === null && after === null) return <p className="muted">No before/after recorded for this action.</p>;
  if (!isRecord(before ?? {}) || !isRecord(after ?? {})) {
    return (
      <table className="table" aria-label="Before and after">
        <tbody>
          <tr>
            <th>Before</th>
            <td className="mono">{show(before)}</td>
          </tr>
          <tr>
            <th>After</th>
            <td className="mono">{show(after)}</td>
          </tr>
        </tbody>
      </table>
    );
  }
  const b = (before ?? {}) as Record<string, unknown>;
  const a = (after ?? {}) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].sort();
  return (
    <table className="table" aria-label="Before and after" data-testid="audit-diff">
      <thead>
        <tr>
          <th>Field</th>
          <th>Before</th>
          <th>After</th>
        </tr>
      </thead>
      <tbody>
        {keys.map((k) => {
          const changed = JSON.stringify(b[k]) !== JSON.stringify(a[k]);
          return (
            <tr key={k} data-changed={changed} className={changed ? "" : "muted"}>
              <td className="mono">{k}</td>
              <td className="mono" style={changed ? { color: "var(--bad)" } : undefined}>
                {show(b[k])}
              </td>
              <td className="mono" style={changed ? { color: "var(--ok)" } : undefined}>
                {show(a[k])}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
