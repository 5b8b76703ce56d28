/**
 * The file tools: `read_file`, `write_file`, `edit_file`, `list_dir` and `search`, all confined
 * to the workdir.
 *
 * @module
 */
import { z } from "zod";
import { globMatch } from "../core/glob.ts";
import { execTool } from "./_exec.ts";
import { CONFINE_PRELUDE, confinePath } from "./confine.ts";
import { type Tool, type ToolContext, toolError, type ToolResult } from "./tool.ts";
import { toolSchema } from "./tool_schema.ts";
import { truncateMiddle } from "./truncate.ts";

// Opens the file `confine` resolved ($real) and prints every name it has, each NUL-terminated and
// then an empty one: the path with its symlinks resolved and, when it has more than one hard
// link, each path in the workdir with its inode. Then the bytes. The host judges every name
// before the bytes go anywhere.
const READ = `${CONFINE_PRELUDE}
confine "$VERDICT_PATH" || exit 3
[ -e "$target" ] || { echo "$VERDICT_PATH does not exist" >&2; exit 4; }
[ -f "$target" ] || { echo "$VERDICT_PATH is not a file" >&2; exit 4; }
exec 3< "$real" || exit 4
links=$(stat -L -c '%h %i' /proc/self/fd/3) || exit 4
set -- $links
printf '%s\\0' "\${real#"$VERDICT_WORKDIR"/}"
if [ "$1" -gt 1 ]; then
  (cd -- "$VERDICT_WORKDIR" && find . -xdev -inum "$2" -print0) || exit 4
fi
printf '\\0'
cat <&3`;

const WRITE = `${CONFINE_PRELUDE}
confine "$VERDICT_PATH" || exit 3
[ -d "$target" ] && { echo "$VERDICT_PATH is a folder" >&2; exit 4; }
mkdir -p -- "$(dirname -- "$target")" && cat > "$target"`;

const LIST = `${CONFINE_PRELUDE}
confine "$VERDICT_PATH" || exit 3
[ -d "$target" ] || { echo "$VERDICT_PATH is not a folder" >&2; exit 4; }
cd -- "$target" || exit 4
find . -mindepth 1 -maxdepth "$VERDICT_DEPTH" -type d | sed 's|$|/|'
find . -mindepth 1 -maxdepth "$VERDICT_DEPTH" ! -type d`;

const SEARCH_FILES = `${CONFINE_PRELUDE}
confine "$VERDICT_PATH" || exit 3
[ -e "$target" ] || { echo "$VERDICT_PATH does not exist" >&2; exit 4; }
cd -- "$VERDICT_WORKDIR" || exit 4
# Regular files only, found without following symlinks: a link cannot lead the search outside.
find "$VERDICT_PATH" -type f -print0`;

// Every file of the workdir with more than one hard link: its inode and its name, each
// NUL-terminated. Another name of a file the policy denies must not be searched either. A folder
// find cannot read is skipped: grep could not read the files in it either.
const HARD_LINKED = `cd -- "$VERDICT_WORKDIR" || exit 4
find . -xdev -type f -links +1 -exec sh -c \\
  'for file do printf "%s\\0%s\\0" "$(stat -c %i -- "$file")" "$file"; done' verdict {} + 2>/dev/null
exit 0`;

// The files to search arrive on stdin, NUL-separated: only those the policy lets it read.
const SEARCH_LINES = `cd -- "$VERDICT_WORKDIR" || exit 4
xargs -0 -r grep -nsHE -e "$VERDICT_PATTERN" -- | head -n 1000
exit 0`;

// A listing of 64 MiB is over a million files; past it the middle of the list is not searched.
const MAX_LISTING_BYTES = 64 * 1024 * 1024;
const MAX_NAMED_HIDDEN = 10;

const MAX_LIST_ENTRIES = 400;
const MAX_SEARCH_MATCHES = 200;

const READ_FILE_ARGS = z.strictObject({
  path: z.string().describe("Path relative to the workspace."),
  offset: z.number().int().min(1).optional(),
  limit: z.number().int().min(1).optional(),
});

/** Reads a file, with optional line offset and limit. */
export const readFileTool: Tool<{ path: string; offset?: number; limit?: number }> = {
  schema: toolSchema(
    "read_file",
    "Read a text file in the workspace. Optional `offset` (first line, from 1) and `limit` (number of lines).",
    READ_FILE_ARGS,
  ),
  idempotent: true,
  mutates: false,
  args: READ_FILE_ARGS,
  async run(args, context) {
    const read = await readText(args.path, "read_file", context);
    if (typeof read !== "string") return read;
    if (args.offset === undefined && args.limit === undefined) {
      return { content: truncateMiddle(read), isError: false };
    }
    const lines = read.split("\n");
    const start = (args.offset ?? 1) - 1;
    const slice = lines.slice(start, args.limit === undefined ? undefined : start + args.limit);
    return { content: truncateMiddle(slice.join("\n")), isError: false };
  },
};

