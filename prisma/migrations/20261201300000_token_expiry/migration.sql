-- API tokens expire. Tokens that exist already get 90 days from now (the default lifetime), so nothing
-- stops working at the moment of the upgrade; new tokens get the creator's choice up to the maximum.
-- The column default covers tokens inserted directly (tests, scripts) rather than through createApiToken.
ALTER TABLE "api_tokens" ADD COLUMN "expires_at" TIMESTAMPTZ(3);
UPDATE "api_tokens" SET "expires_at" = now() + interval '90 days';
ALTER TABLE "api_tokens" ALTER COLUMN "expires_at" SET DEFAULT (now() + interval '90 days');
ALTER TABLE "api_tokens" ALTER COLUMN "expires_at" SET NOT NULL;

-- A token works only while its creator is active with at least the token's role; authenticate() checks
-- the creator on every call, through this index.
CREATE INDEX "api_tokens_created_by_idx" ON "api_tokens"("created_by");
