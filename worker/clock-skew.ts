// Test hook (VIGIL_TEST_CLOCK_SKEW_MS): shifts this process's wall clock to prove that nothing in
// scheduling reads it. Imported first by worker/main.ts; does nothing when the variable is unset.
const skew = Number(process.env.VIGIL_TEST_CLOCK_SKEW_MS ?? 0);

if (skew) {
  const RealDate = Date;
  const realNow = RealDate.now.bind(RealDate);
  class SkewedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(realNow() + skew);
      else super(...(args as [string]));
    }
    static now(): number {
      return realNow() + skew;
    }
  }
  globalThis.Date = SkewedDate as DateConstructor;
}

export const clockSkewMs = skew;
