#!/usr/bin/env node
// The `vigil` executable (package.json "bin"): runs the TypeScript CLI through tsx, resolved from this package.
import process from "node:process";
import { register } from "tsx/esm/api";

register();
const { runVigil } = await import("../vigil-program.ts");
process.exitCode = await runVigil(process.argv.slice(2));
