// The run half of every handler the worker can execute, by name. Loaded inside executor threads.
import type { HandlerDefinition } from "../../core/handlers/define-handler";
import { ledgerPost } from "./ledger-post";
import { httpRequest } from "./http-request";
import { demoSleep } from "./demo-sleep";
import { demoFlaky } from "./demo-flaky";
import { demoHang } from "./demo-hang";
import { demoCpu } from "./demo-cpu";
import { demoNoop } from "./demo-noop";

const all: HandlerDefinition[] = [ledgerPost, httpRequest, demoSleep, demoFlaky, demoHang, demoCpu, demoNoop] as HandlerDefinition[];

export const handlerImplementations: ReadonlyMap<string, HandlerDefinition> = new Map(all.map((h) => [h.name, h]));
