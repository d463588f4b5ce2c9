"use client";
// The two display choices in the user menu: the zone times are shown in (local or UTC) and the colour theme
// (the browser's prefers-color-scheme, or light or dark). Both live in this browser's localStorage; the time
// choice is kept per signed-in user (another user on the same browser has their own), the theme per browser.
import { Fragment, useEffect, useSyncExternalStore, type ReactNode } from "react";
import { useQuery } from "@tanstack/react-query";
import { getTimeDisplay, setTimeDisplay, subscribeTimeDisplay, type TimeDisplay } from "./time-format";
import { meQuery, type Me } from "./me-query";
import { THEME_STORAGE_KEY } from "./theme-script";

export type ThemeChoice = "system" | "light" | "dark";

function timeStorageKey(me: Me | null | undefined): string | null {
  if (!me) return null;
  return `vigil.timeDisplay.${me.actor.type}:${me.actor.id ?? me.actor.label}`;
}

function readStorage(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    // Storage refused (private mode, disabled): the choice lasts for this page only.
    return null;
  }
}

function writeStorage(key: string, value: string | null): void {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // as above
  }
}

/** The signed-in user's time choice, and a setter that remembers it for them. */
export function useTimeDisplay(): [TimeDisplay, (next: TimeDisplay) => void] {
  const { data: me } = useQuery(meQuery());
  const value = useSyncExternalStore(subscribeTimeDisplay, getTimeDisplay, () => "local" as const);
  const set = (next: TimeDisplay) => {
    const key = timeStorageKey(me);
    if (key) writeStorage(key, next === "utc" ? "utc" : null);
    setTimeDisplay(next);
  };
  return [value, set];
}

let theme: ThemeChoice = "system";
const themeListeners = new Set<() => void>();

function applyTheme(next: ThemeChoice) {
  theme = next;
  if (next === "system") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = next;
  for (const l of themeListeners) l();
}

/** The theme choice of this browser, and a setter that remembers it. */
export function useTheme(): [ThemeChoice, (next: ThemeChoice) => void] {
  const value = useSyncExternalStore(
    (l) => {
      themeListeners.add(l);
      return () => themeListeners.delete(l);
    },
    () => theme,
    () => "system" as const,
  );
  const set = (next: ThemeChoice) => {
    writeStorage(THEME_STORAGE_KEY, next === "system" ? null : next);
    applyTheme(next);
  };
  return [value, set];
}

/**
 * Loads the stored choices once the user is known and redraws the page when the time choice changes:
 * the formatters in time-format.ts are plain functions, so everything below is remounted under a new key
 * (the query cache sits above it, so nothing is fetched again).
 */
export function DisplayPreferences({ children }: { children: ReactNode }) {
  const { data: me } = useQuery(meQuery());
  const key = timeStorageKey(me);
  useEffect(() => {
    setTimeDisplay(key && readStorage(key) === "utc" ? "utc" : "local");
  }, [key]);
  useEffect(() => {
    const t = readStorage(THEME_STORAGE_KEY);
    if (t === "light" || t === "dark") applyTheme(t);
  }, []);
  const display = useSyncExternalStore(subscribeTimeDisplay, getTimeDisplay, () => "local" as const);
  return <Fragment key={display}>{children}</Fragment>;
}

/** The user menu's "Display" drop-down: times in local time or UTC, and the theme. */
export function DisplayToggles() {
  const [time, setTime] = useTimeDisplay();
  const [themeChoice, setThemeChoice] = useTheme();
  return (
    <details className="display-menu" data-testid="display-menu">
      <summary title="Time zone and theme" aria-label={`Display: times in ${time === "utc" ? "UTC" : "local time"}; theme`}>
        {time === "utc" ? "UTC" : "Local"}
      </summary>
      <div className="display-menu-panel card">
        <label>
          Show times in
          <select value={time} onChange={(e) => setTime(e.target.value as TimeDisplay)} data-testid="time-display">
            <option value="local">Local time ({Intl.DateTimeFormat().resolvedOptions().timeZone})</option>
            <option value="utc">UTC</option>
          </select>
        </label>
        <label>
          Theme
          <select value={themeChoice} onChange={(e) => setThemeChoice(e.target.value as ThemeChoice)} data-testid="theme-choice">
            <option value="system">As the browser prefers</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </label>
      </div>
    </details>
  );
}
