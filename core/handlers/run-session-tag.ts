// Every Postgres session an attempt opens carries this application_name, so a timeout, cancel or
// reaper can find and terminate the attempt's sessions from any process.
export function runSessionTag(runId: string): string {
  return `vigil-run-${runId}`;
}
