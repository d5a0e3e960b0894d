// Shared by every package's benchmark (npm run bench): the machine line and the
// section writer of docs/BENCHMARKS.md.
import fs from "node:fs";
import os from "node:os";

/** The machine line every benchmark section starts with. */
export function machineLine() {
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  return `${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

/**
 * Replaces the section between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`
 * in docs/BENCHMARKS.md (appending it when missing), so each benchmark owns
 * its section and re-runs overwrite only their own figures.
 */
export function writeSection(file, name, markdown) {
  const open = `<!-- bench:${name} -->`;
  const close = `<!-- /bench:${name} -->`;
  const header =
    "# Benchmarks\n\nWritten by `npm run bench`; each section names its machine and command.\n";
  const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : header;
  const block = `${open}\n${markdown.trim()}\n${close}`;
  const start = current.indexOf(open);
  const end = current.indexOf(close);
  const next =
    start !== -1 && end !== -1
      ? current.slice(0, start) + block + current.slice(end + close.length)
      : `${current.trimEnd()}\n\n${block}\n`;
  fs.writeFileSync(file, next);
}
