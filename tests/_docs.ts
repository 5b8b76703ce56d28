/**
 * Test helpers that read Markdown: the sections of docs/commands.md, the flags a section's tables
 * document, link targets, and fenced YAML blocks.
 *
 * @module
 */
import type { Command } from "../src/cli/command.ts";

const FENCE = /^```[^\n]*\n[\s\S]*?^```[ \t]*$/gm;

/**
 * The sections of docs/commands.md by command name: each starts at a heading such as
 * ``## `verdict tasks check [PATH...]` `` and runs to the next heading of that level or above.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { commandSections } from "./_docs.ts";
 * const sections = commandSections("## `verdict compare BASE CAND`\n\n| `--gate FILE` | x |\n");
 * assert(sections.get("compare")?.includes("--gate"));
 * ```
 */
export function commandSections(markdown: string): Map<string, string> {
  const sections = new Map<string, string>();
  let current: string | undefined;
  for (const line of markdown.split("\n")) {
    const heading = /^(#{1,2}) /.exec(line);
    if (heading) {
      current = /^## `verdict ([a-z]+(?: [a-z]+)?)\b[^`]*`/.exec(line)?.[1];
      if (current !== undefined) sections.set(current, "");
      continue;
    }
    if (current !== undefined) sections.set(current, `${sections.get(current)}${line}\n`);
  }
  return sections;
}

/**
 * The flags a section documents: those its tables' rows start with, as in
 * ``| `--repeat N` | trials per task |``.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { documentedFlags } from "./_docs.ts";
 * const flags = documentedFlags("| `--repeat N` | x |\n| `--json` | y |\nsee `--seed`\n");
 * assert.deepEqual([...flags], ["--repeat", "--json"]);
 * ```
 */
export function documentedFlags(section: string): Set<string> {
  const rows = section.replace(FENCE, "").matchAll(/^\| *`(--[a-z][a-z0-9-]*)[ =`]/gm);
  return new Set([...rows].map((row) => row[1]));
}

/**
 * The flags `verdict COMMAND --help` lists, without the `--help` every command has.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { COMMANDS } from "../src/cli/main.ts";
 * import { flagsOf } from "./_docs.ts";
 * assert(flagsOf(COMMANDS.find((command) => command.name === "eval")!).includes("--seed"));
 * ```
 */
export function flagsOf(command: Command): string[] {
  return Object.keys(command.options).map((name) => `--${name}`);
}

/**
 * Every link target outside code: inline links and images, reference definitions, and HTML
 * `href` and `src` attributes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { linkTargets } from "./_docs.ts";
 * assert.deepEqual(linkTargets("[a](docs/a.md) `[b](c)` <img src=\"x.png\">"), ["docs/a.md", "x.png"]);
 * ```
 */
export function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(FENCE, "").replace(/`[^`\n]*`/g, "");
  const patterns = [
    /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g,
    /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm,
    /\b(?:href|src)\s*=\s*["']([^"']+)["']/g,
  ];
  return patterns.flatMap((pattern) => [...prose.matchAll(pattern)].map((match) => match[1]));
}

/**
 * The bodies of the fenced code blocks marked `yaml` or `yml`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { yamlBlocks } from "./_docs.ts";
 * const fence = "`".repeat(3);
 * const markdown = `${fence}yaml\na: 1\n${fence}\n${fence}sh\nls\n${fence}\n`;
 * assert.deepEqual(yamlBlocks(markdown), ["a: 1\n"]);
 * ```
 */
export function yamlBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ya?ml[ \t]*\n([\s\S]*?)^```[ \t]*$/gm)].map((match) =>
    match[1]
  );
}
