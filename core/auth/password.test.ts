import { describe, expect, it } from "vitest";
import { hashPassword, needsRehash, verifyPassword } from "./password";

describe("password hashing", () => {
  it("stores a versioned scrypt string with its own salt, and verifies only the right password", async () => {
    const a = await hashPassword("correct horse battery");
    const b = await hashPassword("correct horse battery");
    expect(a).toMatch(/^scrypt-v1\$N=32768,r=8,p=3\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(a).not.toBe(b); // per-password salt
    expect(await verifyPassword("correct horse battery", a)).toBe(true);
    expect(await verifyPassword("correct horse batterY", a)).toBe(false);
    expect(needsRehash(a)).toBe(false);
  });

  it("treats an unreadable or absurd stored hash as a wrong password instead of crashing", async () => {
    expect(await verifyPassword("x", "plaintext")).toBe(false);
    expect(await verifyPassword("x", "scrypt-v1$N=1073741824,r=8,p=1$c2FsdHNhbHQ=$a2V5")).toBe(false);
    expect(needsRehash("scrypt-v1$N=16384,r=8,p=1$c2FsdHNhbHRzYWx0$" + Buffer.alloc(64).toString("base64"))).toBe(true);
  });
});
