/**
 * Test helper: Debian's Chromium driven by playwright-core, with the network beyond what a test
 * allows refused and every console error and page error collected.
 *
 * @module
 */
const CHROMIUM = "/usr/bin/chromium";

import type { Browser, Page } from "playwright-core";

export type { Browser, Page };

/** Launches Chromium headless; fails naming the package when it is not installed. */
export async function launchChromium(): Promise<Browser> {
  // playwright-core probes /proc/sys for WSL when it loads unless told it is under test; Deno
  // gates /proc/sys behind --allow-all, which no permission set of ours grants.
  Deno.env.set("__IS_WSL_TEST__", "1");
  const { chromium } = await import("playwright-core");
  try {
    await Deno.stat(CHROMIUM);
  } catch {
    throw new Error(
      `this test needs Debian's chromium at ${CHROMIUM}: apt-get install -y chromium`,
    );
  }
  return await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/**
 * Watches `page`: console errors and page errors go to `problems`, and every request whose URL
 * `allowed` refuses is aborted and listed in `refused`.
 */
export async function watchPage(
  page: Page,
  allowed: (url: string) => boolean,
): Promise<{ problems: string[]; refused: string[] }> {
  const problems: string[] = [];
  const refused: string[] = [];
  page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
  page.on("pageerror", (error) => problems.push(error.message));
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (allowed(url)) return route.continue();
    refused.push(url);
    return route.abort();
  });
  return { problems, refused };
}
