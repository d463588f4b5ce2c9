import { describe, expect, it } from "vitest";
import { DEFAULT_WINDOW, fittedDefaultWindow, presetWindow, resolveWindow, WINDOW_PRESETS, windowKey } from "./timeline-window";

const MIN = 60_000;
const now = Date.parse("2026-12-02T12:00:00Z");
const label = (w: ReturnType<typeof fittedDefaultWindow>) => WINDOW_PRESETS.find((p) => windowKey(p.window) === windowKey(w))?.label;

describe("the default window fitted to the history", () => {
  it("a new install's few minutes of runs fill the narrowest preset that holds them", () => {
    expect(label(fittedDefaultWindow(now - 3 * MIN, now))).toBe("Last 15 min + next 5 min");
    expect(label(fittedDefaultWindow(now - 15 * MIN, now))).toBe("Last 15 min + next 5 min");
    expect(label(fittedDefaultWindow(now - 16 * MIN, now))).toBe("Last 1 h + next 15 min");
    // Runs enqueued ahead of their time only (nothing ran yet): the narrowest.
    expect(label(fittedDefaultWindow(now + 20_000, now))).toBe("Last 15 min + next 5 min");
  });

  it("a history older than the default's past, or none, keeps the default (never wider)", () => {
    expect(fittedDefaultWindow(now - 90 * MIN, now)).toBe(DEFAULT_WINDOW);
    expect(fittedDefaultWindow(now - 6 * 60 * MIN, now)).toBe(DEFAULT_WINDOW);
    expect(fittedDefaultWindow(now - 30 * 24 * 60 * MIN, now)).toBe(DEFAULT_WINDOW);
    expect(fittedDefaultWindow(null, now)).toBe(DEFAULT_WINDOW);
  });
});

describe("window presets of the plan ahead", () => {
  it("names next-6h, next-24h and next-7d in the address, each from now to that far ahead", () => {
    expect(resolveWindow(presetWindow("next-6h")!, 1_000_000)).toEqual({ from: 1_000_000, to: 1_000_000 + 6 * 3_600_000 });
    expect(resolveWindow(presetWindow("next-24h")!, 0)).toEqual({ from: 0, to: 24 * 3_600_000 });
    expect(resolveWindow(presetWindow("next-7d")!, 0)).toEqual({ from: 0, to: 7 * 86_400_000 });
    expect(presetWindow("nonsense")).toBeUndefined();
  });
});
