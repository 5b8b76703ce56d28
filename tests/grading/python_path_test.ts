import assert from "node:assert/strict";
import {
  GRADER_PYTHON_FOLDER,
  PTH_NAME,
  pthEntry,
  PYTHON_SITE_FOLDERS,
  pythonPathFiles,
} from "../../src/grading/python_path.ts";

Deno.test("the .pth names the grader's folder, then settles a workdir quoted as a Python string", () => {
  assert.equal(
    pthEntry("/srv/it's\\here", ["import extra"]),
    "/verdict/grader\n" +
      "import verdict_grader_path; verdict_grader_path.settle('/srv/it\\'s\\\\here', '/verdict/grader')\n" +
      "import extra\n",
  );
});

Deno.test("the .pth goes in the last site folder of Debian's, the official images' and Alpine's Python", () => {
  for (
    const folder of [
      "/usr/lib/python3/dist-packages",
      "/usr/lib/python3.11/dist-packages", // Debian's python3: the last of its three
      "/usr/local/lib/python3.12/site-packages", // python:3.12 images: their only one
      "/usr/lib/python3.12/site-packages", // Alpine's and Fedora's last
    ]
  ) {
    assert.ok(PYTHON_SITE_FOLDERS.includes(folder), folder);
  }
  const files = pythonPathFiles("/workspace", { modules: { extra: "X = 1\n" } });
  const paths = files.map((file) => file.path);
  assert.ok(
    files.every((file) => file.type === "file"),
    "no folder entry: existing ones keep their mode",
  );
  assert.equal(
    paths.filter((path) => path.endsWith(`/${PTH_NAME}`)).length,
    PYTHON_SITE_FOLDERS.length,
  );
  assert.ok(paths.includes(`${GRADER_PYTHON_FOLDER.slice(1)}/verdict_grader_path.py`));
  assert.ok(paths.includes(`${GRADER_PYTHON_FOLDER.slice(1)}/extra.py`));
  assert.ok(paths.every((path) => !path.startsWith("/")), "relative to /, as a tar holds them");
});
