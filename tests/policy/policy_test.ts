import assert from "node:assert/strict";
import { join } from "node:path";
import { DEFAULT_POLICY } from "../../src/policy/default_policy.ts";
import { commandMatches, decide, type Policy, TOOL_NAMES } from "../../src/policy/policy.ts";
import { loadPolicy, parsePolicy } from "../../src/policy/policy_file.ts";
import { simpleCommands } from "../../src/policy/shell_words.ts";
import { BUILTIN_TOOLS } from "../../src/tools/builtin_tools.ts";

const noInstalls: Policy = {
  source: "test",
  rules: [
    {
      tool: "shell",
      command: ["pip *", "curl *"],
      action: "deny",
      reason: "no installs or downloads",
    },
    { tool: "read_file", path: [".env", "**/.env"], action: "deny", reason: "secrets" },
    { tool: "*", action: "allow" },
  ],
};

const denied = (tool: string, args: Record<string, unknown>, policy = noInstalls) =>
  !decide(policy, tool, args, "/workspace").allowed;

Deno.test("shell words: quotes, escapes and spacing are removed the way sh removes them", () => {
  for (
    const variant of [
      "pip install x",
      "  pip   install\tx ",
      "'pip' install x",
      '"pip" install x',
      "p'i'p install x",
      'p"ip" install x',
      "p\\ip install x",
      "pip \\\ninstall x",
    ]
  ) {
    assert.deepEqual(simpleCommands(variant).map((command) => command.words), [[
      "pip",
      "install",
      "x",
    ]], variant);
  }
  assert.deepEqual(simpleCommands("echo 'a  b' \"c $HOME\" d\\ e").map((c) => c.words), [[
    "echo",
    "a  b",
    "c $HOME",
    "d e",
  ]]);
});

Deno.test("shell words: lists, pipelines, substitutions, sh -c, eval and here-documents are all seen", () => {
  const programs = (line: string) => simpleCommands(line).map((command) => command.words[0]);
  assert.deepEqual(programs("a; b && c || d | e & f\ng"), ["a", "b", "c", "d", "e", "f", "g"]);
  assert.ok(programs("echo $(curl x)").includes("curl"));
  assert.ok(programs("echo `curl x`").includes("curl"));
  assert.ok(programs('echo "$(curl x)"').includes("curl"));
  assert.ok(programs("sh -c 'pip install x'").includes("pip"));
  assert.ok(programs('bash -lc "cd /tmp && pip install x"').includes("pip"));
  assert.ok(programs('eval "pip install x"').includes("pip"));
  assert.ok(programs("sh <<EOF\npip install x\nEOF\n").includes("pip"));
  assert.ok(programs("if true; then pip install x; fi").includes("pip"));
  assert.ok(programs("(cd sub && pip install x)").includes("pip"));
  assert.deepEqual(programs("echo hi # pip install x"), ["echo"], "comments are not commands");
});

Deno.test("a deny rule holds against every spacing, quoting and nesting variant", () => {
  const variants = [
    "pip install requests",
    "  pip    install   requests  ",
    "'pip' install requests",
    'p"ip" install requests',
    "p\\ip install requests",
    "/usr/bin/pip install requests",
    "cd src && pip install requests",
    "true; pip install requests",
    "echo ok | pip install requests",
    "sh -c 'pip install requests'",
    'bash -c "pip install requests"',
    "echo $(pip install requests)",
    "echo `pip install requests`",
    "FOO=1 pip install requests",
    "env FOO=1 pip install requests",
    "sudo -u root pip install requests",
    "timeout 10 pip install requests",
    "nohup pip install requests",
    "xargs -n 1 pip install < list",
    "busybox wget x; curl -s https://x",
    'eval "pip install requests"',
    "sh <<EOF\npip install requests\nEOF",
  ];
  for (const command of variants) assert.ok(denied("shell", { command }), command);
  for (const command of ["python -m pytest -q", "echo pip", "grep -r pip .", "ls"]) {
    assert.ok(!denied("shell", { command }), command);
  }
});

Deno.test("decisions name the deciding rule; no rule means deny", () => {
  const denial = decide(noInstalls, "shell", { command: "cd x && curl -s http://h" }, "/workspace");
  assert.deepEqual(denial, {
    allowed: false,
    rule: 0,
    reason: "no installs or downloads",
    subject: "curl -s http://h",
  });
  const strict: Policy = { source: "strict.yaml", rules: [{ tool: "read_file", action: "allow" }] };
  const nothing = decide(strict, "shell", { command: "ls" }, "/workspace");
  assert.equal(nothing.allowed, false);
  assert.equal(nothing.rule, null);
  assert.match(nothing.reason, /no rule of the strict\.yaml policy allows it/);
  assert.equal(decide(strict, "read_file", { path: "a" }, "/workspace").allowed, true);
});

