import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";

/**
 * Writes an operator upstream file (YAML) into a fresh temporary folder and
 * returns its path, for `PERSONA_UPSTREAMS_FILE`. The folder is removed by
 * the returned `remove`.
 */
export function writeUpstreamsFile(upstreams: Record<string, Record<string, unknown>>): {
  file: string;
  remove(): void;
} {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-upstreams-"));
  const file = path.join(directory, "upstreams.yaml");
  fs.writeFileSync(file, stringify({ upstreams }));
  return { file, remove: () => fs.rmSync(directory, { recursive: true, force: true }) };
}
