// The built site's Python under Pyodide, loaded from the built folder as worker.js loads it, gives exactly the
// CLI's output. Run by tests/web/test_site.py: TFENV_SITE is the built site, TFENV_EXPECTED the JSON {langs, cases}:
// each case {name, file (base64 bytes), platform, tf, cuda, lang, status, text} as `tfenv explain` answered it.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { before, test } from "node:test";
import { pathToFileURL } from "node:url";

const site = resolve(process.env.TFENV_SITE);
const { langs, cases } = JSON.parse(readFileSync(process.env.TFENV_EXPECTED, "utf8"));
let explain;

before(async () => {
  const index = join(site, "pyodide") + "/";
  const { loadPyodide } = await import(pathToFileURL(join(index, "pyodide.mjs")).href);
  const py = await loadPyodide({ indexURL: index, packageBaseUrl: index });
  py.FS.writeFile("/home/pyodide/tfenv.zip", readFileSync(join(site, "tfenv.zip")));
  py.runPython(readFileSync(join(site, "entry.py"), "utf8"));
  explain = py.globals.get("explain");
});

test("the cases cover the corpus in every language tfenv explain offers", () => {
  const names = (lang) => cases.filter((c) => c.lang === lang).map((c) => c.name).sort();
  assert.ok(names("en").length >= 40, `${names("en").length} English cases`);
  for (const lang of langs) assert.deepEqual(names(lang).filter((n) => !n.startsWith("/")), names("en").filter((n) => !n.startsWith("/")));
});

for (const c of cases) {
  test(`${c.lang} ${c.name}`, () => {
    const data = new Uint8Array(Buffer.from(c.file, "base64"));
    const answer = JSON.parse(explain(data, c.name, c.platform, c.tf, c.cuda, c.lang));
    assert.equal(answer.status, c.status);
    assert.equal(answer.text, c.text);
  });
}
