import assert from "node:assert/strict";
import { join } from "node:path";
import { tryLockRun } from "../../../src/eval/run/run_lock.ts";
import { scratchDir } from "../../_verdict.ts";

// Takes a copy of process PID's open file PATH (pidfd_getfd, syscall 438 on x86_64), as a child
// forked by any thread of that process holds one until it execs; says "held", keeps it until stdin
// closes.
const HOLD_COPY = `
import ctypes, os, sys
pid, path = int(sys.argv[1]), sys.argv[2]
fd = next(int(n) for n in os.listdir(f"/proc/{pid}/fd") if os.readlink(f"/proc/{pid}/fd/{n}") == path)
copy = ctypes.CDLL(None, use_errno=True).syscall(438, os.pidfd_open(pid), fd, 0)
if copy < 0: raise OSError(ctypes.get_errno(), "pidfd_getfd")
print("held", flush=True)
sys.stdin.read()
`;

Deno.test("a released run lock is free at once, though a process forked while it was held still has a copy of its file", async () => {
  await using dir = await scratchDir("run-lock");
  const lock = tryLockRun(dir.path);
  assert.ok(lock);
  const child = new Deno.Command("python3", {
    args: ["-c", HOLD_COPY, String(Deno.pid), join(dir.path, ".lock")],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const output = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let said = "";
    for (let chunk; !said.includes("\n") && !(chunk = await output.read()).done;) {
      said += chunk.value;
    }
    assert.equal(said, "held\n");
    assert.equal(tryLockRun(dir.path), undefined, "held while the run works");
    lock.release();
    const again = tryLockRun(dir.path);
    assert.ok(again, "a clean right after the run ends finds it free");
    again.release();
  } finally {
    await child.stdin.close();
    await output.cancel();
    await child.status;
  }
});
