-- The console change stream's `schedules` topic (issue 17, busy fleet): a schedule's definition, a pause or a
-- maintenance window changed. Before, all of these were part of the `runs` topic (one sequence, vigil_console_version,
-- bumped by runs and schedules alike), so every run that finished made every open page refetch the maintenance
-- banner too. vigil_console_schedules_version is bumped only by these rare writes; vigil_console_version is left as
-- it is (still bumped by schedule changes too: the schedules list and the timeline show both).
-- A sequence, like vigil_console_version: nextval never waits on another transaction.

CREATE SEQUENCE "vigil_console_schedules_version";

CREATE FUNCTION vigil_bump_console_schedules_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM nextval('vigil_console_schedules_version');
  RETURN NULL;
END $$;

CREATE TRIGGER schedules_console_schedules_version_insert AFTER INSERT OR DELETE ON "schedules"
    FOR EACH STATEMENT EXECUTE FUNCTION vigil_bump_console_schedules_version();
-- The columns of schedules_console_version_update (20261202700000) plus the maintenance window a schedule is held by.
CREATE TRIGGER schedules_console_schedules_version_update AFTER UPDATE ON "schedules" FOR EACH ROW
    WHEN ((OLD.revision, OLD.updated_at, OLD.paused_at, OLD.paused_until, OLD.deleted_at, OLD.enabled, OLD.name, OLD.tags, OLD.maintenance_id)
          IS DISTINCT FROM (NEW.revision, NEW.updated_at, NEW.paused_at, NEW.paused_until, NEW.deleted_at, NEW.enabled, NEW.name, NEW.tags, NEW.maintenance_id))
    EXECUTE FUNCTION vigil_bump_console_schedules_version();
CREATE TRIGGER maintenance_windows_console_schedules_version AFTER INSERT OR UPDATE OR DELETE ON "maintenance_windows"
    FOR EACH STATEMENT EXECUTE FUNCTION vigil_bump_console_schedules_version();
