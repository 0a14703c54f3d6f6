// A browser test's set-up in one call: the real app over a fresh test database (or one the test
// brings), served on a loopback socket, and a launched Chromium. Pages come from open()
// (test/helpers/browser.ts), which fails the test on console errors. Nothing to tear down by hand:
// each part is deferred (test/helpers/teardown.ts) and goes when the file ends, the browser first.
import type { Browser } from 'playwright-core';
import { listen, startTestApp, type TestApp } from './app.ts';
import { launch } from './browser.ts';
import type { TestDb } from './db.ts';

export interface BrowserApp extends TestApp {
  /** Where the app is served: http://127.0.0.1:<port>. */
  url: string;
  /** The served port; a test that stops the server brings it back there with listen(t, t.port). */
  port: number;
  /** The serving socket, for a test that stops the server on purpose. */
  server: { url: string; close(): Promise<void> };
  browser: Browser;
}

export interface BrowserAppOptions {
  /** Configuration for the app (e.g. TRELLIS_URL), as startTestApp takes it. */
  env?: Record<string, string>;
  /** The database to serve instead of a fresh one: a loop's, or one filled beforehand. */
  db?: TestDb;
}

export async function startBrowserApp({ env = {}, db }: BrowserAppOptions = {}): Promise<BrowserApp> {
  const t = await startTestApp(env, db);
  const server = await listen(t);
  const browser = await launch();
  return { ...t, url: server.url, port: Number(new URL(server.url).port), server, browser };
}
