/**
 * The docs stay true: every command and flag `--help` shows is documented in its own section of
 * docs/commands.md (and no documented flag is missing from the CLI), the README stands alone (no
 * link leaves the repository), every relative link in the docs resolves, and every YAML example
 * parses: the CI recipes as YAML, gates, policies, prices and manifests with Verdict's own parsers.
 */
import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { ExitCode } from "../src/core/errors.ts";
import { COMMANDS } from "../src/cli/main.ts";
import { parsePrices } from "../src/model/prices.ts";
import { parsePolicy } from "../src/policy/policy_file.ts";
import { parseGate } from "../src/stats/gate.ts";
import { parseManifest } from "../src/task/load_task.ts";
import { PROJECT_ROOT } from "./_verdict.ts";
import {
  commandSections,
  decisionsProblems,
  documentedFlags,
  flagsOf,
  linkTargets,
  yamlBlocks,
} from "./_docs.ts";

const DOCS = join(PROJECT_ROOT, "docs");

async function markdownFiles(folder: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(folder)) {
    if (entry.isFile && entry.name.endsWith(".md")) files.push(join(folder, entry.name));
  }
  return files.sort();
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

function stringsIn(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (value === null || typeof value !== "object") return [];
  return Object.values(value).flatMap(stringsIn);
}

Deno.test("docs/commands.md documents every command and every flag --help shows", async () => {
  const sections = commandSections(await Deno.readTextFile(join(DOCS, "commands.md")));
  const missing: string[] = [];
  for (const command of COMMANDS) {
    const section = sections.get(command.name);
    if (section === undefined) {
      missing.push(`verdict ${command.name} (no section '## \`verdict ${command.name}\`')`);
      continue;
    }
    const documented = documentedFlags(section);
    for (const flag of flagsOf(command)) {
      if (!documented.has(flag)) missing.push(`verdict ${command.name} ${flag}`);
    }
  }
  assert.deepEqual(missing, [], `undocumented in docs/commands.md: ${missing.join(", ")}`);
});

Deno.test("docs/commands.md documents no command or flag the CLI does not have", async () => {
  const sections = commandSections(await Deno.readTextFile(join(DOCS, "commands.md")));
  const names = new Set(COMMANDS.map((command) => command.name));
  const stale: string[] = [...sections.keys()].filter((name) => !names.has(name))
    .map((name) => `verdict ${name}`);
  for (const command of COMMANDS) {
    const section = sections.get(command.name);
    if (section === undefined) continue;
    const real = new Set(flagsOf(command));
    for (const flag of documentedFlags(section)) {
      if (!real.has(flag)) stale.push(`verdict ${command.name} ${flag}`);
    }
  }
  assert.deepEqual(stale, [], `documented but not in --help: ${stale.join(", ")}`);
});

Deno.test("docs list every exit code and the global flags", async () => {
  const text = await Deno.readTextFile(join(DOCS, "commands.md"));
  for (const code of Object.values(ExitCode)) {
    assert.match(text, new RegExp(`^\\| ${code} +\\|`, "m"), `exit code ${code} has no row`);
  }
  for (const flag of ["--help", "--version"]) assert(text.includes(flag), `${flag} undocumented`);
});

