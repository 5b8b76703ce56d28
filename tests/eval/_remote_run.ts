/**
 * Shared by the tests that run `verdict eval` against a loopback OpenAI provider: a "model" that
 * solves the trivial task, and a search of a state folder for a secret.
 */
import { join } from "node:path";
import { openAiReply, type Received, type Reply } from "../model/_fake_provider.ts";

/** An OpenAI-speaking "model" that solves the trivial task: write answer.txt, then finish. */
export function solvingOpenAi(request: Received): Reply {
  const messages = request.body.messages as { role: string }[];
  return messages.some((message) => message.role === "tool")
    ? openAiReply(null, [{ id: "call_2", name: "finish", arguments: '{"summary":"wrote it"}' }])
    : openAiReply("Writing the answer.", [{
      id: "call_1",
      name: "write_file",
      arguments: '{"path":"answer.txt","content":"yes\\n"}',
    }]);
}

/** Every file under `root` whose bytes contain `needle`. */
export async function filesContaining(root: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(root)) {
    const path = join(root, entry.name);
    if (entry.isDirectory) found.push(...await filesContaining(path, needle));
    else if (entry.isFile && new TextDecoder().decode(await Deno.readFile(path)).includes(needle)) {
      found.push(path);
    }
  }
  return found;
}
