import type { Metadata } from "next";
import { Suspense, type ReactNode } from "react";
import Link from "next/link";
import "./globals.css";
import { Providers } from "./providers";
import { Nav } from "@/components/ui/nav";
import { HealthPill } from "@/components/ui/health-pill";
import { AttentionIndicator } from "@/components/ui/attention-indicator";
import { AlertsBadge } from "@/components/ui/alerts-badge";
import { UserMenu } from "@/components/ui/user-menu";
import { TeamSwitcher } from "@/components/ui/team-switcher";
import { DisplayPreferences } from "@/components/ui/display-preferences";
import { applyStoredThemeScript } from "@/components/ui/theme-script";
import { MaintenanceBanner } from "@/components/schedules/maintenance-banner";

export const metadata: Metadata = { title: "Vigil", description: "Schedules that must not double-run" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    // The inline script sets data-theme before the first paint; React is told the attribute may differ.
    <html lang="en" suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: applyStoredThemeScript }} />
      </head>
      <body>
        <Providers>
          <DisplayPreferences>
            <header className="topbar">
              <Link href="/" className="brand">
                Vigil
              </Link>
              <Nav />
              <Suspense fallback={null}>
                <TeamSwitcher />
              </Suspense>
              <AlertsBadge />
              <AttentionIndicator />
              <HealthPill />
              <UserMenu />
            </header>
            <MaintenanceBanner />
            <main className="content">{children}</main>
          </DisplayPreferences>
        </Providers>
      </body>
    </html>
  );
}
