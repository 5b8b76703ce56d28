/**
 * `deno task arch`: no import circle anywhere in `src/`. A lint rule sees one file at a time, so
 * this reads the whole tree: every `.ts` file under `src/`, every relative specifier of an
 * `import` (`import type` too), an `export ... from` (`export type` too) or a dynamic
 * `import("...")` with a literal, then the strongly connected components of that graph (Tarjan).
 *
 * @example
 * ```sh
 * deno run --allow-read=src lint/import_circles.ts
 * ```
 *
 * @module
 */
import { dirname, join, normalize } from "node:path";

type Token = { kind: "word" | "string" | "punct" | "other"; text: string };

const REGEX_AFTER_WORDS = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
]);
const CLAUSE_PUNCTUATION = new Set(["{", "}", ",", "*"]);
const HINT = "hint: a circle ties its files together: none can be read, tested or moved alone. " +
  "Move what both sides need into a file lower down, or pass it in as a parameter; an " +
  "`import type` counts too.";

/**
 * The specifiers a TypeScript module imports or re-exports: static imports and exports with a
 * `from` (type-only ones too) and dynamic `import("...")` calls with a literal. Comments, strings
 * and template literals are skipped, so an import written inside them does not count.
 *
 * @example
 * ```ts
 * import { importSpecifiers } from "./import_circles.ts";
 * const source = 'import type { A } from "./a.ts";\n// import "./b.ts"\nexport * from "./c.ts";';
 * console.assert(importSpecifiers(source).join() === "./a.ts,./c.ts");
 * ```
 */
export function importSpecifiers(source: string): string[] {
  const tokens = _tokenize(source);
  const found: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const word = tokens[i].kind === "word" ? tokens[i].text : "";
    if ((word !== "import" && word !== "export") || tokens[i - 1]?.text === ".") continue;
    const next = tokens[i + 1];
    if (word === "import" && next?.kind === "string") found.push(next.text);
    else if (word === "import" && next?.text === "(") {
      const [literal, close] = [tokens[i + 2], tokens[i + 3]];
      if (literal?.kind === "string" && (close?.text === ")" || close?.text === ",")) {
        found.push(literal.text);
      }
    } else {
      const specifier = _fromClause(tokens, i + 1);
      if (specifier !== undefined) found.push(specifier);
    }
  }
  return found;
}

/** The `from "..."` specifier closing an import or export clause that starts at `start`. */
function _fromClause(tokens: Token[], start: number): string | undefined {
  for (let i = start; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.text === "from" && tokens[i + 1]?.kind === "string") return tokens[i + 1].text;
    const inClause = token.kind === "word"
      ? token.text !== "import" && token.text !== "export"
      : CLAUSE_PUNCTUATION.has(token.text);
    if (!inClause) return undefined;
  }
  return undefined;
}

/**
 * Words, string literals and punctuation of a source, with comments, template text and regular
 * expression literals reduced to `other` tokens. Code inside `${...}` is tokenized as code.
 */
function _tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const templateDepths: number[] = [];
  let depth = 0;
  let i = 0;
  while (i < source.length) {
    const char = source[i];
    const pair = source.slice(i, i + 2);
    if (/\s/.test(char)) i++;
    else if (pair === "//") i = _lineEnd(source, i);
    else if (pair === "/*") i = _blockCommentEnd(source, i);
    else if (char === '"' || char === "'") {
      const end = _stringEnd(source, i);
      tokens.push({ kind: "string", text: source.slice(i + 1, end - 1) });
      i = end;
    } else if (char === "`" || (char === "}" && templateDepths.at(-1) === depth)) {
      if (char === "}") templateDepths.pop();
      i = _templateEnd(source, i + 1, templateDepths, depth);
      tokens.push({ kind: "other", text: "`" });
    } else if (char === "/" && _regexAllowed(tokens.at(-1))) {
      i = _regexEnd(source, i);
      tokens.push({ kind: "other", text: "/" });
    } else if (/[\w$]/.test(char)) {
      const end = _wordEnd(source, i);
      tokens.push({ kind: "word", text: source.slice(i, end) });
      i = end;
    } else {
      if (char === "{") depth++;
      if (char === "}") depth--;
      tokens.push({ kind: "punct", text: char });
      i++;
    }
  }
  return tokens;
}

function _lineEnd(source: string, i: number): number {
  const end = source.indexOf("\n", i);
  return end === -1 ? source.length : end;
}

function _blockCommentEnd(source: string, i: number): number {
  const end = source.indexOf("*/", i + 2);
  return end === -1 ? source.length : end + 2;
}

/** The index after a quoted string starting at `i`. */
function _stringEnd(source: string, i: number): number {
  const quote = source[i];
  let at = i + 1;
  while (at < source.length && source[at] !== quote && source[at] !== "\n") {
    at += source[at] === "\\" ? 2 : 1;
  }
  return at + 1;
}

/**
 * Skips template text from `i` to the closing backtick (returns after it) or to a `${` (returns
 * after it, remembering the brace depth at which the template text resumes).
 */
function _templateEnd(source: string, i: number, templateDepths: number[], depth: number): number {
  let at = i;
  while (at < source.length) {
    if (source[at] === "\\") at += 2;
    else if (source[at] === "`") return at + 1;
    else if (source.startsWith("${", at)) {
      templateDepths.push(depth);
      return at + 2;
    } else at++;
  }
  return at;
}

/** Whether a `/` after this token starts a regular expression rather than a division. */
function _regexAllowed(previous: Token | undefined): boolean {
  if (previous === undefined) return true;
  if (previous.kind === "word") return REGEX_AFTER_WORDS.has(previous.text);
  if (previous.kind === "string" || previous.kind === "other") return false;
  return !")]}".includes(previous.text);
}

