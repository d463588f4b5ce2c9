-- Trigger URLs: an outside system fires a schedule by POSTing to /api/hooks/<id>, authenticated by the URL's own
-- secret. The secret is shown once (at creation and at each rotation) and never stored in the clear:
-- secret_hash (SHA-256, hex) is what a bearer secret is compared with; an HMAC URL needs the secret itself to verify
-- a signature, so it is also kept encrypted (AES-256-GCM under VIGIL_SECRET_KEY, core/secrets/secret-crypto.ts).
-- The rate limit is a per-URL window counted in the row itself, so it holds across every console instance.
CREATE TABLE trigger_urls (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    schedule_id uuid NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
    label text NOT NULL CHECK (length(label) BETWEEN 1 AND 100),
    auth_mode text NOT NULL CHECK (auth_mode IN ('hmac', 'bearer')),
    payload_mode text NOT NULL CHECK (payload_mode IN ('schedule', 'body')),
    rate_limit_per_minute integer NOT NULL CHECK (rate_limit_per_minute BETWEEN 1 AND 6000),
    secret_hash text NOT NULL,
    secret_ciphertext bytea,
    secret_iv bytea,
    secret_auth_tag bytea,
    secret_key_id text,
    secret_rotated_at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
    created_at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
    created_by text NOT NULL,
    revoked_at timestamptz(3),
    revoked_by text,
    last_used_at timestamptz(3),
    rate_window_start timestamptz(3),
    rate_count integer NOT NULL DEFAULT 0,
    CHECK (auth_mode = 'bearer' OR (secret_ciphertext IS NOT NULL AND secret_iv IS NOT NULL AND secret_auth_tag IS NOT NULL AND secret_key_id IS NOT NULL))
);
CREATE INDEX trigger_urls_schedule_idx ON trigger_urls (schedule_id, created_at);

-- Deliveries already answered, by the sender's Idempotency-Key / Vigil-Delivery-Id (or, for a signed delivery
-- without one, its signature): a repeat answers the first delivery's run and creates nothing.
CREATE TABLE trigger_url_deliveries (
    trigger_url_id uuid NOT NULL REFERENCES trigger_urls(id) ON DELETE CASCADE,
    delivery_key text NOT NULL,
    run_id uuid,
    created_at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (trigger_url_id, delivery_key)
);
CREATE INDEX trigger_url_deliveries_age_idx ON trigger_url_deliveries (trigger_url_id, created_at);
