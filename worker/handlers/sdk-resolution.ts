// Lets handler modules import "vigil/sdk" wherever they live: a jobs folder outside this checkout has
// no node_modules that could hold Vigil, so the worker answers that one name itself (in the main thread
// before it loads the modules, and in every executor thread). Registered once per thread.
import { registerHooks } from "node:module";

export const SDK_SPECIFIERS = ["vigil/sdk", "@vigil/sdk"];
const SDK_URL = new URL("../../sdk/index.ts", import.meta.url).href;
let registered = false;

export function resolveVigilSdk(): void {
  if (registered) return;
  registered = true;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if (SDK_SPECIFIERS.includes(specifier)) return { url: SDK_URL, shortCircuit: true };
      return nextResolve(specifier, context);
    },
  });
}
