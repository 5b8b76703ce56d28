import assert from "node:assert/strict";
import { InputError } from "../../src/core/errors.ts";
import { elfInterpreter } from "../../src/kit/elf_interpreter.ts";
import { scratchDir } from "../_verdict.ts";

const busybox = await Deno.stat("/bin/busybox").then(() => true, () => false);

Deno.test("elfInterpreter reads the program interpreter of a dynamic executable", async () => {
  const expected = Deno.build.arch === "x86_64"
    ? "/lib64/ld-linux-x86-64.so.2"
    : "/lib/ld-linux-aarch64.so.1";
  assert.equal(await elfInterpreter("/bin/true"), expected);
});

Deno.test({
  name: "elfInterpreter says null for a static executable (busybox)",
  ignore: !busybox,
  async fn() {
    assert.equal(await elfInterpreter("/bin/busybox"), null);
  },
});

Deno.test("elfInterpreter refuses a file that is not ELF, or an ELF cut short, naming it", async () => {
  await using scratch = await scratchDir("elf");
  const text = `${scratch.path}/notes.txt`;
  await Deno.writeTextFile(text, "#!/bin/sh\necho hello\n".repeat(10));
  await assert.rejects(
    () => elfInterpreter(text),
    (error) => error instanceof InputError && error.message.includes(text),
  );
  const cut = `${scratch.path}/cut`;
  await Deno.writeFile(cut, (await Deno.readFile("/bin/true")).subarray(0, 200));
  await assert.rejects(() => elfInterpreter(cut), /cut short/);
});
