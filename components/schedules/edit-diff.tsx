"use client";
import { formatInZone } from "../ui/time-format";

/** A fire as the edit's dry run answers it (core/schedules/fire-plan.ts PlannedFire, JSON). */
export interface DiffFire {
  nominalAt: string;
  plannedAt: string;
  fate: string;
  reason: string | null;
}

/** PATCH /api/schedules/:id with dryRun: true (core/schedules/update-schedule.ts EditPreview). */
export interface EditPreviewView {
  dryRun: true;
  changed: string[];
  replans: boolean;
  before: DiffFire[];
  after: DiffFire[];
  superseded: { id: string; plannedAt: string; nominalAt: string; state: string }[];
}

const FATE_WORDS: Record<string, string> = {
  run: "runs",
  excluded: "excluded",
  paused: "held (paused)",
  ended: "after the end date",
  not_started: "before the start date",
  dst_skipped: "skipped (DST)",
};

/**
 * What saving an edit changes, shown before it is saved: the next fires under the schedule as it is and as
 * edited, side by side (a fire only one side has is marked), and the already planned runs the edit supersedes.
 */
export function EditDiff({
  preview,
  timezone,
  saving,
  onConfirm,
  onBack,
}: {
  preview: EditPreviewView;
  timezone?: string;
  saving: boolean;
  onConfirm: () => void;
  onBack: () => void;
}) {
  const key = (f: DiffFire) => `${f.plannedAt}|${f.fate}`;
  const beforeKeys = new Set(preview.before.map(key));
  const afterKeys = new Set(preview.after.map(key));
  const same = preview.before.length === preview.after.length && preview.before.every((f) => afterKeys.has(key(f)));
  return (
    <section className="banner warn edit-diff" role="region" aria-label="What this edit changes" data-testid="edit-diff">
      <strong>Check what this edit changes before saving.</strong>
      <div className="muted">
        Changed: {preview.changed.join(", ")}. {same ? "The next fires stay the same." : "The next fires change:"}
      </div>
      <div className="grid-2 edit-diff-columns">
        <FireColumn title="Next fires now" testId="edit-diff-before" fires={preview.before} other={afterKeys} mark="−" zone={timezone} />
        <FireColumn
          title="Next fires after saving"
          testId="edit-diff-after"
          fires={preview.after}
          other={beforeKeys}
          mark="+"
          zone={timezone}
        />
      </div>
      <div data-testid="edit-diff-superseded">
        {preview.superseded.length === 0 ? (
          <p className="muted">No run already planned is superseded.</p>
        ) : (
          <>
            <p>
              {preview.superseded.length} already planned run{preview.superseded.length === 1 ? "" : "s"} will be superseded (cancelled,
              never started):
            </p>
            <ul className="edit-diff-list">
              {preview.superseded.map((r) => (
                <li key={r.id}>
                  <time dateTime={r.plannedAt}>{formatInZone(r.plannedAt, timezone)}</time> <span className="muted">({r.state})</span>
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
      <div className="row">
        <button type="button" className="primary" onClick={onConfirm} disabled={saving} data-testid="confirm-save">
          {saving ? "Saving…" : "Save with these fires"}
        </button>
        <button type="button" onClick={onBack} data-testid="back-to-edit">
          Back to editing
        </button>
      </div>
    </section>
  );
}

function FireColumn({
  title,
  testId,
  fires,
  other,
  mark,
  zone,
}: {
  title: string;
  testId: string;
  fires: DiffFire[];
  other: Set<string>;
  mark: string;
  zone?: string;
}) {
  return (
    <div data-testid={testId}>
      <h3>{title}</h3>
      {fires.length === 0 ? (
        <p className="muted">No fire in the next 400 days.</p>
      ) : (
        <ol className="edit-diff-list">
          {fires.map((f) => {
            const changed = !other.has(`${f.plannedAt}|${f.fate}`);
            return (
              <li key={f.nominalAt} className={changed ? "edit-diff-changed" : undefined} title={f.reason ?? undefined}>
                <span aria-hidden="true" className="edit-diff-mark">
                  {changed ? mark : " "}
                </span>
                <time dateTime={f.plannedAt}>{formatInZone(f.plannedAt, zone)}</time>
                {f.fate !== "run" || f.plannedAt !== f.nominalAt ? (
                  <span className="muted">
                    {" "}
                    — {f.plannedAt !== f.nominalAt && f.fate === "run" ? "moved by a calendar" : FATE_WORDS[f.fate]}
                  </span>
                ) : null}
                {changed && <span className="sr-only"> (only {mark === "+" ? "after" : "before"} the edit)</span>}
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}
