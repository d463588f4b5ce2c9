export default function Page() {
  return (
    <section>
      <h1>Runs</h1>
      <p className="muted">Nothing here yet.</p>
    </section>
  );
}
