import { ApiReference, type ApiDocument } from "@/components/api-docs/api-reference";
import { buildOpenApi } from "@/app/api/_lib/contract/build-openapi";

export default function ApiDocsPage() {
  const doc = buildOpenApi() as unknown as ApiDocument;
  const count = Object.values(doc.paths).reduce((n, m) => n + Object.keys(m).length, 0);
  return (
    <section>
      <h1>API</h1>
      <p className="muted">
        The console&apos;s HTTP API: {count} operations. Authenticate scripts with an API token (Admin page) as{" "}
        <code>Authorization: Bearer &lt;token&gt;</code>. The machine-readable contract is <a href="/api/openapi.json">/api/openapi.json</a>{" "}
        (OpenAPI 3.1, generated from the routes&apos; own schemas); the <code>vigil</code> command line is built on it.
      </p>
      <ApiReference doc={doc} />
    </section>
  );
}
