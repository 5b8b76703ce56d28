import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { copyTree, PROJECT_ROOT } from "../_verdict.ts";
import { minimalTask, writeFiles } from "../task/_task_fixture.ts";

interface PermissionSet {
  read: string[];
  write: string[];
  run: string[];
  env: string[];
  net: true;
}

const CONFIG = JSON.parse(Deno.readTextFileSync(join(PROJECT_ROOT, "deno.json"))) as {
  tasks: Record<string, string>;
  permissions: { verdict: PermissionSet };
};

// The permission flags of a command line, sorted.
function permissionFlags(line: string): string[] {
  const words = line.split(" ");
  return words.filter((word) => /^(--allow-|--deny-|-A$|-P|--permission-set)/.test(word)).sort();
}

// The flags of the `verdict` permission set, with extra folders to read and write.
function verdictFlags(extraFolders: string[]): string[] {
  const set = CONFIG.permissions.verdict;
  return [
    `--allow-read=${[...set.read, ...extraFolders].join(",")}`,
    `--allow-write=${[...set.write, ...extraFolders].join(",")}`,
    `--allow-run=${set.run.join(",")}`,
    `--allow-env=${set.env.join(",")}`,
    ...(set.net === true ? ["--allow-net"] : []),
  ].sort();
}

Deno.test("compile and permissions.verdict grant the same scope, relative to where verdict runs", () => {
  const set = CONFIG.permissions.verdict;
  assert.deepEqual(permissionFlags(CONFIG.tasks.compile), verdictFlags([]), "deno task compile");
  assert(CONFIG.tasks.compile.split(" ").includes("--no-prompt"), "compile never prompts");
  assert.deepEqual(set.read, [".", "/tmp/verdict-gateway"], "reads: the folder it runs from");
  assert.deepEqual(set.write, [".", "/tmp/verdict-gateway"], "writes: the folder it runs from");
  assert.deepEqual(set.run, ["docker"]);
});

/** What `deno task install` needs of a checkout, copied to `to`. */
async function checkoutCopy(to: string): Promise<void> {
  const files = ["cli.ts", "mod.ts", "agents.ts", "records.ts", "sandbox.ts", "task_format.ts"]
    .concat(["testing.ts", "deno.json", "deno.lock", "src", "scripts/install.sh"])
    .concat(["scripts/install.ts"]);
  for (const file of files) {
    await Deno.mkdir(dirname(join(to, file)), { recursive: true });
    await copyTree(join(PROJECT_ROOT, file), join(to, file));
  }
}

