// The fields of a Harbor task's `task.toml` (Harbor's pydantic `TaskConfig`, schema 1.x) as a
// strict zod schema: every known field, typed; a field Verdict cannot honour refused by name with
// its reason; an unknown key refused with the nearest known one (Harbor ignores unknown keys, so a
// typo there would silently change nothing).
import { z } from "zod";
import { MANIFEST_SCHEMA, MAX_TIMEOUT_S } from "./manifest.ts";

// Harbor's own defaults (harbor/models/task/config.py).
const DEFAULT_TIMEOUT_SEC = 600;

/** A check on a parsed value: a custom issue with its own fix when `ok` fails. */
function must<T extends z.ZodType>(
  schema: T,
  ok: (value: z.output<T>) => boolean,
  problem: (value: z.output<T>) => string,
  fix: string,
) {
  return schema.superRefine((value, context) => {
    if (!ok(value)) context.addIssue({ code: "custom", message: problem(value), params: { fix } });
  });
}

/** A field whose mere presence Verdict refuses. */
function refused(problem: string, fix: string) {
  return must(z.unknown(), () => false, () => problem, fix);
}

const seconds = z.number().positive().max(MAX_TIMEOUT_S);
const count = z.number().int().min(1);
const stringTable = z.object({}).catchall(z.string());
const freeTable = z.object({}).catchall(z.unknown());

const schemaVersion = must(
  z.string(),
  (version) => /^1\.\d+$/.test(version),
  (version) => `'${version}' is not a schema version Verdict reads (Harbor's task format 1.x)`,
  'declare a 1.x schema: schema_version = "1.1" (or version = "1.0")',
);

const NO_NETWORK_REASON = "Verdict's trial container has no network";
const networkMode = (field: string) =>
  must(
    z.enum(["public", "no-network", "allowlist"]),
    (mode) => mode === "no-network",
    (mode) => `'${mode}' asks for network access, and ${NO_NETWORK_REASON}`,
    `remove ${field}, or set it to "no-network"; install what the task needs in the Dockerfile`,
  );
const noHosts = (field: string) =>
  must(
    z.array(z.string()),
    (hosts) => hosts.length === 0,
    (hosts) => `allows ${hosts.join(", ")}, and ${NO_NETWORK_REASON}`,
    `remove ${field}; install what the task needs in the Dockerfile`,
  );
const user = must(
  z.union([z.string(), z.number()]),
  (value) => typeof value === "string" ? value.length > 0 : Number.isInteger(value) && value >= 0,
  () => "must be a user name or a numeric UID",
  'write a user name such as "root", or a UID such as 0',
).transform(String);
const sizeMb = must(
  z.string(),
  (size) => /^\s*\d+(\.\d+)?\s*[GMK]\s*$/i.test(size),
  (size) => `'${size}' is not a size`,
  'write a size such as "2G" or "512M", or use the field ending in _mb',
).transform((size) => {
  const text = size.trim().toUpperCase();
  const amount = Number(text.slice(0, -1));
  const unit = text.at(-1);
  return Math.trunc(unit === "G" ? amount * 1024 : unit === "M" ? amount : amount / 1024);
});

const VERIFIER = z.strictObject({
  timeout_sec: seconds.default(DEFAULT_TIMEOUT_SEC),
  // Verdict's own (Harbor ignores keys it does not know): grader-hijack paths the task allows.
  allowed_hijack_paths: z.array(must(
    z.string(),
    (path) => path.startsWith("/") && !path.split("/").includes(".."),
    (path) => `'${path}' is not an absolute path without '..'`,
    'write absolute paths, such as ["/etc/ld.so.cache"]',
  )).optional(),
  env: stringTable.default({}),
  user: user.optional(),
  network_mode: networkMode("verifier.network_mode").optional(),
  allowed_hosts: noHosts("verifier.allowed_hosts").optional(),
  environment_mode: must(
    z.enum(["shared", "separate"]),
    (mode) => mode === "shared",
    () =>
      "'separate' asks for a verifier image of its own, built from tests/; Verdict grades in a " +
      "fresh container of the agent's sealed image",
    'remove verifier.environment_mode (or set it to "shared")',
  ).optional(),
  environment: refused(
    "names a verifier image of its own; Verdict grades in a fresh container of the agent's " +
      "sealed image",
    "remove [verifier.environment]",
  ).optional(),
}).prefault({});

