// Lint rules that keep the architecture honest: core/ is framework-free, imported by the console
// and the worker alike, so it may not reach into next/*, react, app/, components/ or worker/.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", ".next/", ".vigil/", "next-env.d.ts", "test-results/", "artifacts/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-empty": ["error", { allowEmptyCatch: false }],
    },
  },
  {
    files: ["core/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["next", "next/*"], message: "core/ is framework-free: no Next.js imports." },
            { group: ["react", "react-dom", "react/*", "react-dom/*"], message: "core/ is framework-free: no React." },
            {
              group: ["@/app/*", "@/components/*", "@/worker/*", "**/app/*", "**/components/*", "**/worker/*"],
              message: "core/ must not import app/, components/ or worker/.",
            },
          ],
        },
      ],
    },
  },
);
