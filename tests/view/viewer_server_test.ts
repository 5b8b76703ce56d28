import assert from "node:assert/strict";
import { join } from "node:path";
import { openStore } from "../../src/store/store.ts";
import { startViewer, type Viewer } from "../../src/view/viewer_server.ts";
import { writeRun } from "../_synthetic_runs.ts";
import { scratchDir } from "../_verdict.ts";

const TOKEN = "the-printed-token";

async function withViewer(work: (viewer: Viewer, db: string) => Promise<void>): Promise<void> {
  await using dir = await scratchDir("view-server");
  const db = join(dir.path, "verdict.db");
  await writeRun(dir.path, "r1", [["t", 0, "fail"]]);
  const controller = new AbortController();
  const store = openStore(db, { readOnly: true });
  const viewer = startViewer({ store, token: TOKEN, signal: controller.signal });
  try {
    await work(viewer, db);
  } finally {
    controller.abort();
    await viewer.finished;
    store.close();
  }
}

/** A raw HTTP/1.1 GET to the viewer with exactly these headers (fetch would set Host itself). */
async function rawGet(origin: string, path: string, headers: Record<string, string>) {
  const port = Number(new URL(origin).port);
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  const lines = [`GET ${path} HTTP/1.1`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  await connection.write(
    new TextEncoder().encode(lines.join("\r\n") + "\r\nConnection: close\r\n\r\n"),
  );
  const response = new TextDecoder().decode(
    await new Response(connection.readable).arrayBuffer(),
  );
  return { status: Number(response.split(" ")[1]), text: response };
}

Deno.test("the viewer answers only as 127.0.0.1 with the token: a rebound Host, a missing or wrong token, and a write are refused", async () => {
  await withViewer(async (viewer) => {
    const host = new URL(viewer.origin).host;
    const port = new URL(viewer.origin).port;
    const cookie = `verdict_view_${port}=${TOKEN}`;
    // DNS rebinding: a page of evil.example whose name now points at 127.0.0.1.
    for (const rebound of [`evil.example:${port}`, "127.0.0.1", `127.0.0.1:${Number(port) + 1}`]) {
      const answer = await rawGet(viewer.origin, "/api/runs", { Host: rebound, Cookie: cookie });
      assert.equal(answer.status, 421, rebound);
      assert.doesNotMatch(answer.text, /"r1"/);
    }
    assert.equal(
      (await rawGet(viewer.origin, "/api/runs", { Host: host, Cookie: cookie })).status,
      200,
    );
    assert.equal(
      (await rawGet(viewer.origin, "/api/runs", { Host: `localhost:${port}`, Cookie: cookie }))
        .status,
      200,
    );

    const cookies: Record<string, string>[] = [
      {},
      { cookie: `verdict_view_${port}=guess` },
      { cookie: `verdict_view_1=${TOKEN}` },
    ];
    for (const headers of cookies) {
      const refused = await fetch(`${viewer.origin}/api/runs`, { headers });
      assert.equal(refused.status, 401);
      assert.match(await refused.text(), /open the address 'verdict view' printed/);
    }
    const wrong = await fetch(`${viewer.origin}/?token=guess`, { redirect: "manual" });
    assert.equal(wrong.status, 401);
    await wrong.body?.cancel();

    const traded = await fetch(viewer.url, { redirect: "manual" });
    assert.equal(traded.status, 303);
    assert.equal(traded.headers.get("location"), "/");
    assert.equal(traded.headers.get("set-cookie"), `${cookie}; HttpOnly; SameSite=Strict; Path=/`);
    await traded.body?.cancel();
    const page = await fetch(`${viewer.origin}/`, { headers: { cookie } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
    assert.match(await page.text(), /^<!doctype html>/);

    const posted = await fetch(`${viewer.origin}/api/runs`, {
      method: "POST",
      headers: { cookie },
    });
    assert.equal(posted.status, 405);
    await posted.body?.cancel();
    const missing = await fetch(`${viewer.origin}/api/runs/nope`, { headers: { cookie } });
    assert.deepEqual([missing.status, await missing.text()], [404, "no run 'nope'\n"]);
    const trial = await fetch(`${viewer.origin}/api/trials/r1-t-0`, { headers: { cookie } });
    assert.equal((await trial.json()).trajectory.task, "t");
  });
});

Deno.test("the viewer listens on 127.0.0.1 only, and its store refuses every write", async () => {
  await withViewer(async (viewer, db) => {
    assert.match(viewer.origin, /^http:\/\/127\.0\.0\.1:\d+$/);
    const port = Number(new URL(viewer.origin).port);
    await assert.rejects(Deno.connect({ hostname: "::1", port }));
    const store = openStore(db, { readOnly: true });
    try {
      assert.throws(() => store.runs.setStatus("r1", "running"), /readonly/);
    } finally {
      store.close();
    }
  });
});
