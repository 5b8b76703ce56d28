/**
 * The task manifest (`task.yaml`) of SPEC section 3, as zod schemas. Every object is strict:
 * an unknown key at any level is an error, because a misspelt limit that is silently ignored is
 * worse than a refused file.
 *
 * @module
 */
import { z } from "zod";
import { globProblem } from "../core/glob.ts";
import type { Expect, Same } from "../core/same_type.ts";

const relativePath = z.string().min(1).refine(
  (path) => !path.startsWith("/") && !path.split("/").includes(".."),
  { message: "must be a relative path without '..'" },
);
const paths = z.array(relativePath).min(1);
const glob = z.string().min(1).superRefine((pattern, context) => {
  const problem = globProblem(pattern);
  if (problem !== undefined) {
    context.addIssue({
      code: "custom",
      message: `'${pattern}' is not a valid glob: ${problem}`,
      params: {
        fix: "correct the glob (`**` any folders, `*` and `?` within a name, `[abc]` a set)",
      },
    });
  }
});
const globs = z.array(glob).min(1);
const regularExpression = z.string().superRefine((source, context) => {
  try {
    new RegExp(source, "m");
  } catch (error) {
    context.addIssue({
      code: "custom",
      message: `not a valid regular expression: ${(error as Error).message}`,
      params: { fix: "correct the JavaScript regular expression, or use `text` for plain text" },
    });
  }
});
const textOrPattern = z.strictObject({
  path: relativePath,
  text: z.string().optional(),
  pattern: regularExpression.optional(),
}).refine((value) => (value.text === undefined) !== (value.pattern === undefined), {
  message: "give exactly one of text or pattern",
});

/** Each built-in check's argument, by the check's name. */
export interface CheckArgs {
  /** These files must be byte-for-byte and mode-for-mode as in the initial workspace. */
  files_unchanged: string[];
  /** Every added, removed or modified path must match one of these globs. */
  changed_paths_within: string[];
  /** No test may gain a skip; `paths` (globs) narrows which files are looked at. */
  no_new_skips: { paths?: string[] };
  /** These paths must exist in the end state. */
  paths_exist: string[];
  /** These paths must not exist in the end state. */
  paths_absent: string[];
  /** The file at `path` must contain `text`, or match the regular expression `pattern`. */
  file_contains: { path: string; text?: string; pattern?: string };
  /** The file at `path` must not contain `text`, nor match the regular expression `pattern`. */
  file_not_contains: { path: string; text?: string; pattern?: string };
  /** At most this many paths may be added, removed or modified. */
  max_changed_files: number;
}

/** Each built-in check: its name and the schema of its argument. */
export const CHECK_SCHEMAS = {
  /** These files must be byte-for-byte and mode-for-mode as in the initial workspace. */
  files_unchanged: paths,
  /** Every added, removed or modified path must match one of these globs. */
  changed_paths_within: globs,
  /** No test may gain a skip (pytest skip/xfail markers, unittest skip decorators, `it.skip`). */
  no_new_skips: z.strictObject({ paths: globs.optional() }),
  /** These paths must exist in the end state. */
  paths_exist: paths,
  /** These paths must not exist in the end state. */
  paths_absent: paths,
  /** The file must contain the text, or match the regular expression. */
  file_contains: textOrPattern,
  /** The file must not contain the text, nor match the regular expression. */
  file_not_contains: textOrPattern,
  /** At most this many paths may be added, removed or modified. */
  max_changed_files: z.number().int().min(0),
} as const;
type _SchemasMatchCheckArgs = Expect<
  Same<
    { -readonly [K in keyof typeof CHECK_SCHEMAS]: z.output<(typeof CHECK_SCHEMAS)[K]> },
    CheckArgs
  >
>;

/** The name of a built-in check. */
export type CheckKind = keyof CheckArgs;

/** One check as written in a manifest: its kind and argument. */
export type CheckSpec = {
  [K in CheckKind]: { kind: K; args: CheckArgs[K] };
}[CheckKind];

