// The page: collects the log (pasted text as UTF-8 bytes, or a file's bytes as they are; the worker decodes both
// as `tfenv explain` does), sends it to worker.js with the CLI's --platform/--tf/--cuda and the language, and
// shows the answer exactly as the CLI prints it, with the setup that fits.
const $ = (id) => document.getElementById(id);
const UI = JSON.parse($("ui-text").textContent);
const SITE = JSON.parse($("site").textContent);
const LANGS = Object.keys(UI);

let lang = pickLanguage();
let opened = null; // {name, bytes} of the file opened last, until the text area is edited
let last = null; // the last request, sent again when the language changes
let sequence = 0;

function pickLanguage() {
  const asked = new URLSearchParams(location.search).get("lang");
  if (LANGS.includes(asked)) return asked;
  const browser = (navigator.languages || [navigator.language || ""]).join(",").toLowerCase();
  return browser.startsWith("zh") ? "zh-CN" : "en";
}

function t(key, values = {}) {
  const text = UI[lang][key] ?? UI.en[key];
  return text.replace(/\{(\w+)\}/g, (_, name) => values[name] ?? "");
}

function relabel() {
  document.documentElement.lang = lang;
  document.title = t("title");
  for (const node of document.querySelectorAll("[data-text]")) node.textContent = t(node.dataset.text);
  for (const button of document.querySelectorAll("button.lang")) {
    button.setAttribute("aria-pressed", String(button.dataset.lang === lang));
  }
  const rules = lang !== "en" && SITE.rule_languages.includes(lang) ? `${lang}/rules/` : "rules/";
  $("rules-link").href = `${rules}index.html`;
  showStatus(state.name, state.values);
}

const state = { name: "loading-runtime", values: {} };
function showStatus(name, values = {}) {
  Object.assign(state, { name, values });
  const node = $("status");
  const kind = name.startsWith("loading") ? "loading" : name === "failed" ? "failed" : "ready";
  node.className = `status ${kind}`;
  node.dataset.state = kind;
  node.textContent = t(name, values);
}

const worker = new Worker(new URL("worker.js", import.meta.url), { type: "module" });
worker.onmessage = ({ data }) => {
  if (data.type === "stage") showStatus(`loading-${data.stage}`);
  else if (data.type === "ready") {
    showStatus("ready", { seconds: (data.ms / 1000).toFixed(1) });
    Object.assign($("status").dataset, { bootMs: data.ms.toFixed(0), runtimeMs: data.runtimeMs.toFixed(0) });
  }
  else if (data.type === "failed") showStatus("failed", { message: data.message });
  else if (data.type === "answer" && data.id === sequence) showAnswer(data);
};
worker.onerror = (event) => showStatus("failed", { message: event.message || "worker error" });

function send(request) {
  last = request;
  sequence += 1;
  $("explain").disabled = true;
  worker.postMessage({ ...request, id: sequence, lang, data: request.data.slice() });
}

function showAnswer(answer) {
  $("explain").disabled = false;
  $("result").hidden = false;
  const pre = $("answer");
  pre.textContent = answer.text;
  pre.dataset.status = String(answer.status);
  pre.dataset.ms = answer.ms.toFixed(1);
  pre.dataset.answers = String(Number(pre.dataset.answers || 0) + 1); // tells a reader a new answer came
  showSetup(answer);
}

function showSetup(answer) {
  const list = $("setup-list");
  list.replaceChildren();
  const env = (answer.envs || [])[0];
  const setup = env && SITE.envs[env];
  $("setup").hidden = !setup;
  if (!setup) return;
  const platform = answer.platform;
  const items = [];
  if (setup.windows && (!platform || platform === "windows")) items.push(["setup-windows", setup.windows]);
  if (setup.wsl && (!platform || platform.startsWith("wsl") || platform === "windows")) items.push(["setup-wsl", setup.wsl]);
  if (platform !== "windows") items.push(["setup-docker", null]);
  for (const [key, path] of items) {
    const item = document.createElement("li");
    item.append(`${t(key, { env })} `);
    if (path) item.append(fileLink(path), " · ");
    const code = document.createElement("code");
    code.textContent = key === "setup-docker" ? `tfenv run ${env} -- python train.py`
      : key === "setup-windows" ? `tfenv windows ${env} -o setup.ps1` : `tfenv wsl ${env} --windows`;
    item.append(code);
    list.append(item);
  }
}

function fileLink(path) {
  if (!SITE.source) {
    const code = document.createElement("code");
    code.textContent = path;
    return code;
  }
  const link = document.createElement("a");
  link.href = `${SITE.source}/blob/main/${path}`;
  link.textContent = path;
  link.rel = "noreferrer";
  return link;
}

function options() {
  return { platform: $("platform").value, tf: $("tf").value.trim(), cuda: $("cuda").value.trim() };
}

$("form").addEventListener("submit", (event) => {
  event.preventDefault();
  if (opened) send({ ...options(), name: opened.name, data: opened.bytes });
  else send({ ...options(), name: "the pasted log", data: new TextEncoder().encode($("log").value) });
});
$("log").addEventListener("input", () => { opened = null; });
$("file").addEventListener("change", async () => {
  const file = $("file").files[0];
  if (!file) return;
  opened = { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) };
  $("log").value = "";
  $("log").placeholder = t("opened", { name: file.name });
  send({ ...options(), name: opened.name, data: opened.bytes });
});
$("copy").addEventListener("click", async () => {
  const text = $("answer").textContent;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const range = document.createRange();
    range.selectNodeContents($("answer"));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    document.execCommand("copy");
  }
  $("copied").hidden = false;
  setTimeout(() => { $("copied").hidden = true; }, 1500);
});
for (const button of document.querySelectorAll("button.lang")) {
  button.addEventListener("click", () => {
    lang = button.dataset.lang;
    const url = new URL(location.href);
    url.searchParams.set("lang", lang);
    history.replaceState(null, "", url);
    relabel();
    if (last) send(last);
  });
}
relabel();
