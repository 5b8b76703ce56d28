/**
 * `deno task install`: a `verdict` command that stands alone. The source (`cli.ts`, the library's
 * entry files, `src/`, `deno.json`, `deno.lock`) is copied into a versioned folder,
 * `$DENO_INSTALL_ROOT/share/verdict/VERSION` (`~/.deno/share/verdict/VERSION` by default), and
 * `verdict` is installed from there with its locked npm dependencies in a `node_modules` of its
 * own, so moving or deleting this checkout leaves it working. Its permissions are the `verdict`
 * set of `deno.json`, and your signing key's folder (`$HOME/.config/verdict`).
 *
 * Upgrade: run `deno task install` again from a newer checkout. Uninstall:
 * `deno uninstall -g verdict`, then remove the versioned folder this prints.
 *
 * @module
 */
import { join } from "node:path";

interface PermissionSet {
  read: string[];
  write: string[];
  run: string[];
  env: string[];
  net: true | string[];
}

const SOURCES = [
  "cli.ts",
  "mod.ts",
  "agents.ts",
  "records.ts",
  "sandbox.ts",
  "task_format.ts",
  "testing.ts",
  "deno.json",
  "deno.lock",
  "src",
];

const config = JSON.parse(await Deno.readTextFile("deno.json")) as {
  version: string;
  permissions: { verdict: PermissionSet };
};
const home = Deno.env.get("HOME");
if (!home) throw new Error("HOME is not set: it names the folder of your signing key");
const root = Deno.env.get("DENO_INSTALL_ROOT") || join(home, ".deno");
const target = join(root, "share", "verdict", config.version);

await Deno.remove(target, { recursive: true }).catch((error) => {
  if (!(error instanceof Deno.errors.NotFound)) throw error;
});
await Deno.mkdir(target, { recursive: true });
for (const source of SOURCES) await copy(source, join(target, source));

const set = config.permissions.verdict;
const keyFolder = join(home, ".config", "verdict");
const installed = await new Deno.Command("deno", {
  args: [
    "install",
    "-g",
    "-f",
    "-n",
    "verdict",
    "--quiet",
    "--config",
    join(target, "deno.json"),
    "--node-modules-dir=auto",
    "--frozen=false",
    "--no-prompt",
    `--allow-read=${[...set.read, keyFolder].join(",")}`,
    `--allow-write=${[...set.write, keyFolder].join(",")}`,
    `--allow-run=${set.run.join(",")}`,
    `--allow-env=${set.env.join(",")}`,
    set.net === true ? "--allow-net" : `--allow-net=${set.net.join(",")}`,
    join(target, "cli.ts"),
  ],
  stdout: "inherit",
  stderr: "inherit",
}).output();
if (!installed.success) Deno.exit(installed.code);
console.log(
  `installed verdict ${config.version} from ${target}\n` +
    `uninstall: deno uninstall -g verdict && rm -r ${target}`,
);

async function copy(from: string, to: string): Promise<void> {
  const info = await Deno.lstat(from);
  if (info.isDirectory) {
    await Deno.mkdir(to, { recursive: true });
    for await (const entry of Deno.readDir(from)) {
      await copy(join(from, entry.name), join(to, entry.name));
    }
  } else if (info.isFile) await Deno.copyFile(from, to);
}
