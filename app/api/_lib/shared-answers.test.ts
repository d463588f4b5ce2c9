import { describe, expect, it } from "vitest";
import { forgetSharedAnswers, sharedAnswer } from "./shared-answers";

describe("answers shared by a console's tabs", () => {
  it("hands the kept answer to the next asker of the same version, and none once forgotten", async () => {
    const first = sharedAnswer("timeline\0/api/timeline", "v1", "viewer", async () => "before the run");
    expect(first.hit).toBe(false);
    const again = sharedAnswer("timeline\0/api/timeline", "v1", "viewer", async () => "never computed");
    expect(again.hit).toBe(true);
    expect(await again.text).toBe("before the run");
    // A fresher answer was computed per request (a write of this console named no topic, so the shared version is
    // back to v1): the kept one must not be handed out after it, or the tab would show the older state again.
    forgetSharedAnswers();
    const after = sharedAnswer("timeline\0/api/timeline", "v1", "viewer", async () => "after the run");
    expect(after.hit).toBe(false);
    expect(await after.text).toBe("after the run");
    expect(after.etag).not.toBe(first.etag);
  });
});
