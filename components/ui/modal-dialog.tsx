"use client";
import { useEffect, useRef, type FormEvent, type ReactNode } from "react";

interface Props {
  open: boolean;
  title: string;
  onClose: () => void;
  /** Called when the form is submitted (Enter in a field, or the confirm button). */
  onSubmit?: () => void;
  children: ReactNode;
  /** The action buttons; the first `type="submit"` button is the confirm action. */
  actions: ReactNode;
  testId?: string;
}

/**
 * A modal on the native <dialog>: the browser traps focus, Esc closes it (we listen for "cancel" and tell the
 * parent), and focus returns to the element that opened it. The first input, or the first button, gets focus.
 */
export function ModalDialog({ open, title, onClose, onSubmit, children, actions, testId }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);

  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      opener.current = document.activeElement;
      d.showModal();
      const first = d.querySelector<HTMLElement>("input, textarea, select") ?? d.querySelector<HTMLElement>("button[type=submit], button");
      first?.focus();
    } else if (!open && d.open) {
      d.close();
      if (opener.current instanceof HTMLElement) opener.current.focus();
    }
  }, [open]);

  const titleId = `${testId ?? "dialog"}-title`;
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      data-testid={testId}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <form
        method="dialog"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          onSubmit?.();
        }}
      >
        <h2 id={titleId} style={{ marginTop: 0 }}>
          {title}
        </h2>
        {children}
        <div className="row dialog-actions">
          <span className="spacer" />
          <button type="button" onClick={onClose}>
            Close
          </button>
          {actions}
        </div>
      </form>
    </dialog>
  );
}
