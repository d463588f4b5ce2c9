-- Running a program on a worker host is a permission of its own: admins hold it by their role, an operator only
-- when an admin grants it (users.can_run_programs). A handler that runs a program is marked by the workers that
-- advertise it (handlers.runs_programs), so the console knows which schedules need the permission.
ALTER TABLE users ADD COLUMN can_run_programs boolean NOT NULL DEFAULT false;
ALTER TABLE handlers ADD COLUMN runs_programs boolean NOT NULL DEFAULT false;
UPDATE handlers SET runs_programs = true WHERE name = 'shell.command';
