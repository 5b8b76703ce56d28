/**
 * Prints the slowest test files of a Deno JUnit report (`deno test --junit-path FILE`): each
 * file's time is the sum of its tests' (a file's tests run one after another); a test's steps are
 * part of their test's time, so they are not counted again.
 *
 *   deno run --allow-read scripts/slowest_tests.ts FILE [COUNT]
 *
 * @module
 */
const [file, count = "10"] = Deno.args;
if (file === undefined) {
  console.error("usage: slowest_tests.ts JUNIT_FILE [COUNT]");
  Deno.exit(2);
}
const xml = await Deno.readTextFile(file);
const seconds = new Map<string, number>();
const TESTCASE = /<testcase name="([^"]*)" [^>]*classname="([^"]+)" time="([\d.]+)"/g;
for (const [, name, file, time] of xml.matchAll(TESTCASE)) {
  if (name.includes(" &gt; ")) continue; // a step, within its test's time
  seconds.set(file, (seconds.get(file) ?? 0) + Number(time));
}
const slowest = [...seconds].sort((a, b) => b[1] - a[1]).slice(0, Number(count));
for (const [name, time] of slowest) console.log(`${time.toFixed(1).padStart(8)} s  ${name}`);
