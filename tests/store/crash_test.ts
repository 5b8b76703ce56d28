import assert from "node:assert/strict";
import { join } from "node:path";
import { openStore } from "../../src/store/store.ts";
import { verifyRun } from "../../src/store/verify.ts";
import { PROJECT_ROOT, scratchDir } from "../_verdict.ts";

async function killWriterAfter(path: string, commits: number): Promise<number> {
  const child = new Deno.Command("deno", {
    args: [
      "run",
      "-P=verdict",
      "--quiet",
      join(PROJECT_ROOT, "tests/store/_crash_writer.ts"),
      path,
      "s1",
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  let lastCommitted = -1;
  let seen = 0;
  let buffered = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    buffered += decoder.decode(chunk, { stream: true });
    const lines = buffered.split("\n");
    buffered = lines.pop()!;
    for (const line of lines) {
      lastCommitted = Number(line);
      seen++;
    }
    if (seen >= commits) {
      child.kill("SIGKILL");
      break;
    }
  }
  const status = await child.status;
  assert.deepEqual(status.signal, "SIGKILL");
  return lastCommitted;
}

Deno.test("a writer killed with SIGKILL between appends leaves every committed event intact", async () => {
  await using dir = await scratchDir("crash");
  for (const [round, commits] of [25, 180, 400].entries()) {
    const path = join(dir.path, `verdict-${round}.db`);
    const lastCommitted = await killWriterAfter(path, commits);
    const store = openStore(path);
    const events = store.events.read("s1");
    assert.ok(
      events.length - 1 >= lastCommitted,
      `round ${round}: event ${lastCommitted} was reported committed but the log ends at ${
        events.length - 1
      }`,
    );
    assert.deepEqual(events.length % 3, 0, "a step's three events commit together");
    assert.deepEqual(events.map((event) => event.seq), events.map((_, index) => index));
    const report = verifyRun(store, "crash-run");
    assert.deepEqual(report.problems, []);
    assert.deepEqual(report.events, events.length);
    store.close();
  }
});
