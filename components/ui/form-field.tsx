import { useId, type ReactElement, type ReactNode } from "react";
import { cloneElement } from "react";

interface Props {
  label: string;
  /** One line on what the field means. */
  hint?: ReactNode;
  error?: string;
  /** The input; it gets id, aria-describedby and aria-invalid wired to the label, hint and error. */
  children: ReactElement<Record<string, unknown>>;
  testId?: string;
}

/** A labelled input with its hint and its error (client-side or the server's, keyed by field path). */
export function FormField({ label, hint, error, children, testId }: Props) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className="field" data-testid={testId}>
      <label htmlFor={id}>{label}</label>
      {cloneElement(children, { id, "aria-describedby": describedBy, "aria-invalid": error ? true : undefined })}
      {hint && (
        <div className="hint" id={hintId}>
          {hint}
        </div>
      )}
      {error && (
        <div className="field-error" id={errorId} role="alert" data-testid={testId ? `${testId}-error` : undefined}>
          {error}
        </div>
      )}
    </div>
  );
}
