import { describe, expect, it } from "vitest";
import { resolveJobIdentity } from "./job-identity";

const root = process.getuid?.() === 0;

describe("who a program job runs as", () => {
  it("refuse: no program job runs, and the reason names the setting", () => {
    expect(resolveJobIdentity("refuse", "nobody")).toEqual({ mode: "refused", reason: "VIGIL_WORKER_PROGRAMS=refuse" });
  });

  it("same-user: only when the operator says so", () => {
    expect(resolveJobIdentity("same-user", "nobody")).toEqual({ mode: "same-user" });
  });

  it.runIf(root)("allow, as root: the named unprivileged user", () => {
    expect(resolveJobIdentity("allow", "nobody")).toMatchObject({ mode: "separate", user: "nobody", uid: expect.any(Number) });
  });

  it.runIf(root)("allow, as root: root itself is refused as the job user", () => {
    expect(resolveJobIdentity("allow", "root")).toMatchObject({
      mode: "refused",
      reason: expect.stringMatching(/root or this worker's own user/),
    });
  });

  it.runIf(!root)("allow, not root: refused with what to do instead", () => {
    expect(resolveJobIdentity("allow", "vigil-job")).toMatchObject({
      mode: "refused",
      reason: expect.stringMatching(/VIGIL_WORKER_PROGRAMS=same-user/),
    });
  });
});
