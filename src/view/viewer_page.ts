/**
 * The viewer's one HTML page: no network but its own `api/` paths (none at all in a bundle), no
 * external script, style or font, and every recorded string drawn as text.
 *
 * @module
 */
import { embeddedJson, PAGE_STYLE } from "../report/html_parts.ts";
import { VIEWER_SCRIPT } from "./_viewer_script.ts";

/** What a static bundle embeds: the `api/...` answers by path, and the view it opens at. */
export interface BundleData {
  /** The hash the page opens at, such as `#/run/abc`. */
  start: string;
  /** Each `api/...` path's JSON. */
  [path: string]: unknown;
}

/**
 * The Content-Security-Policy of the page: inline script and style only, requests only to its own
 * origin. (The server adds `frame-ancestors 'none'`, which only a header can carry.)
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VIEWER_CSP } from "./viewer_page.ts";
 * assert(VIEWER_CSP.startsWith("default-src 'none'"));
 * ```
 */
export const VIEWER_CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; " +
  "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'";

/**
 * The page: served (it fetches `api/...`), or with `bundle` a static file that reads the same
 * paths from the JSON it embeds.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderViewerPage } from "./viewer_page.ts";
 * assert(renderViewerPage().startsWith("<!doctype html>"));
 * assert(renderViewerPage({ start: "#/", "api/runs": [] }).includes('id="bundle"'));
 * ```
 */
export function renderViewerPage(bundle?: BundleData): string {
  const data = bundle === undefined
    ? ""
    : `<script type="application/json" id="bundle">${embeddedJson(bundle)}</script>\n`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${VIEWER_CSP}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Verdict</title>
<style>${PAGE_STYLE}${VIEWER_STYLE}</style>
</head>
<body>
<main id="app"><noscript>The viewer needs JavaScript.</noscript></main>
${data}<script>${VIEWER_SCRIPT}</script>
</body>
</html>
`;
}

const VIEWER_STYLE = `
a { color: #0969da; text-decoration: none; } a:hover { text-decoration: underline; }
.filters { display: flex; gap: 12px; flex-wrap: wrap; align-items: center; margin: 12px 0; font-size: 13px; }
.filters input, .filters select { font: inherit; padding: 3px 6px; }
th.sortable { cursor: pointer; user-select: none; } td.reason { max-width: 360px; }
#matrix { width: auto; } #matrix td, #matrix th { white-space: nowrap; } tr.overall td, tr.overall th { font-weight: 600; }
`;
