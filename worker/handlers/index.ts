// The run half of every handler the worker can execute, by name. Loaded inside executor threads.
import type { HandlerDefinition } from "../../core/handlers/define-handler";
import { ledgerPost } from "./ledger-post.ts";
import { httpRequest } from "./http-request.ts";
import { shellCommand } from "./shell-command.ts";
import { demoSleep } from "./demo-sleep.ts";
import { demoFlaky } from "./demo-flaky.ts";
import { demoHang } from "./demo-hang.ts";
import { demoCpu } from "./demo-cpu.ts";
import { demoNoop } from "./demo-noop.ts";

const all: HandlerDefinition[] = [
  ledgerPost,
  httpRequest,
  shellCommand,
  demoSleep,
  demoFlaky,
  demoHang,
  demoCpu,
  demoNoop,
] as HandlerDefinition[];

export const handlerImplementations: ReadonlyMap<string, HandlerDefinition> = new Map(all.map((h) => [h.name, h]));
