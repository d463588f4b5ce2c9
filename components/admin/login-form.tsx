"use client";
import { useState, type FormEvent } from "react";
import { FormField } from "../ui/form-field";
import { ApiError, fetchJson } from "../ui/fetch-json";

/**
 * `primary`: the form is the main way in (no single sign-on button above it). `initialError`: why the last sign-in
 * posted without JavaScript failed (the login route redirected back here with a code).
 * The form is a real POST form to /api/auth/login: before the page hydrates, or with JavaScript off, the browser
 * posts it form-encoded and the route answers with a redirect (app/api/auth/login/form-login.ts); once hydrated,
 * the script sends the same fields as JSON. Either way no credential ever goes into a URL.
 */
export function LoginForm({
  next,
  primary = true,
  initialError = null,
}: {
  next: string;
  primary?: boolean;
  initialError?: string | null;
}) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(initialError);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setFields({});
    try {
      await fetchJson("/api/auth/login", { method: "POST", json: { email, password } });
      // A full navigation, so every part of the page (header menu included) starts signed in.
      window.location.assign(next);
    } catch (err) {
      setBusy(false);
      if (err instanceof ApiError) {
        setError(err.message);
        setFields(err.fields ?? {});
      } else {
        setError("The console could not be reached. Try again.");
      }
    }
  }

  return (
    <form className="card" method="post" action="/api/auth/login" onSubmit={submit} aria-label="Sign in" noValidate>
      <input type="hidden" name="next" value={next} />
      <FormField label="Email" error={fields.email} testId="login-email">
        <input
          type="email"
          name="email"
          autoComplete="username"
          required
          autoFocus
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </FormField>
      <FormField label="Password" error={fields.password} testId="login-password">
        <input
          type="password"
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </FormField>
      {error && (
        <p className="error" role="alert" data-testid="login-error">
          {error}
        </p>
      )}
      <button type="submit" className={primary ? "primary" : undefined} disabled={busy}>
        {busy ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
