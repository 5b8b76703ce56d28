/**
 * `verdict clean`: remove what this state folder made on the engine and no longer needs, its
 * derived images, never another folder's.
 *
 * @module
 */
import { ExitCode } from "../../core/errors.ts";
import { removeDerivedImages } from "../../engine/remove_derived_images.ts";
import { OWNER_LABEL, stateOwner } from "../../eval/trial/run_owner.ts";
import { type Command, HOME_OPTION } from "../command.ts";
import { dockerFromEnv } from "../runtime.ts";
import { openExistingStore, resolveHome } from "../state.ts";

/** The `clean` command. */
export const cleanCommand: Command = {
  name: "clean",
  summary: "remove this state folder's derived images from the engine (never another folder's)",
  args: "",
  options: { ...HOME_OPTION },
  positionals: { min: 0, max: 0 },
  details:
    "Each trial's workspace is baked into a derived image (verdict-derived:…), labelled with the\n" +
    "state folder that made it. clean removes those of --home; an image a container still uses\n" +
    "is left and named, and the next eval that needs one builds it again. Images other state\n" +
    "folders made, and images Verdict did not derive, are never touched.",
  async run({ io, values }) {
    const home = resolveHome(values, io);
    openExistingStore(home).close();
    const label = `${OWNER_LABEL}=${stateOwner(home)}`;
    const { removed, inUse } = await removeDerivedImages(dockerFromEnv(io), label);
    io.out(
      `removed ${removed.length} derived image${removed.length === 1 ? "" : "s"} of ${home}\n`,
    );
    if (inUse.length > 0) {
      io.out(`left ${inUse.length} that a container still uses: ${inUse.join(", ")}\n`);
    }
    return ExitCode.yes;
  },
};
