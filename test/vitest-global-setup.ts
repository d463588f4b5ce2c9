// Vitest global setup for database tests: one server and one migrated template per run.
import type { TestProject } from "vitest/node";
import { startTestPostgres } from "./postgres-for-tests";

export default async function setup(project: TestProject) {
  const { adminUrl, stop } = await startTestPostgres();
  project.provide("adminUrl", adminUrl);
  return stop;
}

declare module "vitest" {
  export interface ProvidedContext {
    adminUrl: string;
  }
}
