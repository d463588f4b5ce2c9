// The API contract as a browsable page: operations grouped by tag, each with its method, path, summary, role,
// parameters, and body and answer schemas. It renders the document it is given (app/api-docs/page.tsx builds it).
type JsonSchema = Record<string, unknown>;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

interface Operation {
  operationId: string;
  summary?: string;
  tags?: string[];
  "x-vigil-access"?: string;
  "x-vigil-errors"?: string[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema: JsonSchema }> }>;
}

export interface ApiDocument {
  info: { title: string; description?: string };
  tags?: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
}

/** One line for a parameter's schema: its type, allowed values, bounds. */
function describeSchema(s: JsonSchema | undefined): string {
  if (!s) return "";
  if (Array.isArray(s.enum)) return s.enum.join(" | ");
  const parts = [String(s.type ?? (s.anyOf ? "several" : "any"))];
  if (s.format) parts.push(String(s.format));
  if (s.minimum !== undefined || s.maximum !== undefined) parts.push(`${s.minimum ?? ""}..${s.maximum ?? ""}`);
  if (s.default !== undefined) parts.push(`default ${JSON.stringify(s.default)}`);
  return parts.join(", ");
}

function SchemaBlock({ title, media, schema }: { title: string; media: string; schema: JsonSchema }) {
  return (
    <details>
      <summary>
        {title} <span className="muted">({media})</span>
      </summary>
      <pre className="schema">{JSON.stringify(schema, null, 2)}</pre>
    </details>
  );
}

function OperationCard({ method, path, op }: { method: string; path: string; op: Operation }) {
  const ok = Object.entries(op.responses["200"]?.content ?? {})[0];
  const body = op.requestBody ? Object.entries(op.requestBody.content)[0] : undefined;
  return (
    <article className="card api-operation" id={op.operationId} data-testid="api-operation">
      <h3 className="row" style={{ gap: 8 }}>
        <span className={`pill method-${method}`}>{method.toUpperCase()}</span>
        <code>{path}</code>
      </h3>
      <p>{op.summary}</p>
      <p className="muted">
        Role: {op["x-vigil-access"]}
        {op["x-vigil-errors"]?.length ? <> · Refusals: {op["x-vigil-errors"].join(", ")}</> : null}
      </p>
      {op.parameters?.length ? (
        <table>
          <thead>
            <tr>
              <th>Parameter</th>
              <th>In</th>
              <th>Schema</th>
            </tr>
          </thead>
          <tbody>
            {op.parameters.map((p) => (
              <tr key={`${p.in}:${p.name}`}>
                <td>
                  <code>{p.name}</code>
                  {p.required ? " (required)" : ""}
                </td>
                <td>{p.in}</td>
                <td>
                  {describeSchema(p.schema)}
                  {p.description ? <span className="muted"> — {p.description}</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {body ? <SchemaBlock title="Body" media={body[0]} schema={body[1].schema} /> : null}
      {ok ? <SchemaBlock title="Answer (200)" media={ok[0]} schema={ok[1].schema} /> : null}
    </article>
  );
}

export function ApiReference({ doc }: { doc: ApiDocument }) {
  const byTag = new Map<string, { method: string; path: string; op: Operation }[]>();
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = op.tags?.[0] ?? "api";
      byTag.set(tag, [...(byTag.get(tag) ?? []), { method, path, op }]);
    }
  }
  const tags = [...byTag.keys()].sort();
  return (
    <>
      <nav aria-label="API sections" className="row" style={{ gap: 8, flexWrap: "wrap" }}>
        {tags.map((t) => (
          <a key={t} href={`#tag-${t}`}>
            {t}
          </a>
        ))}
      </nav>
      {tags.map((t) => (
        <section key={t} aria-labelledby={`tag-${t}`}>
          <h2 id={`tag-${t}`}>{t}</h2>
          {byTag.get(t)!.map((o) => (
            <OperationCard key={`${o.method} ${o.path}`} {...o} />
          ))}
        </section>
      ))}
    </>
  );
}
