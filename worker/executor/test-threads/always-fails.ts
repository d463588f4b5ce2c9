// A thread entry for thread-pool.test.ts that throws at import, as a thread whose handler module cannot load does.
throw new Error("this thread cannot start (test thread)");
