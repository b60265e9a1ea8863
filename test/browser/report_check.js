// Opens a `ztrace report` HTML file (from file://, as a user would) in
// headless Chromium and checks what the page shows: no console error, the
// data decoded (slices, tracks, flows and loss marks as expected), the
// timeline drawn (slices as rectangles or pixel columns), the flame graph,
// the top slices and the stats tables; a screenshot of each tab is kept.
//
//   node report_check.js REPORT.html --slices N [--tracks N] [--flows N]
//       [--marks N] [--screenshots DIR] [--chromium PATH]
//
// Exit codes: 0 as expected, 1 not, 2 usage, 77 skipped (no Chromium or no
// node_modules: run `npm ci` here).
'use strict';

const fs = require('fs');
const path = require('path');

const SKIP = 77;

function usage(message) {
  console.error(`report_check: ${message}`);
  console.error('usage: node report_check.js REPORT.html --slices N [--tracks N] [--flows N] ' +
                '[--marks N] [--screenshots DIR] [--chromium PATH]');
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { report: null, expect: {}, screenshots: null, chromium: process.env.CHROMIUM || '' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : usage(`${arg} needs a value`));
    const number = () => { const v = Number(value()); if (!Number.isInteger(v)) usage(`${arg} needs a number`); return v; };
    if (arg === '--slices') opts.expect.sliceCount = number();
    else if (arg === '--tracks') opts.expect.trackCount = number();
    else if (arg === '--flows') opts.expect.flowCount = number();
    else if (arg === '--marks') opts.expect.markCount = number();
    else if (arg === '--screenshots') opts.screenshots = value();
    else if (arg === '--chromium') opts.chromium = value();
    else if (arg.startsWith('--')) usage(`unknown option ${arg}`);
    else if (opts.report === null) opts.report = arg;
    else usage(`unexpected argument ${arg}`);
  }
  if (!opts.report) usage('no report file');
  if (opts.expect.sliceCount === undefined) usage('no --slices');
  return opts;
}

function findChromium(explicit) {
  const candidates = explicit ? [explicit] : ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((p) => fs.existsSync(p)) || null;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(path.join(__dirname, 'node_modules', 'playwright-core'))) {
    console.log(`SKIP: ${__dirname}/node_modules lacks playwright-core (tools/install-deps runs npm ci)`);
    process.exit(SKIP);
  }
  const chromium = findChromium(opts.chromium);
  if (!chromium) {
    console.log('SKIP: no Chromium (Debian package `chromium`; tools/install-deps installs it)');
    process.exit(SKIP);
  }
  if (!fs.existsSync(opts.report)) usage(`no such file: ${opts.report}`);
  const { chromium: launcher } = require('playwright-core');
  const browser = await launcher.launch({
    executablePath: chromium,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  const problems = [];
  const errors = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(String(e)));
    // No network: every request other than the file itself fails the check.
    page.on('request', (r) => { if (!r.url().startsWith('file:')) problems.push(`network request: ${r.url()}`); });
    await page.goto('file://' + path.resolve(opts.report));
    await page.waitForFunction(() => window.ztReport && (window.ztReport.ready || window.ztReport.errors.length),
                               null, { timeout: 60000 });
    const state = await page.evaluate(() => ({
      ready: window.ztReport.ready, errors: window.ztReport.errors,
      sliceCount: window.ztReport.sliceCount, trackCount: window.ztReport.trackCount,
      flowCount: window.ztReport.flowCount, markCount: window.ztReport.markCount,
      frame: window.ztReport.lastFrame,
    }));
    console.log(`report: ${JSON.stringify(state)}`);
    if (!state.ready) problems.push(`the report did not start: ${state.errors.join('; ')}`);
    for (const [key, want] of Object.entries(opts.expect)) {
      if (state[key] !== want) problems.push(`${key}: ${state[key]}, expected ${want}`);
      else console.log(`ok: ${key} ${want}`);
    }
    const drawn = state.frame ? state.frame.rects + state.frame.columns : 0;
    if (opts.expect.sliceCount > 0 && drawn === 0) problems.push('the timeline drew no slice');
    else console.log(`ok: the timeline drew ${state.frame.rects} slices and ${state.frame.columns} pixel columns`);
    const shoot = async (name) => {
      if (!opts.screenshots) return;
      fs.mkdirSync(opts.screenshots, { recursive: true });
      const file = path.join(opts.screenshots, `${path.basename(opts.report, '.html')}_${name}.png`);
      await page.screenshot({ path: file, fullPage: false });
      console.log(`screenshot: ${file}`);
    };
    await shoot('timeline');
    // Zoomed into the middle tenth: still drawn.
    // Zoomed in twice (to a quarter): drawn again, bounded wait.
    const before = await page.evaluate(() => window.ztReport.frames);
    await page.click('#zoom-in');
    await page.click('#zoom-in');
    await page.waitForFunction((n) => window.ztReport.frames > n, before, { timeout: 10000 });
    const zoomed = await page.evaluate(() => window.ztReport.lastFrame);
    console.log(`zoomed: ${JSON.stringify(zoomed)}`);
    if (opts.expect.sliceCount > 0 && zoomed.rects + zoomed.columns === 0) problems.push('zoomed in, nothing drawn');
    await shoot('zoomed');
    await page.evaluate(() => window.ztReport.showTab('flame'));
    const flame = await page.evaluate(() => ({ nodes: window.ztReport.flameNodes, drawn: window.ztReport.flameDrawn }));
    if (opts.expect.sliceCount > 0 && !(flame.drawn > 1)) problems.push(`flame graph: ${JSON.stringify(flame)}`);
    else console.log(`ok: flame graph of ${flame.nodes} stacks, ${flame.drawn} drawn`);
    await shoot('flame');
    await page.evaluate(() => window.ztReport.showTab('top'));
    const topRows = await page.evaluate(() => document.querySelectorAll('#top tr').length);
    if (opts.expect.sliceCount > 0 && topRows < 3) problems.push(`top slices: ${topRows} rows`);
    else console.log(`ok: top slices, ${topRows} rows`);
    await shoot('top');
    await page.evaluate(() => window.ztReport.showTab('stats'));
    const statsText = await page.evaluate(() => document.getElementById('stats').innerText);
    if (!/data loss|Data was lost/i.test(statsText)) problems.push('stats tab says nothing of data loss');
    else console.log('ok: stats tab');
    await shoot('stats');
  } finally {
    await browser.close();
  }
  for (const e of errors) problems.push(`console: ${e}`);
  if (problems.length) {
    for (const p of problems) console.error(`FAIL: ${p}`);
    process.exit(1);
  }
  console.log('ok: report checked');
}

main().catch((e) => { console.error(`report_check: ${e && e.stack || e}`); process.exit(1); });
