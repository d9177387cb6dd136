// The page's Python: boots Pyodide off the main thread (the page stays responsive and shows each stage),
// puts tfenv's diagnose package on sys.path and answers explain requests with entry.py's explain().
// Every file comes from this site's own folder; nothing else is fetched.
import { loadPyodide } from "./pyodide/pyodide.mjs";

const base = new URL("./", import.meta.url).href;
const say = (message) => self.postMessage(message);

async function fetchBytes(name) {
  const response = await fetch(new URL(name, base));
  if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

async function boot() {
  const started = performance.now();
  say({ type: "stage", stage: "runtime" });
  const index = new URL("pyodide/", base).href;
  const app = fetchBytes("tfenv.zip");
  const entry = fetch(new URL("entry.py", base)).then((r) => r.text());
  const py = await loadPyodide({ indexURL: index, packageBaseUrl: index });
  const runtimeMs = performance.now() - started;
  say({ type: "stage", stage: "diagnose" });
  py.FS.writeFile("/home/pyodide/tfenv.zip", await app);
  py.runPython(await entry);
  const explain = py.globals.get("explain");
  say({ type: "ready", ms: performance.now() - started, runtimeMs });
  return explain;
}

const ready = boot();
ready.catch((error) => say({ type: "failed", message: String(error && error.message ? error.message : error) }));

self.onmessage = async (event) => {
  const request = event.data;
  let explain;
  try {
    explain = await ready;
  } catch {
    return; // "failed" was said once already
  }
  const started = performance.now();
  const answer = explain(request.data, request.name || "the log", request.platform || "", request.tf || "", request.cuda || "",
                         request.lang || "en");
  const result = JSON.parse(answer);
  say({ type: "answer", id: request.id, ms: performance.now() - started, ...result });
};