/** What a run itself must have done: the closed set of counters `requires` may name. */
export interface Requires {
  /** At least this many steps. */
  min_steps?: number;
  /** At most this many steps. */
  max_steps?: number;
  /** At least this many tool calls. */
  min_tool_calls?: number;
  /** At least this many context compactions. */
  min_compactions?: number;
  /** At least this many calls denied by the policy. */
  min_denied_calls?: number;
  /** At most this many calls denied by the policy. */
  max_denied_calls?: number;
  /** At most this many tokens in all. */
  max_total_tokens?: number;
  /** At most this cost, in US dollars. */
  max_cost_usd?: number;
  /** Whether the agent must (or must not) have called `finish`. */
  finished?: boolean;
  /** Whether the trial must (or must not) have been resumed. */
  resumed?: boolean;
}

/** The closed set of counters `requires` may name. */
export const REQUIRES_SCHEMA = z.strictObject({
  min_steps: z.number().int().min(0).optional(),
  max_steps: z.number().int().min(0).optional(),
  min_tool_calls: z.number().int().min(0).optional(),
  min_compactions: z.number().int().min(0).optional(),
  min_denied_calls: z.number().int().min(0).optional(),
  max_denied_calls: z.number().int().min(0).optional(),
  max_total_tokens: z.number().int().min(0).optional(),
  max_cost_usd: z.number().min(0).optional(),
  finished: z.boolean().optional(),
  resumed: z.boolean().optional(),
});
type _SchemaMatchesRequires = Expect<Same<z.output<typeof REQUIRES_SCHEMA>, Requires>>;

/**
 * The longest `timeout_s` a manifest may set, in seconds: one day. Longer ones would overflow the
 * timers that enforce them (at most 2^31 - 1 ms, about 24.8 days) and fire at once.
 */
export const MAX_TIMEOUT_S = 86_400;

const timeoutSeconds = (fallback: number) =>
  z.number().positive().refine((seconds) => seconds <= MAX_TIMEOUT_S, {
    message:
      `is longer than ${MAX_TIMEOUT_S} seconds (one day), the longest timeout a task may set`,
    params: { fix: `use at most ${MAX_TIMEOUT_S}` },
  }).default(fallback);