const WRITE_FILE_ARGS = z.strictObject({ path: z.string(), content: z.string() });

/** Writes a whole file, creating folders as needed. */
export const writeFileTool: Tool<{ path: string; content: string }> = {
  schema: toolSchema(
    "write_file",
    "Create or overwrite a file in the workspace with the given content; folders are created as needed.",
    WRITE_FILE_ARGS,
  ),
  idempotent: true,
  mutates: true,
  args: WRITE_FILE_ARGS,
  async run(args, context) {
    return await writeText(args.path, args.content, context) ??
      {
        content: `wrote ${new TextEncoder().encode(args.content).length} bytes to ${args.path}`,
        isError: false,
      };
  },
};

const EDIT_FILE_ARGS = z.strictObject({
  path: z.string(),
  old_text: z.string().min(1),
  new_text: z.string(),
  replace_all: z.boolean().optional(),
});

/** Replaces text in a file: exactly one occurrence, or all with `replace_all`. */
export const editFileTool: Tool<
  { path: string; old_text: string; new_text: string; replace_all?: boolean }
> = {
  schema: toolSchema(
    "edit_file",
    "Replace `old_text` with `new_text` in a file. `old_text` must occur exactly once unless `replace_all` is true.",
    EDIT_FILE_ARGS,
  ),
  idempotent: false,
  mutates: true,
  args: EDIT_FILE_ARGS,
  async run(args, context) {
    const text = await readText(args.path, "edit_file", context);
    if (typeof text !== "string") return text;
    const occurrences = text.split(args.old_text).length - 1;
    if (occurrences === 0) return toolError(`old_text does not occur in ${args.path}`);
    if (occurrences > 1 && !args.replace_all) {
      return toolError(
        `old_text occurs ${occurrences} times in ${args.path}; give more context or set replace_all`,
      );
    }
    const edited = args.replace_all
      ? text.replaceAll(args.old_text, args.new_text)
      : text.replace(args.old_text, () => args.new_text);
    return await writeText(args.path, edited, context) ??
      {
        content: `replaced ${args.replace_all ? occurrences : 1} occurrence(s) in ${args.path}`,
        isError: false,
      };
  },
};

const LIST_DIR_ARGS = z.strictObject({
  path: z.string().optional(),
  depth: z.number().int().min(1).max(10).optional(),
});

