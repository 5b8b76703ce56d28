/**
 * A later day, without touching the host's clock: a Docker sandbox whose agent containers have
 * the folders the engine made at their start dated `days` later, and a clock `days` ahead for
 * every process Verdict does not set one for (libfaketime, through the container's environment).
 *
 * @module
 */
import type { ContainerSpec, Sandbox, SandboxContainer } from "../../../src/engine/sandbox.ts";

const FAKETIME_LIBRARY = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

/** `inner`, its agent containers started as on a day `days` later. */
export function shiftedSandbox(inner: Sandbox, days: number): Sandbox {
  const start = async (spec: ContainerSpec, signal?: AbortSignal): Promise<SandboxContainer> => {
    if (spec.labels["verdict.role"] !== "agent") return await inner.start(spec, signal);
    const container = await inner.start({
      ...spec,
      env: {
        ...spec.env,
        LD_PRELOAD: FAKETIME_LIBRARY,
        FAKETIME: `+${days}d`,
      },
    }, signal);
    const later = Math.floor(Date.now() / 1000) + days * 86_400;
    const dated = await container.exec(
      `touch -c -d @${later} / /.dockerenv /etc /dev /tmp /verdict /verdict/home`,
      { user: "0:0", timeoutMs: 30_000, maxOutputBytes: 4096 },
    );
    if (dated.exitCode !== 0) throw new Error(`could not date the folders: ${dated.stderr}`);
    return container;
  };
  return new Proxy(inner, {
    get(target, key) {
      if (key === "start") return start;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
