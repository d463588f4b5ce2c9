// Which handlers put their work in a process group of their own, which a timeout or cancel signals (SIGTERM, then
// SIGKILL after the grace): only shell.command. Every other handler runs inside the attempt's worker thread, which
// the abort signal and the thread's termination end. Plain data, so the console can import it without the spec.

export const SHELL_COMMAND_HANDLER = "shell.command";

/** Whether a run of `handler` can have a process group for a cancel or timeout to signal. */
export function runsInProcessGroup(handler: string): boolean {
  return handler === SHELL_COMMAND_HANDLER;
}
