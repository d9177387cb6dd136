// node precompile.mjs PYODIDE_DIR IN.zip OUT.zip SHOWN_AS: precompile.py run by the pinned Pyodide itself.
// Run by builder/web/runtime.py at `tfenv web` time; nothing is fetched (indexURL is the local folder).
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [pyodideDir, input, output, shownAs] = process.argv.slice(2);
const index = resolve(pyodideDir) + "/";
const { loadPyodide } = await import(pathToFileURL(join(index, "pyodide.mjs")).href);
const py = await loadPyodide({ indexURL: index, packageBaseUrl: index });
py.FS.writeFile("/tmp/in.zip", readFileSync(input));
py.runPython(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "precompile.py"), "utf8"));
py.globals.get("precompile")("/tmp/in.zip", "/tmp/out.zip", shownAs);
writeFileSync(output, py.FS.readFile("/tmp/out.zip"));