/** Lists a folder, two levels deep by default; folders end with `/`. */
export const listDirTool: Tool<{ path?: string; depth?: number }> = {
  schema: toolSchema(
    "list_dir",
    "List a folder of the workspace (default: the workspace itself), `depth` levels deep (default 2). Folders end with /.",
    LIST_DIR_ARGS,
  ),
  idempotent: true,
  mutates: false,
  args: LIST_DIR_ARGS,
  async run(args, context) {
    const path = confinePath(context.task.manifest.workdir, args.path ?? ".");
    if (typeof path !== "string") return toolError(path.error);
    const result = await execTool(context, LIST, {
      VERDICT_PATH: path,
      VERDICT_DEPTH: String(args.depth ?? 2),
    });
    if (result.exitCode !== 0) {
      return toolError(result.stderr.trim() || `list_dir failed (exit ${result.exitCode})`);
    }
    const entries = result.stdout.split("\n").filter((line) => line !== "").map((line) =>
      line.replace(/^\.\//, "")
    ).sort();
    const shown = entries.slice(0, MAX_LIST_ENTRIES);
    const more = entries.length - shown.length;
    return {
      content: (shown.join("\n") || "(empty)") + (more > 0 ? `\n[... ${more} more entries]` : ""),
      isError: false,
    };
  },
};

const SEARCH_ARGS = z.strictObject({
  pattern: z.string().min(1),
  path: z.string().optional(),
  glob: z.string().optional(),
});

/** Searches file contents with an extended regular expression. */
export const searchTool: Tool<{ pattern: string; path?: string; glob?: string }> = {
  schema: toolSchema(
    "search",
    "Search the workspace (or `path` in it) for an extended regular expression; prints path:line:text. `glob` keeps only matching paths.",
    SEARCH_ARGS,
  ),
  idempotent: true,
  mutates: false,
  args: SEARCH_ARGS,
  async run(args, context) {
    const path = confinePath(context.task.manifest.workdir, args.path ?? ".");
    if (typeof path !== "string") return toolError(path.error);
    // First the files, judged on the host, so that a file the policy denies is never read: not
    // even whether it matches may reach the model.
    const listed = await execTool(context, SEARCH_FILES, { VERDICT_PATH: path }, {
      maxOutputBytes: MAX_LISTING_BYTES,
    });
    if (listed.exitCode !== 0) {
      return toolError(listed.stderr.trim() || `search failed (exit ${listed.exitCode})`);
    }
    const files = listed.stdout.split("\0").filter((file) => file !== "");
    const denied = await deniedInodeNames(context);
    if (!(denied instanceof Set)) return denied;
    const hidden: string[] = [];
    const searched = new Set<string>();
    for (const file of files) {
      const name = withoutDotSlash(file);
      if (!context.permits("search", name) || denied.has(name)) hidden.push(name);
      else if (args.glob === undefined || globMatch(args.glob, name)) searched.add(file);
    }
    const lines = searched.size === 0 ? [] : await matchingLines(context, args.pattern, searched);
    if (!Array.isArray(lines)) return lines;
    const shown = lines.slice(0, MAX_SEARCH_MATCHES);
    const more = lines.length - shown.length;
    return {
      content: truncateMiddle(shown.join("\n") || "no matches") +
        (more > 0 ? `\n[... ${more} more matches]` : "") +
        (hidden.length > 0 ? `\n${hiddenNote(hidden)}` : ""),
      isError: false,
    };
  },
};

/**
 * A file's text, after the policy has judged every name it has: a symlink is judged by where it
 * leads, a hard link by each path of its inode, so no second name reads a file the policy denies.
 */
async function readText(
  path: string,
  tool: string,
  context: ToolContext,
): Promise<string | ToolResult> {
  const relative = confinePath(context.task.manifest.workdir, path);
  if (typeof relative !== "string") return toolError(relative.error);
  const result = await execTool(context, READ, { VERDICT_PATH: relative });
  if (result.exitCode !== 0) {
    return toolError(result.stderr.trim() || `cannot read ${path} (exit ${result.exitCode})`);
  }
  const end = result.stdout.indexOf("\0\0");
  const names = result.stdout.slice(0, end).split("\0").map(withoutDotSlash);
  const denied = names.find((name) => !context.permits(tool, name));
  if (denied !== undefined) {
    return toolError(
      `denied by policy: ${path} is the file ${denied}, which the policy does not let ${tool} read`,
    );
  }
  return result.stdout.slice(end + 2);
}

async function writeText(
  path: string,
  content: string,
  context: ToolContext,
): Promise<ToolResult | undefined> {
  const relative = confinePath(context.task.manifest.workdir, path);
  if (typeof relative !== "string") return toolError(relative.error);
  if (relative === ".") return toolError("the workdir itself is a folder; name a file in it");
  const result = await execTool(context, WRITE, { VERDICT_PATH: relative }, {
    stdin: new TextEncoder().encode(content),
  });
  if (result.exitCode !== 0) {
    return toolError(result.stderr.trim() || `cannot write ${path} (exit ${result.exitCode})`);
  }
  return undefined;
}

/** Every name of each hard-linked file one of whose names the policy denies searching. */
async function deniedInodeNames(context: ToolContext): Promise<Set<string> | ToolResult> {
  const result = await execTool(context, HARD_LINKED, {}, { maxOutputBytes: MAX_LISTING_BYTES });
  if (result.exitCode !== 0) {
    return toolError(result.stderr.trim() || `search failed (exit ${result.exitCode})`);
  }
  const fields = result.stdout.split("\0");
  const names = new Map<string, string[]>();
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const inode = names.get(fields[i]) ?? [];
    inode.push(withoutDotSlash(fields[i + 1]));
    names.set(fields[i], inode);
  }
  return new Set(
    [...names.values()].filter((inode) => inode.some((name) => !context.permits("search", name)))
      .flat(),
  );
}

/** The `path:line:text` lines of the searched files that match, paths without a leading `./`. */
async function matchingLines(
  context: ToolContext,
  pattern: string,
  searched: ReadonlySet<string>,
): Promise<string[] | ToolResult> {
  const result = await execTool(context, SEARCH_LINES, { VERDICT_PATTERN: pattern }, {
    stdin: new TextEncoder().encode([...searched].sort().join("\0")), // sorted: a stable order
  });
  if (result.exitCode !== 0) {
    return toolError(result.stderr.trim() || `search failed (exit ${result.exitCode})`);
  }
  // A path may itself hold `:N:`; the reading that names a searched file is the one. Lines that
  // name none (the rest of a name with a newline in it, a grep notice) are dropped.
  return result.stdout.split("\n").flatMap((line) => {
    for (const match of line.matchAll(/:(?=\d+:)/g)) {
      if (searched.has(line.slice(0, match.index))) return [withoutDotSlash(line)];
    }
    return [];
  });
}

function withoutDotSlash(path: string): string {
  return path.replace(/^\.\//, "");
}

function hiddenNote(hidden: string[]): string {
  const sorted = hidden.sort();
  const named = sorted.slice(0, MAX_NAMED_HIDDEN).join(", ");
  const more = sorted.length > MAX_NAMED_HIDDEN
    ? ` and ${sorted.length - MAX_NAMED_HIDDEN} more`
    : "";
  return `[not searched, the policy denies searching them: ${named}${more}]`;
}
