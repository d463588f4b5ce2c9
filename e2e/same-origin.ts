// Playwright's API requests (page.request) carry the signed-in cookie but, unlike the browser, no
// Origin: the console refuses such a cookie-authenticated change (403 origin_required), so specs
// that change things through the API say where they come from, as the console's own pages do.
export function sameOrigin(): { origin: string } {
  const base = process.env.VIGIL_E2E_BASE_URL;
  if (!base) throw new Error("VIGIL_E2E_BASE_URL is not set: run the specs through playwright.config.ts (e2e/global-setup.ts)");
  return { origin: new URL(base).origin };
}