/** The index after a regular expression literal (and its flags) starting at `i`. */
function _regexEnd(source: string, i: number): number {
  let at = i + 1;
  let inClass = false;
  while (at < source.length && source[at] !== "\n") {
    const char = source[at];
    if (char === "\\") at++;
    else if (char === "[") inClass = true;
    else if (char === "]") inClass = false;
    else if (char === "/" && !inClass) return _wordEnd(source, at + 1);
    at++;
  }
  return at;
}

function _wordEnd(source: string, i: number): number {
  let at = i;
  while (at < source.length && /[\w$]/.test(source[at])) at++;
  return at;
}

/**
 * The import graph of `src/` under `root`: project path (`src/...`) → the project paths of the
 * `src/` files it imports through relative specifiers, sorted.
 *
 * @example
 * ```ts
 * import { importGraph } from "./import_circles.ts";
 * const graph = await importGraph(".");
 * console.assert(graph.size > 0);
 * ```
 */
export async function importGraph(root: string): Promise<Map<string, string[]>> {
  const files = await _tsFiles(root, "src");
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const source = await Deno.readTextFile(join(root, file));
    const targets = new Set<string>();
    for (const specifier of importSpecifiers(source)) {
      if (!specifier.startsWith("./") && !specifier.startsWith("../")) continue;
      const target = normalize(join(dirname(file), specifier)).replaceAll("\\", "/");
      if (known.has(target)) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** The `.ts` files under `root/folder`, as sorted paths relative to `root`. */
async function _tsFiles(root: string, folder: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(join(root, folder))) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory) found.push(...await _tsFiles(root, path));
    else if (entry.isFile && entry.name.endsWith(".ts")) found.push(path);
  }
  return found.sort();
}

/**
 * The strongly connected components of a graph that hold a circle (more than one node, or one
 * that imports itself), each sorted, in order of their first node (Tarjan's algorithm).
 *
 * @example
 * ```ts
 * import { stronglyConnected } from "./import_circles.ts";
 * const graph = new Map([["a", ["b"]], ["b", ["a"]], ["c", ["a"]]]);
 * console.assert(JSON.stringify(stronglyConnected(graph)) === '[["a","b"]]');
 * ```
 */
export function stronglyConnected(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) visit(next);
      if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, low.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.includes(node)) components.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return components.sort((a, b) => a[0].localeCompare(b[0]));
}

/**
 * A closed chain of real imports through every file of a component: from a start file, on to the
 * nearest file not yet passed, and back to the start; the shortest such chain over all starts (a
 * simple cycle when the greedy walk finds one).
 *
 * @example
 * ```ts
 * import { circleWalk } from "./import_circles.ts";
 * const graph = new Map([["a", ["b"]], ["b", ["a"]]]);
 * console.assert(circleWalk(graph, ["a", "b"]).join(" ") === "a b a");
 * ```
 */
export function circleWalk(
  graph: ReadonlyMap<string, readonly string[]>,
  component: readonly string[],
): string[] {
  const members = new Set(component);
  const walks = component.map((start) => _walkFrom(graph, members, start));
  return walks.reduce((best, walk) => walk.length < best.length ? walk : best);
}

function _walkFrom(
  graph: ReadonlyMap<string, readonly string[]>,
  members: ReadonlySet<string>,
  start: string,
): string[] {
  const walk = [start];
  const unvisited = new Set([...members].filter((node) => node !== start));
  while (unvisited.size > 0) {
    const path = _shortestPath(graph, members, walk.at(-1)!, (node) => unvisited.has(node));
    path.forEach((node) => unvisited.delete(node));
    walk.push(...path);
  }
  walk.push(..._shortestPath(graph, members, walk.at(-1)!, (node) => node === start));
  return walk;
}

/** Breadth-first within `members`: the nodes after `from` up to the first that is `wanted`. */
function _shortestPath(
  graph: ReadonlyMap<string, readonly string[]>,
  members: ReadonlySet<string>,
  from: string,
  wanted: (node: string) => boolean,
): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    for (const next of graph.get(queue[head]) ?? []) {
      if (!members.has(next) || cameFrom.has(next)) continue;
      cameFrom.set(next, queue[head]);
      if (wanted(next)) return _pathTo(cameFrom, from, next);
      queue.push(next);
    }
  }
  throw new Error(`no import path from ${from} within its component`);
}

function _pathTo(cameFrom: ReadonlyMap<string, string>, from: string, to: string): string[] {
  const path = [to];
  while (cameFrom.get(path[0]) !== from) path.unshift(cameFrom.get(path[0])!);
  return path;
}

/**
 * Every import circle in `root/src`, each as a closed chain of project paths
 * (`["src/a.ts", "src/b.ts", "src/a.ts"]`) passing every file of one strongly connected
 * component; empty when there is none.
 *
 * @example
 * ```ts
 * import { importCircles } from "./import_circles.ts";
 * for (const circle of await importCircles(".")) console.log(circle.join(" → "));
 * ```
 */
export async function importCircles(root: string): Promise<string[][]> {
  const graph = await importGraph(root);
  return stronglyConnected(graph).map((component) => circleWalk(graph, component));
}

async function main(root: string): Promise<number> {
  const circles = await importCircles(root);
  if (circles.length === 0) {
    console.log("src/: no import circle");
    return 0;
  }
  console.error(`src/ has ${circles.length} import circle${circles.length === 1 ? "" : "s"}:`);
  for (const circle of circles) console.error(`  ${circle.join(" → ")}`);
  console.error(HINT);
  return 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args[0] ?? "."));
