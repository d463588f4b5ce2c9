import type { Metadata } from "next";
import type { ReactNode } from "react";
import Link from "next/link";
import "./globals.css";
import { Providers } from "./providers";
import { Nav } from "@/components/ui/nav";
import { HealthPill } from "@/components/ui/health-pill";
import { AttentionIndicator } from "@/components/ui/attention-indicator";
import { AlertsBadge } from "@/components/ui/alerts-badge";
import { UserMenu } from "@/components/ui/user-menu";

export const metadata: Metadata = { title: "Vigil", description: "Schedules that must not double-run" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <Providers>
          <header className="topbar">
            <Link href="/" className="brand">
              Vigil
            </Link>
            <Nav />
            <AlertsBadge />
            <AttentionIndicator />
            <HealthPill />
            <UserMenu />
          </header>
          <main className="content">{children}</main>
        </Providers>
      </body>
    </html>
  );
}
