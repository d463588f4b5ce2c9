-- Room on each page of attempts for the updated row. An attempt is inserted by the claim and updated by its
-- outcome (and by every heartbeat while it runs); none of those updates changes an indexed column (attempts has
-- only its primary key and (run_id, number)), so each can be a HOT update — no index entry at all — when the new
-- version fits on the row's page. At the default fillfactor (100) a batch of claims fills the page, and the
-- outcome's new version went to another page with two index entries. Applies to pages written from now on.
ALTER TABLE "attempts" SET (fillfactor = 80);
