"use client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        // A hidden tab stops polling (refetchIntervalInBackground false) and catches up when it is shown again.
        defaultOptions: { queries: { staleTime: 1000, refetchOnWindowFocus: true, refetchIntervalInBackground: false, retry: 1 } },
      }),
  );
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
