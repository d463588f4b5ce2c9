-- Secrets: values a payload refers to by name ({"$secret": "NAME"}), encrypted at rest with AES-256-GCM under
-- VIGIL_SECRET_KEY (a fresh 12-byte IV per value; the name is the additional authenticated data, so a value
-- cannot be moved to another name). key_id is a fingerprint of the key that encrypted the value: resolving
-- under another key says so instead of failing with an opaque authentication error. Only the worker decrypts.
CREATE TABLE "secrets" (
  "name"        TEXT PRIMARY KEY CONSTRAINT "secrets_name_format" CHECK ("name" ~ '^[A-Z][A-Z0-9_]{0,63}$'),
  "ciphertext"  BYTEA NOT NULL,
  "iv"          BYTEA NOT NULL,
  "auth_tag"    BYTEA NOT NULL,
  "key_id"      TEXT NOT NULL,
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
  "created_by"  TEXT NOT NULL,
  "updated_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
  "updated_by"  TEXT NOT NULL
);
