// Loads the handlers a worker can run: the built-ins compiled into worker/handlers/, then every module
// of the folders, files or packages the operator names (VIGIL_HANDLERS / --handlers). Both the worker's
// main thread (to advertise and route) and each executor thread (to run) load the same list.
//
// In a folder, every top-level .ts/.mts/.js/.mjs file is a handler module; subfolders, files starting with
// "_" or ".", *.d.ts and *.test.* are not (put shared code there). A module must export at least one
// handler made with defineHandler from "vigil/sdk". Anything wrong (a module that fails to import, one
// that exports no handler or an object that only looks like one, two handlers with one name) is a
// HandlerLoadError whose message is one line naming the file and the problem: the worker refuses to start.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { isHandlerDefinition, type HandlerDefinition } from "../../core/handlers/define-handler.ts";
import { handlerImplementations } from "./index.ts";
import { resolveVigilSdk } from "./sdk-resolution.ts";

export interface LoadedHandler {
  def: HandlerDefinition;
  /** "builtin", or the module file it came from. */
  source: string;
  builtin: boolean;
}

export class HandlerLoadError extends Error {
  override name = "HandlerLoadError";
}

const MODULE_EXTENSIONS = [".ts", ".mts", ".js", ".mjs"];

/** Splits VIGIL_HANDLERS / --handlers values: comma-separated, blanks ignored. */
export function parseHandlerSources(values: (string | undefined)[]): string[] {
  return values
    .flatMap((v) => (v ?? "").split(","))
    .map((s) => s.trim())
    .filter(Boolean);
}

function isHandlerModuleFile(name: string): boolean {
  if (name.startsWith("_") || name.startsWith(".") || name.endsWith(".d.ts") || /\.test\.|\.spec\./.test(name)) return false;
  return MODULE_EXTENSIONS.includes(path.extname(name));
}

/** The module files one source stands for: a folder's top-level modules, a file, or a package's entry. */
export function resolveHandlerSource(source: string, cwd: string): string[] {
  const abs = path.resolve(cwd, source);
  if (fs.existsSync(abs)) {
    const stat = fs.statSync(abs);
    if (stat.isFile()) return [abs];
    const files = fs
      .readdirSync(abs, { withFileTypes: true })
      .filter((d) => d.isFile() && isHandlerModuleFile(d.name))
      .map((d) => path.join(abs, d.name))
      .sort();
    if (files.length === 0) throw new HandlerLoadError(`${abs}: no handler modules in this folder (expected .ts, .mts, .js or .mjs files)`);
    return files;
  }
  if (source.startsWith(".") || path.isAbsolute(source)) throw new HandlerLoadError(`${abs}: no such file or folder`);
  try {
    return [createRequire(path.join(cwd, "package.json")).resolve(source)];
  } catch {
    throw new HandlerLoadError(`${source}: not a file or folder, and no package of that name is installed (from ${cwd})`);
  }
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? `${err.name === "Error" ? "" : `${err.name}: `}${err.message}` : String(err);
  return (
    text
      .split("\n")
      .find((l) => l.trim() !== "")
      ?.trim() ?? "unknown error"
  );
}

async function importModule(file: string): Promise<Record<string, unknown>> {
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    throw new HandlerLoadError(`${file}: could not load: ${firstLine(err)}`);
  }
}

/** The handlers one module exports; refuses a module without any, and handler-like objects not made by defineHandler. */
function handlersOf(file: string, mod: Record<string, unknown>): HandlerDefinition[] {
  const found: HandlerDefinition[] = [];
  for (const [exportName, value] of Object.entries(mod)) {
    if (isHandlerDefinition(value)) {
      if (!found.includes(value)) found.push(value);
    } else if (typeof value === "object" && value !== null && "run" in value && "name" in value) {
      throw new HandlerLoadError(
        `${file}: export "${exportName}" looks like a handler but was not made with defineHandler from "vigil/sdk"`,
      );
    }
  }
  if (found.length === 0) throw new HandlerLoadError(`${file}: exports no handler (export one made with defineHandler from "vigil/sdk")`);
  return found;
}

export async function loadHandlers(opts: { sources: string[]; cwd?: string }): Promise<LoadedHandler[]> {
  resolveVigilSdk();
  const cwd = opts.cwd ?? process.cwd();
  const out: LoadedHandler[] = [...handlerImplementations.values()].map((def) => ({ def, source: "builtin", builtin: true }));
  const byName = new Map(out.map((h) => [h.def.name, h]));
  for (const source of opts.sources) {
    for (const file of resolveHandlerSource(source, cwd)) {
      for (const def of handlersOf(file, await importModule(file))) {
        const other = byName.get(def.name);
        if (other) {
          const where = other.builtin ? "a built-in handler" : other.source === file ? "another export of this file" : other.source;
          throw new HandlerLoadError(`${file}: handler "${def.name}" is already defined by ${where}`);
        }
        const loaded = { def, source: file, builtin: false };
        out.push(loaded);
        byName.set(def.name, loaded);
      }
    }
  }
  return out;
}
