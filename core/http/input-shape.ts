// Shape checks every request input passes before its schema sees it. PostgreSQL cannot store a NUL
// character in text or jsonb (the insert fails: a 500), and a value nested thousands deep overflows
// the stack of the recursive code that later walks it (zod, JSON.stringify): a 500 again. Both are
// refused here, once, with the path to the offending value.
export const MAX_INPUT_DEPTH = 64;

export type InputProblem = { path: string; kind: "nul" | "too_deep" };

/** The first NUL character or over-deep nesting in a parsed JSON value or query, or null. Iterative. */
export function findInputProblem(value: unknown, maxDepth = MAX_INPUT_DEPTH): InputProblem | null {
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: value, path: "", depth: 0 }];
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === "string") {
      if (v.includes("\u0000")) return { path: path || "_", kind: "nul" };
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (depth >= maxDepth) return { path: path || "_", kind: "too_deep" };
    for (const [k, child] of Object.entries(v)) {
      const p = path ? `${path}.${k}` : k;
      if (k.includes("\u0000")) return { path: p.replaceAll("\u0000", "\\u0000"), kind: "nul" };
      stack.push({ v: child, path: p, depth: depth + 1 });
    }
  }
  return null;
}

export function describeInputProblem(p: InputProblem, where: "body" | "query"): { code: string; message: string; field: string } {
  if (p.kind === "nul") {
    return {
      code: "invalid_characters",
      message: `The ${where === "body" ? "request body" : "query string"} contains a NUL character (\\u0000), which Vigil cannot store; remove it.`,
      field: "contains a NUL character (\\u0000)",
    };
  }
  return {
    code: "too_deep",
    message: `The request body nests objects or arrays more than ${MAX_INPUT_DEPTH} levels deep; flatten it.`,
    field: `nested more than ${MAX_INPUT_DEPTH} levels deep`,
  };
}