Deno.test("path rules see the path the tool will use: normalized, and absolute ones made relative", () => {
  for (
    const path of [
      ".env",
      "./.env",
      "src/../.env",
      "app/.env",
      "./app/./.env",
      "/workspace/.env",
      "/workspace/app/../app/.env",
    ]
  ) {
    assert.ok(denied("read_file", { path }), path);
  }
  const secrets: Policy = {
    source: "secrets.yaml",
    rules: [
      { tool: "read_file", path: ["secrets/**"], action: "deny" },
      { tool: "*", action: "allow" },
    ],
  };
  for (const path of ["secrets/key", "/workspace/secrets/key", "/workspace//secrets/./key"]) {
    assert.ok(denied("read_file", { path }, secrets), path);
  }
  assert.ok(
    !denied("read_file", { path: "/elsewhere/secrets/key" }, secrets),
    "the tool refuses it",
  );
  assert.ok(!denied("read_file", { path: ".env.example" }));
  assert.ok(!denied("write_file", { path: ".env" }), "the rule names read_file only");
});

Deno.test("command patterns: * alone spans words, inside a word it spans characters", () => {
  assert.ok(commandMatches("* .env *", ["grep", "-r", "KEY", ".env"]));
  assert.ok(commandMatches("* .env *", ["cat", "<", ".env"]));
  assert.ok(commandMatches("cat *.env", ["cat", "prod.env"]));
  assert.ok(commandMatches("cat .env", ["cat", "./.env"]), "path words are normalized");
  assert.ok(!commandMatches("pip install *", ["pip", "list"]));
  assert.ok(commandMatches("pip *", ["pip"]), "* spans zero words too");
});

Deno.test("the default policy stops installs, network, privilege and wrecking, and allows coding", () => {
  for (
    const command of [
      "pip install x",
      "python3 -m pip install x",
      "apt-get install -y x",
      "curl https://x",
      "wget x",
      "git push origin main",
      "sudo ls",
      "rm -rf /",
      "rm -rf --no-preserve-root /",
    ]
  ) {
    assert.ok(denied("shell", { command }, DEFAULT_POLICY), command);
  }
  for (
    const command of [
      "python -m pytest -q",
      "git diff",
      "rm -rf build/",
      "ls -la",
      "sed -i s/a/b/ f.py",
    ]
  ) {
    assert.ok(!denied("shell", { command }, DEFAULT_POLICY), command);
  }
  assert.ok(!denied("write_file", { path: "src/a.py" }, DEFAULT_POLICY));
});

Deno.test("policy files: include default, list or single patterns, errors with file and field", async () => {
  const policy = parsePolicy(
    "rules:\n  - tool: shell\n    command: 'cat .env'\n    action: deny\n  - include: default\n",
    "p.yaml",
  );
  assert.equal(policy.rules.length, 1 + DEFAULT_POLICY.rules.length);
  assert.deepEqual(policy.rules[0].command, ["cat .env"]);
  assert.throws(
    () => parsePolicy("rules:\n  - tool: shell\n    action: maybe\n", "p.yaml"),
    /p\.yaml: rules\[0\]\.action: string "maybe" is not allowed\. Fix: use one of: allow, deny/,
  );
  assert.throws(
    () => parsePolicy("rules:\n  - tool: shell\n    action: deny\n    commands: [x]\n", "p.yaml"),
    /rules\[0\]\.commands: unknown key\. Fix: did you mean 'command'\?/,
  );
  assert.throws(
    () => parsePolicy("rules:\n  - include: strict\n", "p.yaml"),
    /rules\[0\]\.include/,
  );
  assert.throws(() => parsePolicy("rule: []\n", "p.yaml"), /p\.yaml: rule: unknown key/);
  await assert.rejects(
    loadPolicy(join("tests", "no-such-policy.yaml")),
    /the policy file does not exist/,
  );
});

Deno.test("the bundled policy tasks' files load and deny what their tasks need denied", async () => {
  const installs = await loadPolicy("tasks/policy-no-installs/policy.yaml");
  for (
    const command of [
      "pip install python-dateutil",
      "python3 -m pip install x",
      "cd x && pip3 install y",
    ]
  ) {
    assert.ok(denied("shell", { command }, installs), command);
  }
  assert.ok(!denied("shell", { command: "python -m pytest -q" }, installs));
  const secrets = await loadPolicy("tasks/policy-keep-secrets/policy.yaml");
  for (
    const [tool, args] of [["read_file", { path: ".env" }], ["shell", { command: "cat .env" }], [
      "shell",
      { command: "grep -n TOKEN ./.env" },
    ], ["shell", { command: "head -n 3 < .env" }]] as const
  ) {
    assert.ok(denied(tool, args, secrets), JSON.stringify(args));
  }
  assert.ok(!denied("read_file", { path: ".env.example" }, secrets));
});