// Docker's image reference grammar (github.com/distribution/reference): [host[:port]/]path[:tag]
// [@digest], or an image id. Anything else, such as a name starting with '-', never reaches the
// docker command line, where it would be read as a flag.
const domainComponent = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const domain = `(?:${domainComponent}(?:\\.${domainComponent})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const pathComponent = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
const tag = "[\\w][\\w.-]{0,127}";
const digest = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
const IMAGE_REFERENCE = new RegExp(
  `^(?:(?:${domain}/)?${pathComponent}(?:/${pathComponent})*(?::${tag})?(?:@${digest})?` +
    `|(?:sha256:)?[a-f0-9]{64})$`,
);
const imageReference = z.string().min(1).max(255).refine(
  (image) => IMAGE_REFERENCE.test(image),
  {
    message: "is not a Docker image reference",
    params: {
      fix: "name a local image as NAME[:TAG], such as verdict/python:3.11 (lowercase name; " +
        "it may not start with '-')",
    },
  },
);

/** A validated manifest (`task.yaml`), with defaults filled in and checks parsed. */
export interface Manifest {
  /** The task id: lowercase letters, digits and dashes. */
  id: string;
  /** The task's category, free text. */
  category: string;
  /** The Docker image the trial runs in. */
  image: string;
  /** The workspace's absolute path in the container; default `/workspace`. */
  workdir: string;
  /** The container's network; default `none`. */
  network: "none" | "bridge";
  /** What a trial may spend. */
  limits: {
    /** Most agent steps; default 30. */
    max_steps: number;
    /** The trial's deadline in seconds, at most {@linkcode MAX_TIMEOUT_S}; default 600. */
    timeout_s: number;
    /** Most tokens in all; default 200000. */
    max_total_tokens: number;
    /** Most cost in US dollars; default 0.5. */
    max_cost_usd: number;
    /**
     * Most entries (files, folders, links) the end state may hold; more fails the trial. Default
     * {@linkcode DEFAULT_MAX_WORKSPACE_FILES}.
     */
    max_workspace_files?: number;
    /**
     * Most bytes the end state's files may add up to; more fails the trial. Default
     * {@linkcode DEFAULT_MAX_WORKSPACE_BYTES}.
     */
    max_workspace_bytes?: number;
  };
  /** How the model's context is kept within bounds. */
  context: {
    /** The context window the loop keeps requests within; default 16000. */
    max_tokens: number;
    /** Tokens kept free for the answer; default 2000. */
    reserve_output_tokens: number;
    /** How an overlong context is made to fit; default `truncate`. */
    strategy: "truncate" | "summarize";
  };
  /** The policy file, relative to the task folder, or `default`. */
  policy: string;
  /** Documentation pages the agent may read, relative to the task folder. */
  docs?: string[];
  /** How success is decided. */
  success: {
    /** The grading script, relative to the task folder. */
    script: string;
    /** A canary script, relative to the task folder. */
    canary?: string;
    /** The script's deadline in seconds; default 120. */
    timeout_s: number;
    /**
     * How many tests the grader's test runners must report as passed (docs/tasks.md); absent:
     * at least one; 0: no report is required, which the verdict's reason says.
     */
    expect_tests?: number;
  };
  /** The built-in checks, in order. */
  checks: CheckSpec[];
  /** What the run itself must have done (empty when the manifest names nothing). */
  requires: Requires;
}

/** The default `limits.max_workspace_files`: far more than a code task needs. */
export const DEFAULT_MAX_WORKSPACE_FILES = 100_000;

/** The default `limits.max_workspace_bytes`, 1 GiB. */
export const DEFAULT_MAX_WORKSPACE_BYTES = 1024 * 1024 * 1024;

/** The manifest, without `checks` (validated item by item, see `load_task.ts`). */
export const MANIFEST_SCHEMA = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]+$/, "must be lowercase letters, digits and dashes"),
  category: z.string().min(1),
  image: imageReference,
  workdir: z.string().regex(/^\/[^\0]+$/, "must be an absolute path other than /").default(
    "/workspace",
  ),
  network: z.enum(["none", "bridge"]).default("none"),
  limits: z.strictObject({
    max_steps: z.number().int().min(1).default(30),
    timeout_s: timeoutSeconds(600),
    max_total_tokens: z.number().int().min(1).default(200_000),
    max_cost_usd: z.number().min(0).default(0.5),
    /**
     * Most entries (files, folders, links) the end state may hold; more fails the trial. Default
     * {@linkcode DEFAULT_MAX_WORKSPACE_FILES}.
     */
    max_workspace_files: z.number().int().min(1).optional(),
    /**
     * Most bytes the end state's files may add up to; more fails the trial. Default
     * {@linkcode DEFAULT_MAX_WORKSPACE_BYTES}.
     */
    max_workspace_bytes: z.number().int().min(1).optional(),
  }).prefault({}),
  context: z.strictObject({
    max_tokens: z.number().int().min(256).default(16_000),
    reserve_output_tokens: z.number().int().min(0).default(2_000),
    strategy: z.enum(["truncate", "summarize"]).default("truncate"),
  }).prefault({}),
  policy: z.string().min(1).default("default"),
  docs: z.array(relativePath).optional(),
  success: z.strictObject({
    script: relativePath,
    canary: relativePath.optional(),
    timeout_s: timeoutSeconds(120),
    expect_tests: z.number().int().min(0).optional(),
  }),
  checks: z.array(z.unknown()).optional(),
  requires: REQUIRES_SCHEMA.optional(),
});

type _SchemaMatchesManifest = Expect<
  Same<
    Omit<z.output<typeof MANIFEST_SCHEMA>, "checks" | "requires">,
    Omit<Manifest, "checks" | "requires">
  >
>;
