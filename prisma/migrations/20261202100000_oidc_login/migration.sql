-- Single sign-on (OIDC). A user signed in through the identity provider is known by the provider's
-- issuer and subject (`sub`), which never change, not by an email, which can. Such a user may have no
-- local password: password_hash is NULL then, and the password form can never sign them in.
ALTER TABLE "users" ALTER COLUMN "password_hash" DROP NOT NULL;
ALTER TABLE "users" ADD COLUMN "oidc_issuer" TEXT;
ALTER TABLE "users" ADD COLUMN "oidc_subject" TEXT;
ALTER TABLE "users" ADD CONSTRAINT "users_oidc_identity_check" CHECK (("oidc_issuer" IS NULL) = ("oidc_subject" IS NULL));
CREATE UNIQUE INDEX "users_oidc_identity_key" ON "users"("oidc_issuer", "oidc_subject");

-- One row per sign-in started at the provider and not yet finished: state, nonce and the PKCE verifier,
-- kept here (not in the browser) so any console instance can finish the flow. The browser holds only a
-- random id in a short-lived HttpOnly cookie; the row's key is its SHA-256. A row is used once (deleted
-- when the callback arrives) and expires after 10 minutes.
CREATE TABLE "oidc_login_flows" (
    "id" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "code_verifier" TEXT NOT NULL,
    "redirect_uri" TEXT NOT NULL,
    "next_path" TEXT NOT NULL DEFAULT '/',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "oidc_login_flows_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "oidc_login_flows_expires_at_idx" ON "oidc_login_flows"("expires_at");