Deno.test("a rule naming no tool is refused with the nearest tool, not left never to match", () => {
  const rule = (tool: string) => `rules:\n  - tool: ${tool}\n    action: deny\n`;
  assert.throws(
    () => parsePolicy(rule("shel"), "p.yaml"),
    /p\.yaml: rules\[0\]\.tool: 'shel' names no tool, so the rule would never apply\. Fix: did you mean 'shell'\?$/,
  );
  assert.throws(
    () => parsePolicy(rule("net_*"), "p.yaml"),
    /rules\[0\]\.tool: 'net_\*' names no tool.*Fix: use a tool name \(read_file, .*\) or a glob such as '\*'/,
  );
  assert.equal(parsePolicy(rule("'*_file'"), "p.yaml").rules[0].tool, "*_file");
});

Deno.test("the policy's tool names are the built-in tools' names", () => {
  assert.deepEqual(
    [...TOOL_NAMES].sort(),
    BUILTIN_TOOLS.map((tool) => tool.schema.name).sort(),
  );
});

Deno.test("a rule without an action says it is missing, not 'undefined undefined'", () => {
  assert.throws(
    () => parsePolicy("rules:\n  - tool: shell\n", "p.yaml"),
    /p\.yaml: rules\[0\]\.action: is missing\. Fix: add it, one of: allow, deny$/,
  );
});

Deno.test("path globs and command patterns that cannot work are refused, naming the field", () => {
  assert.throws(
    () =>
      parsePolicy(
        "rules:\n  - tool: read_file\n    path: ['.env', '[abc']\n    action: deny\n",
        "p.yaml",
      ),
    /p\.yaml: rules\[0\]\.path\[1\]: '\[abc' is not a valid glob: the '\[' at character 1 is never closed/,
  );
  assert.throws(
    () => parsePolicy("rules:\n  - tool: '[shell'\n    action: deny\n", "p.yaml"),
    /rules\[0\]\.tool: '\[shell' is not a valid glob/,
  );
  assert.throws(
    () =>
      parsePolicy(
        "rules:\n  - tool: shell\n    command: 'pip install x; curl y'\n    action: deny\n",
        "p.yaml",
      ),
    /rules\[0\]\.command: 'pip install x; curl y' is 2 commands; a pattern matches one simple command/,
  );
  const classes = parsePolicy(
    "rules:\n  - tool: read_file\n    path: 'secret[0-9].txt'\n    action: deny\n  - tool: '*'\n    action: allow\n",
    "p.yaml",
  );
  assert.ok(!decide(classes, "read_file", { path: "secret7.txt" }, "/workspace").allowed);
  assert.ok(decide(classes, "read_file", { path: "secretX.txt" }, "/workspace").allowed);
});

// Issue 11 item 9: commands whose program the text does not settle were allowed.
const OPAQUE_BYPASSES = [
  "x=curl; $x https://example.com",
  '"$(printf cu)rl" https://example.com',
  "`printf cu`rl https://example.com",
  "printf 'curl https://example.com' | sh",
  "echo Y3VybCBodHRwczovL2V4YW1wbGUuY29t | base64 -d | sh",
  "base64 -d < payload | bash -s",
  "sh < script.txt",
  "bash <<< 'curl https://example.com'",
  "w?et https://example.com",
  "/usr/bin/c*l https://example.com",
  "{cu,}rl https://example.com",
  "eval ls",
  'eval "$(cat cmd.txt)"',
  "source ./env.sh",
  ". ./env.sh",
  "alias get=curl",
  "echo https://x | xargs -I{} sh -c {}",
  "xargs sh -c < cmds",
];

// Programs the parser can read once it knows how they run others or name themselves.
const DECIDED_BYPASSES = [
  "find . -exec curl https://example.com \\;",
  "find . -name x -execdir wget https://example.com {} +",
  "find . -exec sh -c 'curl https://example.com' \\;",
  "timeout 5 sh -c 'curl https://example.com'",
  "xargs curl < urls",
  "python3 -mpip install requests",
  "python3 -Im pip install requests",
  "python3 -m pip.__main__ install requests",
  "pip3.11 install requests",
  "/usr/local/bin/pip3.11 install requests",
  "</dev/null curl https://example.com",
  "2>/dev/null wget https://example.com",
  // Options may follow `-c`, and `--` ends them: the command string is the first operand.
  "sh -c -- 'curl https://example.com'",
  "bash -c -e 'curl https://example.com'",
  "bash -o pipefail -c 'curl https://example.com'",
  "env -S 'curl https://example.com'",
  "setsid curl https://example.com",
  "ionice -c 3 wget https://example.com",
];

