// Loads a Chrome Trace Event JSON file into speedscope (the npm package's
// built app) in headless Chromium and checks what speedscope imported: the
// names of its profiles (one per pid/tid: "process (pid P), thread (tid T)")
// and the frame names of each profile, read from the sandwich view's table,
// which lists every frame of the profile shown (all profiles are visited).
// speedscope names a frame "<name> <args as JSON>" when the event has
// args; a frame matches an expected name when it is the name or starts
// with the name and a space.
//
//   node speedscope_check.js TRACE.json --frames Outer,Middle,Inner \
//       [--profiles main,conf_custom_track] [--chromium /usr/bin/chromium]
//
// Exit codes: 0 all found, 1 something missing or speedscope failed,
// 2 usage, 77 skipped (no Chromium or no node_modules: run `npm ci` here).
'use strict';

const fs = require('fs');
const http = require('http');
const path = require('path');

const SKIP = 77;

function usage(message) {
  console.error(`speedscope_check: ${message}`);
  console.error('usage: node speedscope_check.js TRACE.json --frames A,B [--profiles X,Y] ' +
                '[--chromium PATH]');
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { trace: null, frames: [], profiles: [], chromium: process.env.CHROMIUM || '' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : usage(`${arg} needs a value`));
    if (arg === '--frames') opts.frames = value().split(',').filter(Boolean);
    else if (arg === '--profiles') opts.profiles = value().split(',').filter(Boolean);
    else if (arg === '--chromium') opts.chromium = value();
    else if (arg.startsWith('--')) usage(`unknown option ${arg}`);
    else if (opts.trace === null) opts.trace = arg;
    else usage(`unexpected argument ${arg}`);
  }
  if (!opts.trace) usage('no trace file');
  if (opts.frames.length === 0) usage('no --frames');
  return opts;
}

function findChromium(explicit) {
  const candidates = explicit ? [explicit] : ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((p) => fs.existsSync(p)) || null;
}

