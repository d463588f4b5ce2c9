import { stateStyle } from "./run-state-style";

export function RunStatePill({ state, title }: { state: string; title?: string }) {
  const s = stateStyle(state);
  return (
    <span className={`pill ${s.tone}`} title={title ?? s.meaning} data-testid="run-state" data-state={state}>
      <span aria-hidden="true">{s.icon}</span> {s.label}
    </span>
  );
}