Deno.test("the default policy denies commands whose program it cannot read, naming why", () => {
  for (const command of OPAQUE_BYPASSES) {
    const decision = decide(DEFAULT_POLICY, "shell", { command }, "/workspace");
    assert.equal(decision.allowed, false, command);
    assert.equal(
      DEFAULT_POLICY.rules[decision.rule!].opaque,
      true,
      `${command}: ${decision.subject}`,
    );
    assert.match(decision.reason, /cannot tell what this command runs/, command);
  }
  const denial = decide(DEFAULT_POLICY, "shell", { command: "x=curl; $x h" }, "/workspace");
  assert.equal(denial.subject, "$x h (its program is only known once the shell expands it)");
  for (const command of DECIDED_BYPASSES) {
    const decision = decide(DEFAULT_POLICY, "shell", { command }, "/workspace");
    assert.equal(decision.allowed, false, command);
    assert.doesNotMatch(decision.reason, /cannot tell/, `${command} is read, not guessed`);
  }
});

Deno.test("what the default policy can read stays allowed: scripts, python -c, globs as arguments", () => {
  for (
    const command of [
      "python -m pytest -q",
      'PYTHONDONTWRITEBYTECODE=1 python -m pytest -q >/dev/null 2>&1; echo "exit $?"',
      "python3 -c 'print(1)'",
      "sh run.sh",
      "bash -x ./build.sh arg",
      "sh -c 'ls -la'",
      "sh -ec -- 'ls -la'",
      "sh build.sh -c curl",
      "[ -f setup.py ] && echo yes",
      "[[ -n $HOME ]] && echo yes",
      "for f in *.py; do wc -l $f; done",
      'case "$1" in a) echo a;; *) echo other;; esac',
      "ls *.py",
      "echo $(ls)",
      "find . -name '*.py' -exec grep -l TODO {} +",
      "grep -rn pip .",
      "cat requirements.txt | sort",
    ]
  ) {
    const decision = decide(DEFAULT_POLICY, "shell", { command }, "/workspace");
    assert.ok(decision.allowed, `${command}: ${decision.subject}`);
  }
});

Deno.test("the policy tasks deny every bypass, and every bundled solve script is still allowed", async () => {
  for (const task of ["policy-no-installs", "policy-keep-secrets"]) {
    const policy = await loadPolicy(`tasks/${task}/policy.yaml`);
    for (const command of [...OPAQUE_BYPASSES, ...DECIDED_BYPASSES]) {
      assert.ok(denied("shell", { command }, policy), `${task}: ${command}`);
    }
  }
  const solves = [];
  for (const root of ["tasks", "tests/fixtures"]) {
    for await (const entry of walkSolveScripts(root)) solves.push(entry);
  }
  assert.ok(solves.length >= 3, "the bundled tasks have solve scripts to check");
  for (const { policyPath, script } of solves) {
    const policy = await loadPolicy(policyPath);
    const command = await Deno.readTextFile(script);
    const decision = decide(policy, "shell", { command }, "/workspace");
    assert.ok(decision.allowed, `${script}: ${decision.subject}`);
  }
});

async function* walkSolveScripts(
  folder: string,
): AsyncGenerator<{ policyPath: string; script: string }> {
  for await (const entry of Deno.readDir(folder)) {
    if (!entry.isDirectory) continue;
    const dir = join(folder, entry.name);
    const script = join(dir, "solution", "solve.sh");
    const manifest = join(dir, "task.yaml"); // Harbor tasks (task.toml) have no policy of theirs
    const exists = (path: string) => Deno.stat(path).then(() => true, () => false);
    if (await exists(script) && await exists(manifest)) {
      const text = await Deno.readTextFile(manifest);
      const policy = /^policy:\s*(\S+)/m.exec(text)?.[1] ?? "default";
      yield { policyPath: policy === "default" ? "default" : join(dir, policy), script };
    } else yield* walkSolveScripts(dir);
  }
}

Deno.test("policy files: `opaque: true` rules, alone and not mixed with patterns", () => {
  const policy = parsePolicy(
    "rules:\n  - tool: shell\n    opaque: true\n    action: deny\n  - tool: '*'\n    action: allow\n",
    "p.yaml",
  );
  assert.ok(denied("shell", { command: "$cmd x" }, policy));
  assert.ok(!denied("shell", { command: "curl x" }, policy), "an opaque rule matches nothing else");
  assert.ok(!denied("read_file", { path: "$x" }, policy));
  assert.throws(
    () =>
      parsePolicy(
        "rules:\n  - tool: shell\n    opaque: true\n    command: 'x *'\n    action: deny\n",
        "p.yaml",
      ),
    /p\.yaml: rules\[0\]: a rule may have one of command patterns, path patterns or opaque/,
  );
  assert.throws(
    () => parsePolicy("rules:\n  - tool: shell\n    opaque: false\n    action: deny\n", "p.yaml"),
    /rules\[0\]\.opaque/,
  );
});
