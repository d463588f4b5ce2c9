// Lets handler modules import "vigil/sdk" wherever they live: a jobs folder outside this checkout has
// no node_modules that could hold Vigil, so the worker answers that one name itself (in the main thread
// before it loads the modules, and in every executor thread). Registered once per thread.
// A namespace import, not a named one: a named import of an export this Node lacks fails at link time,
// before worker/require-node-version.ts can say which Node is needed.
import * as nodeModule from "node:module";

export const SDK_SPECIFIERS = ["vigil/sdk", "@vigil/sdk"];
const SDK_URL = new URL("../../sdk/index.ts", import.meta.url).href;
let registered = false;

export function resolveVigilSdk(): void {
  if (registered) return;
  registered = true;
  nodeModule.registerHooks({
    resolve(specifier, context, nextResolve) {
      if (SDK_SPECIFIERS.includes(specifier)) return { url: SDK_URL, shortCircuit: true };
      return nextResolve(specifier, context);
    },
  });
}
