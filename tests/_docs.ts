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

/**
 * The anchor GitHub gives a heading: lower case, punctuation dropped, each space a hyphen.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { headingAnchor } from "./_docs.ts";
 * assert.equal(headingAnchor("`--shard K/N`: round-robin (issue 16)"), "--shard-kn-round-robin-issue-16");
 * ```
 */
export function headingAnchor(title: string): string {
  return title.trim().toLowerCase().replace(/[^\p{L}\p{N}\p{M} _-]/gu, "").replaceAll(" ", "-");
}

/** A heading of DECISIONS.md: its level, its title, its anchor and its line. */
interface Heading {
  level: number;
  title: string;
  anchor: string;
  at: number;
}

const SUPERSEDED = "Superseded decisions";

/**
 * What keeps DECISIONS.md from being a file a reader can use, one line per problem: it must open
 * with `## Index`, whose links name every area and every current entry (`###`); every `#anchor`
 * link must name a heading; `## Superseded decisions` comes last, its areas as `###` and its
 * entries as `####`, each with a `> Superseded by [title](#anchor)` line under its heading; a
 * current entry may carry only a `> Partly superseded by [title](#anchor)` line; and every entry
 * names its rejected alternative and its cost.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decisionsProblems } from "./_docs.ts";
 * const good = "# D\n\n## Index\n\n- [A](#a): [x](#x)\n\n## A\n\n### x\n\n- **Rejected:** y\n" +
 *   "- **Cost:** z\n\n## Superseded decisions\n";
 * assert.deepEqual(decisionsProblems(good), []);
 * assert.deepEqual(decisionsProblems(good.replace("[x](#x)", "x")), [
 *   "'x' is not linked from the index",
 * ]);
 * ```
 */
export function decisionsProblems(markdown: string): string[] {
  const lines = markdown.split("\n");
  const headings = lines.flatMap((line, at): Heading[] => {
    const match = /^(#{2,4}) (.+)$/.exec(line);
    return match
      ? [{ level: match[1].length, title: match[2], anchor: headingAnchor(match[2]), at }]
      : [];
  });
  const problems: string[] = [];
  const parts = headings.filter((heading) => heading.level === 2);
  const [index, afterIndex] = parts;
  if (index?.title !== "Index" || headings[0] !== index || index.at > 15) {
    problems.push("the file does not open with '## Index' within its first 15 lines");
  }
  const superseded = parts.at(-1)?.title === SUPERSEDED ? parts.at(-1)! : undefined;
  if (superseded === undefined) problems.push(`'## ${SUPERSEDED}' is not the last part`);
  const end = superseded?.at ?? lines.length;
  const current = headings.filter((heading) => heading !== index && heading.at < end);
  const old = headings.filter((heading) => heading.at > end);
  // A superseded entry's area repeats the area's title, so only the entries' anchors must differ.
  const named = headings.filter((heading) => !(heading.at > end && heading.level === 3));
  if (new Set(named.map((heading) => heading.anchor)).size < named.length) {
    problems.push("two headings share an anchor");
  }
  const anchors = new Set(headings.map((heading) => heading.anchor));
  for (const target of linkTargets(markdown).filter((target) => target.startsWith("#"))) {
    if (!anchors.has(target.slice(1))) problems.push(`a link to ${target}, which no heading has`);
  }
  const listed = new Set(linkTargets(lines.slice(index?.at ?? 0, afterIndex?.at).join("\n")));
  for (const heading of current) {
    if (!listed.has(`#${heading.anchor}`)) {
      problems.push(`'${heading.title}' is not linked from the index`);
    }
  }
  const areas = new Set(current.filter((heading) => heading.level === 2).map((h) => h.title));
  problems.push(..._entryProblems(lines, headings, current, old, areas));
  return problems;
}

// The notes under the entries' headings, their place, and their rejected alternative and cost.
function _entryProblems(
  lines: string[],
  headings: Heading[],
  current: Heading[],
  old: Heading[],
  areas: Set<string>,
): string[] {
  const problems: string[] = [];
  const bodyOf = (heading: Heading) =>
    lines.slice(heading.at + 1, headings[headings.indexOf(heading) + 1]?.at ?? lines.length);
  for (const heading of [...current, ...old]) {
    if (heading.level === 2) continue;
    const inOld = old.includes(heading);
    if (inOld && heading.level === 3) {
      if (!areas.has(heading.title)) problems.push(`'${heading.title}' is not an area of the file`);
      continue;
    }
    const body = bodyOf(heading);
    const quote: string[] = [];
    for (let at = body.findIndex((line) => line.trim() !== ""); body[at]?.startsWith(">"); at++) {
      quote.push(body[at].replace(/^> ?/, ""));
    }
    const note = quote.join(" ");
    if (inOld && !/^Superseded by \[[^\]]+\]\(#[^)]+\)/.test(note)) {
      problems.push(`'${heading.title}' has no 'Superseded by [title](#anchor)' line`);
    }
    if (!inOld && /^Superseded by/.test(note)) {
      problems.push(`'${heading.title}' is superseded but sits among today's entries`);
    }
    if (!inOld && /^Partly superseded by/.test(note) && !/\]\(#[^)]+\)/.test(note)) {
      problems.push(`'${heading.title}' is partly superseded by nothing it links`);
    }
    const text = body.join("\n");
    if (!/\bRejected\b/.test(text)) {
      problems.push(`'${heading.title}' names no rejected alternative`);
    }
    if (!/\bCost\b/.test(text)) problems.push(`'${heading.title}' names no cost`);
  }
  return problems;
}
