"use client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { ChangeStream } from "@/components/ui/change-stream";

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        // A hidden tab stops polling (refetchIntervalInBackground false) and closes its change stream; it catches
        // up when it is shown again.
        defaultOptions: { queries: { staleTime: 1000, refetchOnWindowFocus: true, refetchIntervalInBackground: false, retry: 1 } },
      }),
  );
  return (
    <QueryClientProvider client={client}>
      <ChangeStream />
      {children}
    </QueryClientProvider>
  );
}
