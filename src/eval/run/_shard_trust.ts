/**
 * Whether a shard may be merged, by its signature: one changed after it was signed never; with
 * `--trust`, only one signed by a trusted key.
 *
 * @module
 */
import { keyFingerprint } from "../../core/ed25519.ts";
import { CorruptionError, ExitCode, VerdictError } from "../../core/errors.ts";
import type { RunRecord } from "../../store/run_table.ts";
import type { Store } from "../../store/store.ts";
import { checkRunSignature } from "./run_signature.ts";

// A shard changed after it was signed is refused always; with --trust, so is one not signed by a
// trusted key (exit 1 both: the answer to "may this shard be merged?" is no).
export async function requireTrusted(
  source: { argument: string; store: Store; run: RunRecord },
  trust: readonly string[] | undefined,
): Promise<void> {
  const check = await checkRunSignature(source.store, source.run);
  const name = `${source.argument} (run ${source.run.id})`;
  if (check.state === "forged") {
    throw new CorruptionError(
      `${name} does not match its signature by ${check.signer}: the shard was changed after it ` +
        `was signed; nothing was merged. Merge the shard as its signer made it`,
    );
  }
  if (trust === undefined) return;
  const trusted = trust.map(keyFingerprint).join(", ");
  if (check.state === "unsigned") {
    throw new VerdictError(
      `${name} is unsigned, and --trust takes only shards signed by ${trusted}; nothing was ` +
        `merged. Run the shard with its signing key (VERDICT_SIGNING_KEY), or leave out --trust`,
      ExitCode.no,
    );
  }
  if (!trust.includes(check.publicKey)) {
    throw new VerdictError(
      `${name} is signed by ${check.signer}, not by a trusted key (--trust ${trusted}); ` +
        `nothing was merged`,
      ExitCode.no,
    );
  }
}