// The environment of a user's shell, reduced to what these commands need; the user's home is
// `home` (Deno's cache stays the real one).
function userEnv(root: string, home: string): Record<string, string> {
  const realHome = Deno.env.get("HOME") ?? "/root";
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: home,
    NO_COLOR: "1",
    DENO_INSTALL_ROOT: root,
    DENO_DIR: join(realHome, ".cache", "deno"),
  };
  for (const name of ["DENO_DIR", "DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

async function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(command, { args, cwd, env, clearEnv: true }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

type Verdict = (...args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>;

// The installed command made your key on first use (one key, even for evals started at once), in
// a folder only you can read, and signed the run with it; a key file others can read is refused.
async function signedWithYourKey(
  verdict: Verdict,
  home: string,
  project: string,
  outputs: { stderr: string }[],
): Promise<void> {
  const file = join(home, ".config", "verdict", "signing-key");
  const made = outputs.map(({ stderr }) =>
    stderr.match(/made your signing key (\S+) \((ed25519:[0-9a-f]+), public key ([\w-]+)\)/)
  ).filter((match) => match !== null);
  assert.equal(made.length, 1, outputs.map(({ stderr }) => stderr).join("\n"));
  const [, path, fingerprint, publicKey] = made[0]!;
  assert.equal(path, file);
  assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
  assert.equal((await Deno.stat(dirname(file))).mode! & 0o777, 0o700);
  const [id] = [...Deno.readDirSync(join(project, ".verdict", "runs"))].map((entry) => entry.name);
  // `--key=` form: a base64url key may begin with "-", which would read as a flag.
  const verified = await verdict("verify", id, `--key=${publicKey}`);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  assert.match(verified.stdout, new RegExp(`intact: .*; signed by ${fingerprint}`));
  await Deno.chmod(file, 0o644);
  const exposed = await verdict("eval", "--agent", "oracle");
  assert.equal(exposed.code, 2, exposed.stderr);
  assert.ok(exposed.stderr.includes(`Fix: chmod 600 ${file}`), exposed.stderr);
}

Deno.test("deno task install: a verdict command that stands alone (its checkout moved), works in another folder and refuses paths outside it", async () => {
  const root = await Deno.makeTempDir({ prefix: "verdict-install-root-" });
  const project = await Deno.realPath(await Deno.makeTempDir({ prefix: "verdict-project-" }));
  const lockBefore = await Deno.readTextFile(join(PROJECT_ROOT, "deno.lock"));
  try {
    const home = join(root, "home");
    const env = userEnv(root, home);
    // Installed from a checkout that is then moved: the command keeps working.
    const checkout = join(root, "checkout");
    await checkoutCopy(checkout);
    const installed = await run("deno", ["task", "--quiet", "install"], checkout, env);
    assert.equal(installed.code, 0, installed.stderr);
    assert.match(installed.stdout, /installed verdict \S+ from \S+\/share\/verdict\/\S+\n/);
    await Deno.rename(checkout, join(root, "checkout-moved"));
    const command = join(root, "bin", "verdict");
    assert((await Deno.stat(command)).isFile, "installed into $DENO_INSTALL_ROOT/bin");
    assert.equal(await Deno.readTextFile(join(PROJECT_ROOT, "deno.lock")), lockBefore);
    const shim = await Deno.readTextFile(command);
    assert.ok(!shim.includes(checkout + "/"), `the command does not run the checkout: ${shim}`);
    const line = shim.split("\n").find((text) => text.startsWith("exec deno run "))!;
    assert.deepEqual(permissionFlags(line), verdictFlags([join(home, ".config", "verdict")]));
    assert.ok(line.split(" ").includes("--no-prompt"), "the command never prompts");

    await writeFiles(join(project, "tasks", "say-yes"), minimalTask("say-yes"));
    const verdict = (...args: string[]) => run("sh", [command, ...args], project, env);

    const outside: [string[], RegExp][] = [
      [["eval", "--agent", "oracle", "--home", `${root}/state`], /given as --home/],
      [["eval", join(PROJECT_ROOT, "tasks", "shell-count-errors")], /given as a task path/],
      [["report", "r", "--html", "/etc/verdict-report.html"], /given as --html/],
    ];
    const [evaluated, ...refusals] = await Promise.all([
      verdict("eval", "--agent", "oracle"),
      ...outside.map(([args]) => verdict(...args)),
    ]);
    assert.equal(evaluated.code, 0, evaluated.stderr);
    assert.match(evaluated.stdout, /say-yes#0 pass/);
    assert((await Deno.stat(join(project, ".verdict", "verdict.db"))).isFile);
    await signedWithYourKey(verdict, home, project, [evaluated, ...refusals]);
    for (const [index, [args, flag]] of outside.entries()) {
      const refused = refusals[index];
      assert.equal(refused.code, 2, `${args.join(" ")}: ${refused.stderr}`);
      assert.match(refused.stderr, flag);
      assert(
        refused.stderr.includes(`only inside the folder it runs from, ${project}`),
        refused.stderr,
      );
    }
    assert.throws(() => Deno.statSync(join(root, "state")), Deno.errors.NotFound);

    const removed = await run("deno", ["uninstall", "-g", "verdict"], project, env);
    assert.equal(removed.code, 0, removed.stderr);
    assert.throws(() => Deno.statSync(command), Deno.errors.NotFound);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
});
