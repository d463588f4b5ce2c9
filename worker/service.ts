// A long-running part of the worker (planner, dispatcher, reaper, cancel listener, heartbeat).
export interface WorkerService {
  readonly name: string;
  start(): Promise<void>;
  /** Stops taking new work and resolves when in-flight work is done or was ended. */
  stop(deadlineMs: number): Promise<void>;
}

/** Runs fn every intervalMs (measured from the end of the previous run) until stopped. */
export function every(intervalMs: number, fn: () => Promise<void>, onError: (err: unknown) => void) {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    if (stopped) return;
    running = fn()
      .catch(onError)
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  return {
    start() {
      tick();
    },
    /** Runs the next tick now instead of waiting for the interval. */
    poke() {
      if (stopped) return;
      clearTimeout(timer);
      running.then(() => {
        if (stopped) return;
        clearTimeout(timer);
        tick();
      });
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
