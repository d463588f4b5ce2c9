-- Secrets by permission: each secret carries an access rule saying which schedules may refer to it (by name, by
-- tag, optionally only with given handlers). The console decides it when a schedule is saved, the worker again
-- when a run resolves the value. An empty rule lets no schedule use the secret.
ALTER TABLE "secrets" ADD COLUMN "access" JSONB NOT NULL DEFAULT '{"schedules": [], "tags": [], "handlers": []}';

-- An upgrade breaks nothing: each existing secret is allowed to the schedules that refer to it now, in their
-- payload or in a run not yet finished (a trigger's payload override), so today's references keep working.
UPDATE "secrets" x
   SET "access" = jsonb_build_object(
         'schedules', coalesce((
           SELECT jsonb_agg(s.name ORDER BY s.name)
             FROM "schedules" s
            WHERE s.deleted_at IS NULL
              AND (jsonb_path_exists(s.payload, 'strict $.**."$secret" ? (@ == $n)', jsonb_build_object('n', x.name))
                   OR EXISTS (SELECT 1 FROM "runs" r
                               WHERE r.schedule_id = s.id AND r.finished_at IS NULL
                                 AND jsonb_path_exists(r.payload, 'strict $.**."$secret" ? (@ == $n)', jsonb_build_object('n', x.name))))
         ), '[]'::jsonb),
         'tags', '[]'::jsonb,
         'handlers', '[]'::jsonb);
