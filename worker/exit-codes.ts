// How a worker process ends, as its launcher (scripts/start.ts) reads it.
/** The worker refused its configuration (a broken handler module, an unknown flag): restarting would not help. */
export const WORKER_CONFIG_EXIT_CODE = 78; // EX_CONFIG in sysexits.h
