/**
 * Prints the slowest test files of a Deno JUnit report (`deno test --junit-path FILE`): each
 * file's time is the sum of its test cases' (a file's tests run one after another).
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
for (const match of xml.matchAll(/<testcase [^>]*classname="([^"]+)" time="([\d.]+)"/g)) {
  seconds.set(match[1], (seconds.get(match[1]) ?? 0) + Number(match[2]));
}
const slowest = [...seconds].sort((a, b) => b[1] - a[1]).slice(0, Number(count));
for (const [name, time] of slowest) console.log(`${time.toFixed(1).padStart(8)} s  ${name}`);
