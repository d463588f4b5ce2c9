import { RunTrace } from "@/components/runs/run-trace";

export default async function RunPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <section>
      <RunTrace runId={id} />
    </section>
  );
}