Deno.test("the README links only to files in the repository, and to no parent folder", async () => {
  const text = await Deno.readTextFile(join(PROJECT_ROOT, "README.md"));
  assert.doesNotMatch(text, /[a-z][a-z0-9+.-]*:\/\//i, "the README names a URL");
  const targets = linkTargets(text);
  assert(targets.length > 0, "the README links nothing: the docs would be unreachable");
  for (const target of targets) {
    assert(!target.split("/").includes(".."), `README links '${target}', outside its folder`);
    assert(!target.startsWith("/"), `README links '${target}', an absolute path`);
    const path = target.split("#")[0];
    if (path === "") continue;
    assert(await exists(join(PROJECT_ROOT, path)), `README links '${target}', which is missing`);
  }
});

Deno.test("the README's first screen: what it is, prerequisites, two commands, your own suite", async () => {
  const text = await Deno.readTextFile(join(PROJECT_ROOT, "README.md"));
  const firstScreen = text.split("\n").slice(0, 60).join("\n");
  const order = [
    "evaluates AI agents",
    "## Prerequisites",
    "`npm install -g deno@",
    "## The two commands",
    "deno task eval",
    "deno task test",
    "deno task install",
    "verdict tasks new hello",
    "verdict tasks check",
    "verdict eval",
  ];
  let from = 0;
  for (const needed of order) {
    const at = firstScreen.indexOf(needed, from);
    assert(
      at >= 0,
      `the README's first 60 lines lack '${needed}' in the order ${order.join(" < ")}`,
    );
    from = at;
  }
});

Deno.test("every relative link in docs/ resolves to a file in the repository", async () => {
  for (const file of await markdownFiles(DOCS)) {
    for (const target of linkTargets(await Deno.readTextFile(file))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#")) continue;
      const path = resolve(dirname(file), target.split("#")[0]);
      const inside = relative(PROJECT_ROOT, path);
      const name = relative(PROJECT_ROOT, file);
      assert(!inside.startsWith(".."), `${name} links '${target}', outside the repository`);
      assert(await exists(path), `${name} links '${target}', which is missing`);
    }
  }
});

Deno.test("the CI recipes are valid YAML: a GitHub workflow and a GitLab job, gated", async () => {
  const blocks = yamlBlocks(await Deno.readTextFile(join(DOCS, "ci.md")))
    .map((block) => parseYaml(block) as Record<string, unknown>);
  const github = blocks.find((doc) => typeof doc.jobs === "object" && "on" in doc);
  assert(github, "docs/ci.md has no GitHub Actions workflow (a YAML block with on: and jobs:)");
  const steps = Object.values(github.jobs as Record<string, { steps?: unknown[] }>)
    .flatMap((job) => job.steps ?? []);
  const uses = steps.map((step) => (step as { uses?: string }).uses ?? "");
  assert(uses.some((name) => name.startsWith("actions/upload-artifact@")), "no upload-artifact");
  const gitlab = blocks.find((doc) =>
    Object.values(doc).some((job) =>
      typeof job === "object" && job !== null && "script" in job &&
      // deno-lint-ignore no-explicit-any
      (job as any).artifacts?.reports?.junit !== undefined
    )
  );
  assert(gitlab, "docs/ci.md has no GitLab job with artifacts: reports: junit:");
  for (const [name, recipe] of [["GitHub", github], ["GitLab", gitlab]] as const) {
    const text = stringsIn(recipe).join("\n");
    for (const needed of ["deno task install", "--junit", "report.html", "verdict compare"]) {
      assert(text.includes(needed), `the ${name} recipe lacks '${needed}'`);
    }
    assert.match(text, /verdict compare .*--gate gate\.yaml/, `the ${name} recipe does not gate`);
  }
});

Deno.test("every YAML example in the docs parses, with Verdict's parser where it is one", async () => {
  const files = [...await markdownFiles(DOCS), join(PROJECT_ROOT, "README.md")];
  let parsed = 0;
  for (const file of files) {
    const name = relative(PROJECT_ROOT, file);
    for (const block of yamlBlocks(await Deno.readTextFile(file))) {
      const data = parseYaml(block) as Record<string, unknown> | null;
      assert(data !== null && typeof data === "object", `${name}: a YAML block holds no mapping`);
      if ("rules" in data) parsePolicy(block, name);
      else if ("max_drop_pp" in data) parseGate(block, name);
      else if ("success" in data && "id" in data) parseManifest(block, name);
      else if (Object.keys(data).every((key) => /^[a-z]+:/.test(key))) parsePrices(block, name);
      parsed++;
    }
  }
  assert(parsed >= 5, `only ${parsed} YAML examples found`);
});

Deno.test("DECISIONS.md opens with an index by area; superseded entries sit below today's", async () => {
  const problems = decisionsProblems(await Deno.readTextFile(join(PROJECT_ROOT, "DECISIONS.md")));
  assert.deepEqual(problems, [], `DECISIONS.md:\n${problems.join("\n")}`);
});

Deno.test("the DECISIONS.md check finds a planted violation of each kind", () => {
  const entry = (title: string, note = "") =>
    `${title}\n\n${note}- **Chose:** x\n- **Rejected:** y\n- **Cost:** z\n\n`;
  const planted = [
    "# Decisions\n\n## Index\n\n- [Area](#area): [new](#new), [gone](#gone), [lost](#missing)\n\n",
    "## Area\n\n",
    entry("### new", "> Partly superseded by a later entry.\n\n"),
    entry("### unlisted"),
    entry("### gone", "> Superseded by [new](#new): moved.\n\n"),
    "### bare\n\n- **Chose:** x\n\n",
    "## Superseded decisions\n\n### Nowhere\n\n",
    entry("#### old", "> Replaced.\n\n"),
  ].join("");
  assert.deepEqual(decisionsProblems(planted), [
    "a link to #missing, which no heading has",
    "'unlisted' is not linked from the index",
    "'bare' is not linked from the index",
    "'new' is partly superseded by nothing it links",
    "'gone' is superseded but sits among today's entries",
    "'bare' names no rejected alternative",
    "'bare' names no cost",
    "'Nowhere' is not an area of the file",
    "'old' has no 'Superseded by [title](#anchor)' line",
  ]);
  assert.deepEqual(
    decisionsProblems(`# D\n\n${planted.slice(planted.indexOf("## Area"))}`).slice(0, 1),
    [
      "the file does not open with '## Index' within its first 15 lines",
    ],
  );
});