const AGENT = z.strictObject({
  timeout_sec: seconds.default(DEFAULT_TIMEOUT_SEC),
  user: refused(
    "names the user the agent runs as; Verdict runs each agent as its own user",
    "remove agent.user",
  ).optional(),
  network_mode: networkMode("agent.network_mode").optional(),
  allowed_hosts: noHosts("agent.allowed_hosts").optional(),
}).prefault({});

const ENVIRONMENT = z.strictObject({
  build_timeout_sec: seconds.default(DEFAULT_TIMEOUT_SEC),
  docker_image: MANIFEST_SCHEMA.shape.image.optional(),
  os: must(
    z.enum(["linux", "windows"]),
    (os) => os === "linux",
    () => "asks for Windows containers; Verdict runs Linux containers",
    'remove environment.os (or set it to "linux")',
  ).optional(),
  cpus: count.optional(),
  memory_mb: count.optional(),
  storage_mb: count.optional(),
  memory: sizeMb.optional(),
  storage: sizeMb.optional(),
  gpus: must(
    z.number().int().min(0),
    (gpus) => gpus === 0,
    (gpus) => `asks for ${gpus} GPU${gpus === 1 ? "" : "s"}; Verdict runs no GPUs`,
    "remove environment.gpus (or set it to 0); run this task in Harbor on a GPU provider",
  ).optional(),
  gpu_types: must(
    z.array(z.string()),
    (types) => types.length === 0,
    (types) => `asks for GPU types ${types.join(", ")}; Verdict runs no GPUs`,
    "remove environment.gpu_types; run this task in Harbor on a GPU provider",
  ).optional(),
  tpu: refused(
    "asks for a TPU slice; Verdict runs no accelerators",
    "remove [environment.tpu]; run this task in Harbor on a TPU provider",
  ).optional(),
  allow_internet: must(
    z.boolean(),
    (allow) => !allow,
    () => `true asks for internet access, and ${NO_NETWORK_REASON}`,
    "set allow_internet = false (or remove it) and install what the task needs in the Dockerfile",
  ).optional(),
  network_mode: networkMode("environment.network_mode").optional(),
  allowed_hosts: noHosts("environment.allowed_hosts").optional(),
  mcp_servers: must(
    z.array(z.unknown()),
    (servers) => servers.length === 0,
    () => "names MCP servers; Verdict's agents get no MCP servers (and its container no network)",
    "remove [[environment.mcp_servers]]",
  ).optional(),
  env: must(
    stringTable,
    (env) => Object.keys(env).length === 0,
    (env) =>
      `asks for ${Object.keys(env).join(", ")} from the host; Verdict passes no host ` +
      "environment variables into the trial container",
    "remove environment.env, and set fixed values with ENV in the Dockerfile",
  ).optional(),
  skills_dir: refused(
    "asks for skills copied into the agent's configuration; Verdict's agents get none",
    "remove environment.skills_dir",
  ).optional(),
  healthcheck: refused(
    "asks for a healthcheck before the agent starts; Verdict runs no service before the agent",
    "remove [environment.healthcheck]",
  ).optional(),
  workdir: refused(
    "overrides the image's working folder; Verdict's agent works in the image's WORKDIR",
    "set WORKDIR in the Dockerfile and remove environment.workdir",
  ).optional(),
}).prefault({});

const SOLUTION = z.strictObject({
  env: must(
    stringTable,
    (env) => Object.keys(env).length === 0,
    (env) =>
      `sets ${Object.keys(env).join(", ")} for solve.sh; Verdict's oracle runs solve.sh without ` +
      "extra environment variables",
    "export the variables at the top of solution/solve.sh and remove solution.env",
  ).optional(),
}).prefault({});

/** The fields of `task.toml`, by Harbor's model, with Verdict's refusals. */
export const HARBOR_CONFIG_SCHEMA = z.strictObject({
  version: schemaVersion.optional(),
  schema_version: schemaVersion.optional(),
  task: freeTable.optional(),
  metadata: freeTable.optional(),
  verifier: VERIFIER,
  agent: AGENT,
  environment: ENVIRONMENT,
  solution: SOLUTION,
  source: z.string().optional(),
  artifacts: z.array(z.unknown()).optional(),
  multi_step_reward_strategy: z.enum(["mean", "final"]).optional(),
  steps: refused(
    "splits the task into steps; Verdict runs one instruction and one verifier per task",
    "split the steps into separate tasks",
  ).optional(),
});

/** A validated `task.toml`. */
export type HarborConfig = z.output<typeof HARBOR_CONFIG_SCHEMA>;