// Serves speedscope's files and the trace (as /trace.json) on loopback.
function serve(appDir, tracePath) {
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(req.url.split(/[?#]/)[0]);
    const file = url === '/trace.json' ? tracePath
                                       : path.join(appDir, path.normalize(url).replace(/^(\.\.[/\\])+/, ''));
    fs.readFile(file, (err, data) => {
      if (err) {
        res.writeHead(404);
        res.end();
        return;
      }
      const type = file.endsWith('.html') ? 'text/html'
                 : file.endsWith('.js') ? 'text/javascript'
                 : file.endsWith('.css') ? 'text/css'
                 : file.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream';
      res.writeHead(200, { 'Content-Type': type });
      res.end(data);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// The frame names of the profile on screen: the sandwich table is
// virtualized, so its scroller is walked from top to bottom.
async function readSandwichFrames(page) {
  const names = new Set();
  for (let step = 0; step < 1000; step++) {
    const { rows, done } = await page.evaluate(() => {
      const visible = [...document.querySelectorAll('tbody tr, table > tr')]
        .filter((tr) => tr.offsetParent !== null && tr.cells.length >= 3);
      const rows = visible.map((tr) => tr.cells[tr.cells.length - 1].innerText.trim());
      const scroller = [...document.querySelectorAll('div')]
        .find((d) => d.scrollHeight > d.clientHeight + 1 && d.querySelector('table') &&
                     ['auto', 'scroll'].includes(getComputedStyle(d).overflowY));
      let done = true;
      if (scroller && scroller.scrollTop + scroller.clientHeight < scroller.scrollHeight - 1) {
        scroller.scrollTop += Math.max(1, scroller.clientHeight - 20);
        done = false;
      }
      return { rows, done };
    });
    rows.forEach((r) => names.add(r));
    if (done) break;
    await page.waitForTimeout(50);
  }
  return [...names];
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const here = __dirname;
  const appDir = path.join(here, 'node_modules', 'speedscope', 'dist', 'release');
  if (!fs.existsSync(path.join(here, 'node_modules', 'playwright-core')) ||
      !fs.existsSync(path.join(appDir, 'index.html'))) {
    console.log(`SKIP: ${here}/node_modules lacks speedscope or playwright-core ` +
                '(tools/install-deps runs `npm ci` there when node and npm exist)');
    process.exit(SKIP);
  }
  const chromium = findChromium(opts.chromium);
  if (!chromium) {
    console.log('SKIP: no Chromium (Debian package `chromium`; tools/install-deps installs it)');
    process.exit(SKIP);
  }
  if (!fs.existsSync(opts.trace)) usage(`no such file: ${opts.trace}`);

  const { chromium: launcher } = require('playwright-core');
  const server = await serve(appDir, path.resolve(opts.trace));
  const browser = await launcher.launch({
    executablePath: chromium,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  const errors = [];
  let failed = false;
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('dialog', (d) => {
      errors.push(`dialog: ${d.message()}`);
      d.dismiss();
    });
    const port = server.address().port;
    await page.goto(`http://127.0.0.1:${port}/index.html#profileURL=/trace.json&view=sandwich`);
    // Once a profile is loaded, the toolbar's middle shows "<profile name>"
    // and, with several profiles, " (i/N)"; the sandwich table is there.
    const readTitle = () => page.evaluate(() => {
      // The toolbar: [view tabs] [title] [buttons]; found from its tab.
      const tab = [...document.querySelectorAll('div')].find(
        (d) => /^\W*Sandwich$/u.test(d.innerText.trim()));
      const toolbar = tab && tab.parentElement && tab.parentElement.parentElement;
      if (!toolbar) return null;
      // Its lines: the tabs, the title, the buttons.
      const lines = toolbar.innerText.split('\n').map((l) => l.trim()).filter(Boolean);
      if (lines.length < 3) return null;
      const text = lines[1];
      const m = text.match(/^(.*?)\s*\((\d+)\/(\d+)\)$/);
      return m ? { name: m[1], index: Number(m[2]), count: Number(m[3]) }
               : { name: text, index: 1, count: 1 };
    });
    const visibleRows = () => page.evaluate(() => [...document.querySelectorAll('tbody tr, table > tr')]
      .filter((tr) => tr.offsetParent !== null && tr.cells.length >= 3).length);
    // Waits for profile `index` to be on screen with its table rendered. The
    // title changes a frame or more before the table's rows do (a CI run
    // read a profile's rows mid-switch and saw none), so rows are awaited
    // too; a profile that really has no frames is returned after the bound.
    const waitTitle = async (index) => {
      let shown = null;
      let triesShown = 0;
      for (let tries = 0; tries < 300; tries++) {
        const title = await readTitle();
        const table = await page.locator('th', { hasText: 'Symbol Name' }).count();
        if (title && title.name && title.index === index && table > 0) {
          if (await visibleRows() > 0) return title;
          shown = title;
          if (++triesShown >= 50) return shown;  // 5 s with no rows: an empty profile
        }
        // speedscope reports a file it cannot import in an alert.
        if (errors.some((e) => e.startsWith('dialog:'))) break;
        await page.waitForTimeout(100);
      }
      if (shown) return shown;
      throw new Error(`speedscope showed no profile ${index}: ${errors.join('; ') || 'timeout'}`);
    };
    const first = await waitTitle(1);
    const profiles = [];
    for (let i = 1; i <= first.count; i++) {
      const title = await waitTitle(i);
      const frames = await readSandwichFrames(page);
      profiles.push({ name: title.name, frames });
      if (i < first.count) await page.keyboard.press('n');
    }
    for (const p of profiles) {
      console.log(`profile "${p.name}": ${p.frames.length} frames: ${p.frames.slice(0, 12).join(' | ')}` +
                  (p.frames.length > 12 ? ' | ...' : ''));
    }
    const matches = (frame, name) => frame === name || frame.startsWith(`${name} `);
    for (const name of opts.frames) {
      const where = profiles.filter((p) => p.frames.some((f) => matches(f, name)));
      if (where.length === 0) {
        console.log(`FAIL: frame "${name}" is in no profile`);
        failed = true;
      } else {
        console.log(`ok: frame "${name}" in ${where.map((p) => `"${p.name}"`).join(', ')}`);
      }
    }
    for (const name of opts.profiles) {
      if (!profiles.some((p) => p.name.includes(name))) {
        console.log(`FAIL: no profile named like "${name}"`);
        failed = true;
      } else {
        console.log(`ok: profile named like "${name}"`);
      }
    }
    if (errors.length) console.log(`page errors: ${errors.join('; ')}`);
  } finally {
    await browser.close();
    server.close();
  }
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.log(`FAIL: ${e.stack || e}`);
  process.exit(1);
});
