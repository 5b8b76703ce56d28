/**
 * The default policy for coding tasks: work freely inside the workspace, but no package
 * installs, no network tools, no privilege changes and no commands that wreck the machine, and
 * no command whose program the policy cannot read from its text. The rules stop a model that
 * follows them; the boundary for downloads is the container's lack of network.
 *
 * @module
 */
import type { Policy } from "./policy.ts";

/**
 * The default coding policy.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decide } from "./policy.ts";
 * import { DEFAULT_POLICY } from "./default_policy.ts";
 * assert(!decide(DEFAULT_POLICY, "shell", { command: "pip install requests" }, "/workspace").allowed);
 * assert(decide(DEFAULT_POLICY, "shell", { command: "python -m pytest -q" }, "/workspace").allowed);
 * ```
 */
export const DEFAULT_POLICY: Policy = {
  source: "default",
  rules: [
    {
      tool: "shell",
      command: [
        "pip install *",
        "pip3 install *",
        "* -m pip install *",
        "* -m ensurepip *",
        "npm install *",
        "npm i *",
        "yarn add *",
        "apt *",
        "apt-get *",
        "apk add *",
        "dpkg -i *",
      ],
      action: "deny",
      reason: "installing packages is not allowed: solve the task with what the image has",
    },
    {
      tool: "shell",
      command: [
        "curl *",
        "wget *",
        "nc *",
        "ncat *",
        "ssh *",
        "scp *",
        "rsync *",
        "git clone *",
        "git fetch *",
        "git pull *",
        "git push *",
      ],
      action: "deny",
      reason: "network access is not allowed from the sandbox",
    },
    {
      tool: "shell",
      command: ["sudo *", "su *", "doas *", "chroot *", "mount *", "umount *"],
      action: "deny",
      reason: "changing privileges or mounts is not allowed",
    },
    {
      tool: "shell",
      command: [
        "rm * /",
        "rm * / *",
        "mkfs *",
        "mkfs.*",
        "shutdown *",
        "reboot *",
        "halt *",
        "kill * -1",
      ],
      action: "deny",
      reason: "destructive system commands are not allowed",
    },
    {
      tool: "shell",
      opaque: true,
      action: "deny",
      reason:
        "the policy cannot tell what this command runs; write the program's name out literally " +
        "(no $variables, substitutions, globs, eval, source, or commands piped into a shell)",
    },
    { tool: "*", action: "allow", reason: "the default policy allows other calls" },
  ],
};
