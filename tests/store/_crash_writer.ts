// A writer for the crash test: appends steps of three events forever and prints each committed
// head after its transaction commits, until the parent kills it.
import { openStore } from "../../src/store/store.ts";

const [path, session] = Deno.args;
const store = openStore(path);
store.runs.create({ id: "crash-run", config: {}, createdAt: 0 });
store.runs.createSession({ id: session, run: "crash-run", task: "t", repeat: 0 });
const encoder = new TextEncoder();
for (let step = 0;; step++) {
  const stored = store.events.append(session, [
    { kind: "model.response", payload: { step, text: `answer ${step}` } },
    { kind: "tool.intent", payload: { step, big: "b".repeat(step % 3 === 0 ? 5000 : 10) + step } },
    { kind: "tool.result", payload: { step, exit: 0 } },
  ]);
  Deno.stdout.writeSync(encoder.encode(`${stored[2].seq}\n`));
}
