/**
 * The library's surface stays small and documented: `mod.ts` exports at most 60 names, each with
 * a JSDoc example; every subpath export of deno.json states its one purpose in a module doc and
 * exports at most 30 names; no entry point exports from a `_` file (an internal); and the doc lint
 * and the doc tests cover every entry point.
 */
import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { PROJECT_ROOT } from "./_verdict.ts";

const MAX_MAIN = 60;
const MAX_SUBPATH = 30;

interface DocTag {
  kind: string;
}

interface DocSymbol {
  name: string;
  declarations: { jsDoc?: { tags?: DocTag[] } }[];
}

interface EntryDoc {
  moduleDoc: string;
  symbols: DocSymbol[];
}

const config = JSON.parse(await Deno.readTextFile(join(PROJECT_ROOT, "deno.json"))) as {
  exports: Record<string, string>;
  tasks: Record<string, string>;
};

async function entryDoc(file: string): Promise<EntryDoc> {
  const { code, stdout, stderr } = await new Deno.Command("deno", {
    args: ["doc", "--json", file],
    cwd: PROJECT_ROOT,
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  const json = JSON.parse(new TextDecoder().decode(stdout)) as {
    nodes: Record<string, { module_doc?: { doc?: string }; symbols: DocSymbol[] }>;
  };
  const [node] = Object.values(json.nodes);
  return { moduleDoc: node.module_doc?.doc ?? "", symbols: node.symbols };
}

/** The modules an entry point re-exports from whose file name starts with `_` (internals). */
async function internals(file: string): Promise<string[]> {
  const text = await Deno.readTextFile(join(PROJECT_ROOT, file));
  return [...text.matchAll(/\bfrom\s+"([^"]+)"/g)].map((match) => match[1])
    .filter((specifier) => basename(specifier).startsWith("_"));
}

Deno.test("deno.json exports the main module and subpaths, each its own file", () => {
  assert.equal(config.exports["."], "./mod.ts");
  const files = Object.values(config.exports);
  assert.equal(new Set(files).size, files.length);
});

Deno.test(`mod.ts exports at most ${MAX_MAIN} names, each with an example, none internal`, async () => {
  const { symbols } = await entryDoc("mod.ts");
  assert(symbols.length <= MAX_MAIN, `mod.ts exports ${symbols.length} names`);
  const bare = symbols.filter((symbol) =>
    !symbol.declarations.some((declaration) =>
      declaration.jsDoc?.tags?.some((tag) => tag.kind === "example")
    )
  ).map((symbol) => symbol.name);
  assert.deepEqual(bare, [], `exports of mod.ts with no @example: ${bare.join(", ")}`);
  assert.deepEqual(await internals("mod.ts"), []);
});

Deno.test(`each subpath states its purpose and exports at most ${MAX_SUBPATH} names, none internal`, async () => {
  for (const [subpath, file] of Object.entries(config.exports)) {
    if (subpath === ".") continue;
    const { moduleDoc, symbols } = await entryDoc(file);
    assert(moduleDoc.trim().length > 0, `${subpath} (${file}) has no module doc`);
    assert(
      symbols.length > 0 && symbols.length <= MAX_SUBPATH,
      `${subpath} exports ${symbols.length} names`,
    );
    assert.deepEqual(await internals(file), [], `${subpath} exports internals`);
  }
});

Deno.test("no name is exported from two entry points", async () => {
  const seen = new Map<string, string>();
  for (const [subpath, file] of Object.entries(config.exports)) {
    for (const { name } of (await entryDoc(file)).symbols) {
      assert(!seen.has(name), `${name} is exported by ${seen.get(name)} and ${subpath}`);
      seen.set(name, subpath);
    }
  }
});

Deno.test("the doc lint, the doc tests and the type check cover every entry point", () => {
  for (const file of Object.values(config.exports)) {
    const bare = file.replace(/^\.\//, "");
    for (const task of ["doc:lint", "test:doc", "check"]) {
      assert(config.tasks[task].split(" ").includes(bare), `deno task ${task} misses ${bare}`);
    }
  }
});
