// Single sign-on in Chromium against a real OpenID Connect provider (oidc-provider, test/oidc-provider.ts):
// the button on the sign-in page, the provider's own login and consent pages, the way back with the role
// from the groups claim, the refusals the sign-in page explains, and a console with passwords switched off.
// It runs its own consoles (the suite's build, the suite's database) configured for the provider, so the
// suite's main console and every other spec stay as they are.
import fs from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { launch, terminate, type Managed } from "../scripts/lib/processes";
import { freePort } from "../test/postgres-for-tests";
import { startTestOidcProvider, TEST_OIDC_ACCOUNTS, type TestOidcProvider } from "../test/oidc-provider";
import { waitFor } from "../test/wait-for";

test.describe.configure({ mode: "serial", timeout: 120_000 });
test.use({ storageState: { cookies: [], origins: [] } });

interface SsoConsole {
  baseURL: string;
  process: Managed;
}

const ports: { sso: number; ssoOnly: number } = { sso: 0, ssoOnly: 0 };
let idp: TestOidcProvider;
let sso: SsoConsole;
const LOG = "artifacts/e2e-oidc-consoles.log";
let log: fs.WriteStream;

async function startConsole(name: string, port: number, env: Record<string, string>): Promise<SsoConsole> {
  const databaseUrl = process.env.VIGIL_E2E_DATABASE_URL;
  if (!databaseUrl) throw new Error("VIGIL_E2E_DATABASE_URL is not set: run the specs through playwright.config.ts (e2e/global-setup.ts)");
  const child = launch(
    name,
    ["--import", "tsx", "scripts/console-server.ts", "-p", String(port)],
    { ...process.env, DATABASE_URL: databaseUrl, NEXT_TELEMETRY_DISABLED: "1", VIGIL_PROCESS: "console", ...idp.env(), ...env },
    { quiet: true, sink: log },
  );
  const baseURL = `http://localhost:${port}`;
  await waitFor(
    `the ${name} console on ${baseURL}`,
    async () => {
      if (child.child.exitCode !== null)
        throw new Error(`the ${name} console exited (${child.child.exitCode}); see artifacts/e2e-oidc-consoles.log`);
      return (await fetch(`${baseURL}/login`)).ok;
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  return { baseURL, process: child };
}

/** The provider's own pages (its development login form and consent screen), as a person fills them in. */
async function signInAtProvider(page: Page, login: string) {
  await expect(page.locator('input[name="login"]')).toBeVisible();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
}

test.beforeAll(async () => {
  // Opened here, not at import: Playwright imports spec files before the global setup has made artifacts/.
  fs.mkdirSync("artifacts", { recursive: true });
  log = fs.createWriteStream(LOG);
  ports.sso = await freePort();
  ports.ssoOnly = await freePort();
  idp = await startTestOidcProvider({
    redirectUris: [ports.sso, ports.ssoOnly].map((p) => `http://localhost:${p}/api/auth/oidc/callback`),
  });
  sso = await startConsole("console-sso", ports.sso, {});
});

test.afterAll(async () => {
  if (sso) await terminate(sso.process);
  await idp?.stop();
  log?.end();
});

test("an admin-group user signs in with the provider and lands on the console as admin", async ({ page }) => {
  await page.goto(`${sso.baseURL}/runs`);
  await expect(page).toHaveURL(/\/login\?next=%2Fruns/);
  const button = page.getByRole("link", { name: "Sign in with Test IdP" });
  await expect(button).toBeVisible();
  // Local passwords stay available beside it.
  await expect(page.getByLabel("Password")).toBeVisible();
  await page.screenshot({ path: "artifacts/oidc-login-page.png" });

  await button.click();
  await expect(page).toHaveURL(new RegExp(`^${idp.issuer}/interaction/`));
  await signInAtProvider(page, TEST_OIDC_ACCOUNTS.admin.login);

  await expect(page).toHaveURL(`${sso.baseURL}/runs`);
  await expect(page.getByTestId("user-menu-label")).toHaveText(TEST_OIDC_ACCOUNTS.admin.email);
  await expect(page.getByTestId("user-menu")).toContainText("admin");
  await expect(page.getByRole("link", { name: "Admin" })).toBeVisible();
  const cookies = await page.context().cookies(sso.baseURL);
  expect(cookies.find((c) => c.name === "vigil_session")).toMatchObject({ httpOnly: true, sameSite: "Lax" });
  expect(cookies.find((c) => c.name === "vigil_oidc_flow")).toBeUndefined();
});

test("a viewer-group user gets the viewer role", async ({ page }) => {
  await page.goto(`${sso.baseURL}/login`);
  await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
  await signInAtProvider(page, TEST_OIDC_ACCOUNTS.viewer.login);
  await expect(page).toHaveURL(`${sso.baseURL}/schedules`);
  await expect(page.getByTestId("user-menu-label")).toHaveText(TEST_OIDC_ACCOUNTS.viewer.email);
  await expect(page.getByTestId("user-menu")).toContainText("viewer");
  const me = await page.request.get(`${sso.baseURL}/api/auth/me`);
  expect((await me.json()).actor.role).toBe("viewer");
});

test("a user in no mapped group is refused with a clear message on the sign-in page", async ({ page }) => {
  await page.goto(`${sso.baseURL}/login`);
  await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
  await signInAtProvider(page, TEST_OIDC_ACCOUNTS.outsider.login);
  await expect(page).toHaveURL(`${sso.baseURL}/login?sso_error=no_role`);
  await expect(page.getByTestId("sso-error")).toHaveText(
    "Your Test IdP account is not in a group that may use Vigil. Ask an admin to add you to one, then sign in again.",
  );
  await page.screenshot({ path: "artifacts/oidc-login-refused.png" });
  const cookies = await page.context().cookies(sso.baseURL);
  expect(cookies.find((c) => c.name === "vigil_session")).toBeUndefined();
});

test("a tampered state on the way back is refused, not signed in", async ({ page }) => {
  // The provider's redirect back reaches the browser with its state changed (a crafted link would look the same).
  idp.rewriteRedirects = (url) => {
    url.searchParams.set("state", "forged-state");
    return url;
  };
  try {
    await page.goto(`${sso.baseURL}/login`);
    await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
    await signInAtProvider(page, TEST_OIDC_ACCOUNTS.admin.login);
    await expect(page).toHaveURL(`${sso.baseURL}/login?sso_error=invalid_state`);
  } finally {
    idp.rewriteRedirects = null;
  }
  await expect(page.getByTestId("sso-error")).toContainText("could not be verified");
  const cookies = await page.context().cookies(sso.baseURL);
  expect(cookies.find((c) => c.name === "vigil_session")).toBeUndefined();
});

test("cancelling at the provider comes back as a clear message, never an error page", async ({ page }) => {
  await page.goto(`${sso.baseURL}/login`);
  await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
  await page.getByRole("link", { name: "[ Cancel ]" }).click();
  await expect(page).toHaveURL(`${sso.baseURL}/login?sso_error=access_denied`);
  await expect(page.getByTestId("sso-error")).toHaveText(
    "Sign-in was cancelled or refused at Test IdP. Try again, or ask an admin if you should have access.",
  );
});

test("with VIGIL_LOCAL_LOGIN=off the password form is gone, a password sign-in is refused, and single sign-on works", async ({ page }) => {
  const only = await startConsole("console-sso-only", ports.ssoOnly, { VIGIL_LOCAL_LOGIN: "off" });
  try {
    await page.goto(`${only.baseURL}/login`);
    await expect(page.getByRole("link", { name: "Sign in with Test IdP" })).toBeVisible();
    await expect(page.getByLabel("Password")).toHaveCount(0);
    await expect(page.getByTestId("local-login-off")).toHaveText("Password sign-in is switched off on this console.");
    await page.screenshot({ path: "artifacts/oidc-login-sso-only.png" });

    const res = await page.request.post(`${only.baseURL}/api/auth/login`, {
      headers: { origin: only.baseURL },
      data: { email: "admin@vigil.test", password: "correct-horse-battery-staple" },
    });
    expect(res.status()).toBe(403);
    expect((await res.json()).error.code).toBe("local_login_disabled");

    await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
    await signInAtProvider(page, TEST_OIDC_ACCOUNTS.operator.login);
    await expect(page).toHaveURL(`${only.baseURL}/schedules`);
    await expect(page.getByTestId("user-menu")).toContainText("operator");
  } finally {
    await terminate(only.process);
  }
  // Neither console wrote the client secret to its log (every line both printed is in this file).
  await new Promise<void>((resolve) => log.write("", () => resolve()));
  expect(fs.readFileSync(LOG, "utf8")).not.toContain(idp.clientSecret);
});
