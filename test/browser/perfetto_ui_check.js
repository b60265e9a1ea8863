// Drives a real Perfetto UI (served at UI_URL, built by tools/perfetto-ui
// outside the repository) against a running `ztrace serve` (port 9001):
// the UI's own "use the loaded trace", the timeline, a click on a slice
// and its histogram, an area selection and its tabs (aggregation,
// flamegraph), the query page, the overview page. Any page error or
// error dialog fails the check; screenshots and page texts go to OUT.
//
//   node perfetto_ui_check.js http://127.0.0.1:10000/ OUT [--open FILE]
//
// --open FILE: the server has no trace; the UI opens FILE and sends it over
// the websocket (the check then times the upload and the load).
// Exit status: 0 if every step ran without an error, 1 otherwise.

'use strict';
const fs = require('fs');
const path = require('path');
const {chromium} = require('playwright-core');

const [uiUrl, out] = process.argv.slice(2, 4);
const openIndex = process.argv.indexOf('--open');
const openFile = openIndex > 0 ? process.argv[openIndex + 1] : null;
if (!uiUrl || !out) {
  console.error('usage: node perfetto_ui_check.js UI_URL OUT [--open FILE]');
  process.exit(2);
}
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

(async () => {
  fs.mkdirSync(out, {recursive: true});
  const browser = await chromium.launch({executablePath: chromiumPath, args: ['--no-sandbox']});
  const page = await browser.newPage({viewport: {width: 1600, height: 1000}});
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message.slice(0, 500)}`));

  // Each step ends with a screenshot, the page's text, and a look for the
  // UI's error dialog ("Oops, something went wrong").
  async function step(name) {
    const text = await page.evaluate(() => document.body.innerText);
    fs.writeFileSync(path.join(out, `${name}.txt`), text);
    await page.screenshot({path: path.join(out, `${name}.png`)});
    const oops = text.indexOf('Oops');
    if (oops >= 0) {
      problems.push(`${name}: ${text.slice(oops, oops + 800).replace(/\n+/g, ' | ')}`);
      await page.keyboard.press('Escape');
    }
    console.log(`${name}: ${oops >= 0 ? 'ERROR DIALOG' : 'ok'}`);
  }

  // Waits (at most `seconds`) until the flamegraph is drawn.
  async function waitForFlamegraph(name, seconds) {
    for (let i = 0; i < seconds * 2; i++) {
      const text = await page.evaluate(() => document.body.innerText);
      if (!text.includes('Computing graph')) return;
      await page.waitForTimeout(500);
    }
    problems.push(`${name}: the flamegraph was still computing after ${seconds} s`);
  }

  // Waits (at most `seconds`) until the timeline shows a track.
  async function waitForTimeline(seconds) {
    for (let i = 0; i < seconds * 2; i++) {
      const text = await page.evaluate(() => document.body.innerText);
      if (text.includes('Oops') || text.includes('Default Workspace')) return;
      await page.waitForTimeout(500);
    }
    problems.push(`the timeline did not appear within ${seconds} s`);
  }

  await page.goto(uiUrl, {waitUntil: 'load'});
  const start = Date.now();
  if (openFile) {
    await page.waitForTimeout(3000);  // The UI finds the server first.
    await page.locator('input[type=file]').first().setInputFiles(openFile);
    await waitForTimeline(600);
    console.log(`opened ${openFile} in ${((Date.now() - start) / 1000).toFixed(1)} s`);
  } else {
    await page.getByText('YES, use loaded trace', {exact: true}).click({timeout: 20000});
    await waitForTimeline(300);
  }
  await page.waitForTimeout(5000);  // The plugins' queries after the first tracks.
  await step('1_timeline');

  // Every track group expanded (the toolbar's "expand all"); a click on
  // the first thread track's slices (its title: a name and a thread id);
  // the histogram of the slice's name.
  const expandAll = page.getByText('unfold_more', {exact: true});
  if (await expandAll.count()) await expandAll.first().click().catch(() => {});
  await page.waitForTimeout(3000);
  const titles = page.getByText(/^\S.* \d+$/);
  const thread = (await titles.count()) > 1 ? await titles.nth(1).boundingBox() : null;
  if (thread) await page.mouse.click(1240, thread.y + 12);
  await page.waitForTimeout(4000);
  const selected = await page.evaluate(() => document.body.innerText.includes('SQL ID'));
  console.log(selected ? 'a slice is selected' : 'note: the click selected no slice');
  await step('2_slice');
  const histogram = page.getByText('Load distribution', {exact: true});
  if (await histogram.count()) {
    await histogram.first().click();
    await page.waitForTimeout(4000);
  }
  await step('3_histogram');

  // An area over the same thread's track (a drag across the timeline):
  // the UI aggregates what it holds (the "Slices" tab) and offers a
  // flamegraph of the slices; each tab of the panel is opened in turn.
  if (thread) {
    await page.keyboard.press('Escape');
    await page.mouse.move(900, thread.y + 12);
    await page.mouse.down();
    await page.mouse.move(1400, thread.y + 30, {steps: 10});
    await page.mouse.up();
    await page.waitForTimeout(5000);
    await step('6_area');
    for (const tab of ['Slices', 'Flamegraph', 'Slice Flamegraph', 'Pivot Table']) {
      const t = page.getByText(tab, {exact: true});
      if (!(await t.count())) continue;
      await t.first().click().catch(() => {});
      await page.waitForTimeout(4000);
      await waitForFlamegraph(tab, 60);
      await step(`6_area_${tab.replace(/ /g, '_').toLowerCase()}`);
      if (tab !== 'Slice Flamegraph') continue;
      // The flamegraph's other views: bottom-up, and a frame filter typed
      // as a user would ("Work": a show-stack filter).
      const bottomUp = page.getByText('Bottom Up', {exact: true});
      if (await bottomUp.count()) {
        await bottomUp.first().click().catch(() => {});
        await page.waitForTimeout(3000);
        await waitForFlamegraph('bottom-up', 60);
        await step('6_area_flamegraph_bottom_up');
      }
      const filter = page.locator('input[placeholder*="malloc"]');
      if (await filter.count()) {
        await filter.first().fill('Work');
        await filter.first().press('Enter');
        await page.waitForTimeout(3000);
        await waitForFlamegraph('filtered', 60);
        await step('6_area_flamegraph_filtered');
      }
    }
  }

  await page.goto(uiUrl + '#!/query', {waitUntil: 'load'});
  await page.waitForTimeout(3000);
  const editor = page.locator('.cm-content').first();
  if (await editor.count()) {
    await editor.click();
    await page.keyboard.type('select name, count(*) as n from slice group by name order by n desc limit 5');
    await page.keyboard.press('Control+Enter');
    await page.waitForTimeout(5000);
    const text = await page.evaluate(() => document.body.innerText);
    if (!/Returned \d+ rows?/.test(text)) problems.push('the query page showed no rows');
  } else {
    problems.push('the query page has no editor');
  }
  await step('4_query');

  await page.goto(uiUrl + '#!/info', {waitUntil: 'load'});
  await page.waitForTimeout(5000);
  await step('5_overview');

  await browser.close();
  for (const p of problems) console.log(`PROBLEM ${p}`);
  console.log(problems.length ? `${problems.length} problem(s); screenshots in ${out}`
                              : `no problems; screenshots in ${out}`);
  process.exit(problems.length ? 1 : 0);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
