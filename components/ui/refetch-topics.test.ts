// A change message must lead to a read that starts after it, for every query of its topics on screen — also for a
// query whose first fetch was still in flight (a page that had just loaded when the run was triggered).
import { afterEach, describe, expect, it } from "vitest";
import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { refetchTopics } from "./refetch-topics";

const clients: QueryClient[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.clear();
});

/**
 * A tab: a query client whose fetches read `db.value` when they start and answer only when `answer()` is called (the
 * server's answer still on its way), so a test says exactly what is in flight.
 */
function tab(db: { value: string }) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: 1000 } } });
  clients.push(queryClient);
  const reads: string[] = [];
  const waiting: (() => void)[] = [];
  const queryFn = async () => {
    const seen = db.value;
    reads.push(seen);
    await new Promise<void>((r) => waiting.push(r));
    return seen;
  };
  const show = (queryKey: unknown[]) => {
    const observer = new QueryObserver(queryClient, { queryKey, queryFn });
    const unsubscribe = observer.subscribe(() => {});
    return { observer, unsubscribe };
  };
  /** Every answer in flight arrives, until nothing is fetching. */
  const answerAll = async () => {
    for (;;) {
      for (const r of waiting.splice(0)) r();
      await new Promise((r) => setTimeout(r, 5));
      if (queryClient.isFetching() === 0 && waiting.length === 0) return;
    }
  };
  return { queryClient, reads, waiting, show, answerAll };
}

describe("refetchTopics", () => {
  it("a query whose first fetch is in flight (read before the change) is fetched again: it shows the change", async () => {
    const db = { value: "0 runs started" };
    const c = tab(db);
    const card = c.show(["schedule-lateness", "s1", 6]);
    // The page's first fetch has read the database; the run starts; the message arrives before that answer does.
    await Promise.resolve();
    expect(c.reads).toEqual(["0 runs started"]);
    db.value = "1 run started";
    void refetchTopics(c.queryClient, ["runs"]);
    await c.answerAll();
    expect(card.observer.getCurrentResult().data).toBe("1 run started");
    expect(card.observer.getCurrentResult().error).toBeNull();
    card.unsubscribe();
  });

  it("a query with data is refetched; other topics' queries are left alone", async () => {
    const db = { value: "before" };
    const c = tab(db);
    const card = c.show(["schedule-lateness", "s1", 6]);
    const workers = c.show(["workers"]);
    await c.answerAll();
    db.value = "after";
    void refetchTopics(c.queryClient, ["runs"]);
    await c.answerAll();
    expect(card.observer.getCurrentResult().data).toBe("after");
    expect(workers.observer.getCurrentResult().data).toBe("before");
    card.unsubscribe();
    workers.unsubscribe();
  });

  it("a query off screen whose first fetch was in flight is fetched afresh when shown, not from the answer read before", async () => {
    const db = { value: "before" };
    const c = tab(db);
    const list = c.show(["runs", "list"]);
    await Promise.resolve();
    list.unsubscribe();
    db.value = "after";
    void refetchTopics(c.queryClient, ["runs"]);
    // The first fetch's answer (read before the change) arrives; it is not what the page is shown later.
    await c.answerAll();
    expect(c.queryClient.getQueryState(["runs", "list"])?.error).toBeNull();
    const again = c.show(["runs", "list"]);
    await c.answerAll();
    expect(again.observer.getCurrentResult().data).toBe("after");
    again.unsubscribe();
  });

  it("with restartFirstFetches false (the stream's hello) a first fetch in flight is let finish, not fetched twice", async () => {
    const db = { value: "before" };
    const c = tab(db);
    const card = c.show(["schedule-lateness", "s1", 6]);
    await Promise.resolve();
    void refetchTopics(c.queryClient, ["runs"], { restartFirstFetches: false });
    await c.answerAll();
    expect(c.reads).toEqual(["before"]);
    expect(card.observer.getCurrentResult().data).toBe("before");
    card.unsubscribe();
  });
});
