"use client";
import { useLayoutEffect, useState, type RefObject } from "react";

/**
 * The element's content width, measured before the first paint and on resize (rounded to whole pixels).
 * Charts that draw thousands of marks size themselves from it once, instead of rendering at a guessed width
 * and again at the real one.
 */
export function useElementWidth(ref: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setWidth(Math.round(el.clientWidth));
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [ref]);
  return width;
}
