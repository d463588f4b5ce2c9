"use client";
import { useEffect, useState } from "react";

/** The viewer's clock, re-read every `everyMs`, so relative times ("in 12 s") count down between fetches. */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}
