// The built page in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core), served on
// 127.0.0.1 by serve.py: paste and explain, open a UTF-16 file, switch language, copy; any request that
// leaves 127.0.0.1 fails the test. Run by tests/web/test_site.py with TFENV_SITE, TFENV_EXPECTED,
// TFENV_SCREENSHOT and PYTHON; its figures go to TFENV_TIMINGS when set (benchmarks/bench_web.py).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const { langs, cases } = JSON.parse(readFileSync(process.env.TFENV_EXPECTED, "utf8"));
const find = (name, lang = "en") => cases.find((c) => c.name === name && c.lang === lang);
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

let server, base, profile, context, page;
const outside = []; // every request that was not for 127.0.0.1
const timings = {};

function serve(folder) {
  return new Promise((resolvePort, reject) => {
    const child = spawn(process.env.PYTHON || "python3", [join(here, "serve.py"), folder],
                        { stdio: ["ignore", "pipe", "inherit"] });
    child.on("error", reject);
    child.stdout.once("data", (chunk) => resolvePort([child, Number(String(chunk).trim())]));
  });
}

before(async () => {
  let port;
  [server, port] = await serve(process.env.TFENV_SITE);
  base = `http://127.0.0.1:${port}/`;
  profile = mkdtempSync(join(tmpdir(), "tfenv-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.TFENV_CHROMIUM || "/usr/bin/chromium", headless: true, args: FLAGS,
    ignoreDefaultArgs: ["--enable-automation"],
  });
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === "127.0.0.1") return route.continue();
    outside.push(url.href);
    return route.abort();
  });
  context.on("request", (request) => {
    const url = new URL(request.url());
    if (!["127.0.0.1"].includes(url.hostname) && !["data:", "blob:"].includes(url.protocol)) outside.push(url.href);
  });
  page = context.pages()[0] || (await context.newPage());
});

after(async () => {
  await context?.close();
  server?.kill();
  if (profile) rmSync(profile, { recursive: true, force: true });
  if (process.env.TFENV_TIMINGS) writeFileSync(process.env.TFENV_TIMINGS, JSON.stringify(timings));
});

const answers = () => page.evaluate(() => Number(document.getElementById("answer").dataset.answers || 0));

async function answer(previous) {
  await page.waitForFunction((old) => Number(document.getElementById("answer").dataset.answers || 0) > old,
                             previous, { timeout: 30000 });
  const got = await page.evaluate(() => {
    const pre = document.getElementById("answer");
    return { text: pre.textContent, status: Number(pre.dataset.status), ms: Number(pre.dataset.ms) };
  });
  (timings.explain_ms ??= []).push(got.ms); // time in the worker, per answer
  return got;
}

test("the page loads Python, shows its loading state, and answers a pasted log as the CLI does", async () => {
  const started = Date.now();
  await page.goto(`${base}index.html?lang=en`);
  const first = await page.locator("#status").getAttribute("data-state");
  assert.equal(first, "loading");
  await page.locator("#status[data-state=ready]").waitFor({ timeout: 60000 });
  timings.ready_ms = Date.now() - started;
  const status = await page.locator("#status").evaluate((node) => ({ ...node.dataset }));
  timings.worker_boot_ms = Number(status.bootMs); // in the worker: Pyodide started, then tfenv's package loaded
  timings.worker_runtime_ms = Number(status.runtimeMs);
  const log = Buffer.from(find("001-win-tf22-cudart64-101-path").file, "base64").toString("utf8");
  await page.fill("#log", log);
  await page.click("#explain");
  const got = await answer(0);
  timings.first_answer_ms = Date.now() - started;
  assert.equal(got.text, find("001-win-tf22-cudart64-101-path").text);
  assert.equal(got.status, 0);
  const setup = await page.locator("#setup-list").textContent();
  assert.match(setup, /windows\/tf[\w-]+\/setup\.ps1/); // a Windows log: the native Windows script
  await page.click("#copy");
  await page.locator("#copied").waitFor({ state: "visible" });
});

test("an opened UTF-16 file is decoded as the CLI decodes it", async () => {
  const before = await answers();
  const utf16 = find("utf16-bom");
  await page.setInputFiles("#file", { name: "log-utf16.txt", mimeType: "text/plain",
                                      buffer: Buffer.from(utf16.file, "base64") });
  const got = await answer(before);
  assert.equal(got.text, utf16.text);
});

test("the options are the CLI's --platform --tf --cuda", async () => {
  const before = await answers();
  const options = find("options");
  await page.fill("#log", Buffer.from(options.file, "base64").toString("utf8"));
  await page.selectOption("#platform", options.platform);
  await page.fill("#tf", options.tf);
  await page.fill("#cuda", options.cuda);
  await page.click("#explain");
  assert.equal((await answer(before)).text, options.text);
});

test("the language switch relabels the page and answers in that language", async () => {
  for (const lang of langs.filter((l) => l !== "en")) {
    const before = await answers();
    await page.click(`button.lang[data-lang="${lang}"]`);
    assert.equal(await page.getAttribute("html", "lang"), lang);
    assert.notEqual(await page.locator("#explain").textContent(), "Explain");
    assert.equal((await answer(before)).text, find("options", lang).text);
  }
  await page.screenshot({ path: process.env.TFENV_SCREENSHOT || join(tmpdir(), "tfenv-page.png"), fullPage: true });
});

test("nothing was requested from anywhere but 127.0.0.1", () => {
  assert.deepEqual(outside, []);
});
