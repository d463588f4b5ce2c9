export default function Page() {
  return (
    <section>
      <h1>Audit</h1>
      <p className="muted">Nothing here yet.</p>
    </section>
  );
}
