// End-to-end test of the built page (playground/dist) in headless Chromium: the bundled
// example's decisions and costs are the command line's, edits change them, the lint findings
// are `matchcond lint`'s and are marked in the editor, the expression box evaluates, and the
// link reproduces the state.
//
// Needs: `./build.sh` run first, Debian's chromium (/usr/bin/chromium, or $CHROMIUM), and
// cargo (the expected values come from `matchcond` itself; $MATCHCOND_BIN names a built
// binary instead).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFile, mkdir, mkdtemp, rm, writeFile, stat } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const repo = path.resolve(root, '..');
const dist = path.join(root, 'dist');
const results = path.join(root, 'test-results');
// The Kubernetes version the page starts with (the newest), read from the page.
let VERSION = null;
const CONFIG = path.join(repo, 'examples', 'webhooks.yaml');
const REVIEW = path.join(repo, 'examples', 'reviews', 'pod-create.json');

// The nesting forms of tests/stack_safety.rs: (open, close, innermost).
const NESTING_FORMS = [
  ['(', ')', '1'], ['[', ']', '1'], ['{1: ', '}', '1'], ['string(', ')', '1'], ['size([', '])', '1'],
  ['-(', ')', '1'], ['!(', ')', 'true'], ['1 + (', ')', '1'], ['true ? (', ') : 2', '1'],
  ['(true ? 1 : ', ')', '1'], ['[1].all(x, ', ')', 'true'], ['[1].map(x, ', ')', '1'],
  ['[1].exists_one(x, ', ')', 'true'], ['{1: 2}.transformMap(k, v, ', ')', '1'], ['optional.of(', ')', '1'],
  ['[', '][0]', '1'], ["{'a': ", '}.a', '1'], ["{'a': ", '}.?a.orValue(1)', '1'], ['(', ' + 1)', '1'],
  ['(', ').lowerAscii()', "'a'"], ['[1].all(x, [x].all(y, ', '))', 'true'], ['[[1]].map(x, x.map(y, ', '))', '1'],
];

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
};

/** A static file server for dist/ on loopback (an ephemeral port). */
function serve(dir) {
  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://localhost');
      if (url.pathname === '/__warmup') {
        // A page of the test's own, to start the browser's renderer before measuring.
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        res.end('<!doctype html><title>warm-up</title><script>document.title = String([1, 2, 3].map((x) => x * 2));</script>');
        return;
      }
      const name = url.pathname === '/' ? 'index.html' : decodeURIComponent(url.pathname.slice(1));
      const file = path.resolve(dir, name);
      if (!file.startsWith(dir + path.sep)) throw new Error('outside');
      const body = await readFile(file);
      // Nothing cached: every load downloads and compiles the module again.
      res.writeHead(200, {
        'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
        'cache-control': 'no-store',
      });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end('not found');
    }
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

/**
 * Runs the `matchcond` command line and returns its JSON output (for the page's version,
 * or the command line's default when `version` is null).
 */
function matchcond(args, version = VERSION) {
  const [cmd, pre] = process.env.MATCHCOND_BIN
    ? [process.env.MATCHCOND_BIN, []]
    : ['cargo', ['run', '-q', '-p', 'matchcond-cli', '--']];
  const versionArgs = version ? ['--k8s-version', version] : [];
  let out;
  try {
    out = execFileSync(cmd, [...pre, ...args, '--output', 'json', ...versionArgs], {
      cwd: repo,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
  } catch (e) {
    // Exit code 1 is a decision (rejected, lint errors, evaluation error), not a failure;
    // 2 is `matchcond lint` on a file it cannot use (its findings are still printed).
    if (e.status !== 1 && !(e.status === 2 && args[0] === 'lint')) throw e;
    out = e.stdout;
  }
  return JSON.parse(out);
}

/** Headless Chromium with a fresh profile of its own. */
async function launch() {
  const profile = await mkdtemp(path.join(tmpdir(), 'matchcond-playground-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1440, height: 1100 },
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  return { context, profile };
}

let server;
let base;
let context;
let page;
let profile;
const timings = {};

before(async () => {
  await stat(path.join(dist, 'index.html')).catch(() => {
    throw new Error('playground/dist is missing: run playground/build.sh first');
  });
  server = await serve(dist);
  base = `http://127.0.0.1:${server.address().port}/`;
  ({ context, profile } = await launch());
  page = context.pages()[0] || (await context.newPage());
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  await mkdir(results, { recursive: true });
});

after(async () => {
  if (context) await context.close();
  if (server) server.close();
  if (profile) await rm(profile, { recursive: true, force: true });
  console.log(`timings: ${JSON.stringify(timings)}`);
});

/** The decisions the page shows: per webhook, its decision and conditions. */
async function shown() {
  return page.$$eval('[data-testid=hook]', (cards) => cards.map((c) => ({
    uid: c.dataset.uid,
    decision: c.dataset.decision,
    reason: c.querySelector('[data-testid=reason]').textContent,
    budget: c.querySelector('[data-testid=budget-label]')?.textContent ?? null,
    conditions: [...c.querySelectorAll('[data-testid=condition]')].map((r) => ({
      name: r.dataset.name,
      outcome: r.dataset.outcome,
      cost: Number(r.dataset.cost),
    })),
  })));
}

/** What the command line decides, in the page's terms. */
function expected(cli) {
  return cli.webhooks.map((h) => ({
    uid: h.uid,
    decision: h.decision,
    conditions: (h.conditions?.results ?? []).map((c) => ({ name: c.name, outcome: c.outcome, cost: c.cost })),
    totalCost: h.conditions?.totalCost ?? 0,
  }));
}

function assertSame(page, cli) {
  assert.deepEqual(page.map(({ uid, decision, conditions }) => ({ uid, decision, conditions })),
    expected(cli).map(({ uid, decision, conditions }) => ({ uid, decision, conditions })));
  for (const [p, e] of page.map((p, i) => [p, expected(cli)[i]])) {
    if (e.conditions.length > 0) {
      assert.match(p.budget, new RegExp(`^cost ${e.totalCost.toLocaleString('en-US')} / 2,500,000 `));
    }
  }
}

/** Every finding of `matchcond lint --output json` on one file, in its order. */
function lintFindings(cli) {
  const [file] = cli.files;
  return [
    ...file.documents.flatMap((d) => [...d.findings, ...d.configurations.flatMap((c) => c.findings)]),
    ...file.findings,
  ];
}

/** The page's findings, without its own fields: as `matchcond lint --output json` has them. */
async function pageFindings() {
  return page.evaluate(() => window.__playground.analysis.findings.map((f) => {
    const { context, document, position, ...cli } = f;
    return cli;
  }));
}

/** The configuration editor's text, written to a file of its own. */
async function configFile() {
  const file = path.join(await mkdtemp(path.join(tmpdir(), 'matchcond-playground-')), 'webhooks.yaml');
  await writeFile(file, await page.evaluate(() => window.__playground.views.configView.state.doc.toString()));
  return file;
}

/** The texts the editor marks with a severity's lint class. */
async function markedTexts(editor, severity) {
  return page.$$eval(`[data-testid=${editor}] .cm-lintRange-${severity}`, (m) => m.map((x) => x.textContent));
}

async function updates() {
  return Number(await page.getAttribute('[data-testid=status]', 'data-updates') || 0);
}

/** Waits for the page to have drawn an update after `count`. */
async function updatedAfter(count) {
  await page.waitForFunction((n) => !window.__playground.pending
    && Number(document.querySelector('[data-testid=status]').dataset.updates || 0) > n, count);
}

/** Replaces the first occurrence of `from` in an editor by typing `to` over it. */
async function typeOver(view, from, to) {
  const count = await updates();
  const found = await page.evaluate(([v, text]) => {
    const editor = window.__playground.views[v];
    const at = editor.state.doc.toString().indexOf(text);
    if (at < 0) return false;
    editor.dispatch({ selection: { anchor: at, head: at + text.length } });
    editor.focus();
    return true;
  }, [view, from]);
  assert.ok(found, `${from} is in the ${view}`);
  await page.keyboard.type(to);
  await updatedAfter(count);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x) => Number(x.toFixed(1));

/**
 * Times updates: types `a` over `b` and back, `n` times each way, and returns each
 * update's time (the engine and the drawing), in ms. The machine is shared: the median
 * is what is compared with the budget.
 */
async function timeEdits(view, a, b, n = 3) {
  const times = [];
  for (let i = 0; i < n; i++) {
    for (const [from, to] of [[a, b], [b, a]]) {
      await typeOver(view, from, to);
      times.push(await page.evaluate(() => window.__playground.lastUpdateMs));
    }
  }
  return times;
}

test('the example opens with the command line\'s decisions and costs', async () => {
  // Each load in a browser of its own (nothing of the module compiled or cached before),
  // after a page of the test's own has started the browser's renderer: what a user
  // opening a link sees. The machine is shared and other work only adds time: the best of
  // the fresh loads is compared with 1 s (all are printed). Three loads are taken, and up
  // to six more while none was within the budget, so that a burst of other work on the
  // machine does not decide the result; a page that is slow on every load still fails.
  const loads = [];
  for (let i = 0; i < 9 && (i < 3 || !loads.some((m) => m.firstDecisionMs <= 1000)); i++) {
    const fresh = await launch();
    try {
      const tab = fresh.context.pages()[0] || (await fresh.context.newPage());
      await tab.goto(`${base}__warmup`);
      await tab.goto(base);
      await tab.waitForSelector('[data-testid=hook]');
      await tab.waitForFunction(() => window.__playground.firstLintMs !== undefined);
      loads.push(await tab.evaluate(() => ({ ...window.__playground, views: undefined, engine: undefined })));
    } finally {
      await fresh.context.close();
      await rm(fresh.profile, { recursive: true, force: true });
    }
  }
  const firsts = loads.map((m) => m.firstDecisionMs);
  const metrics = loads.find((m) => m.firstDecisionMs === median(firsts));
  timings.firstDecisionMs = firsts.map(Math.round);
  timings.firstLintMs = loads.map((m) => Math.round(m.firstLintMs));
  timings.firstUpdateMs = round(metrics.firstUpdateMs);
  timings.firstEngineMs = round(metrics.firstEngineMs);
  // The last update of the load is the first with the lint findings.
  timings.firstLintUpdateMs = round(metrics.lastUpdateMs);
  timings.firstLintEngineMs = round(metrics.lastEngineMs);
  timings.scriptStartMs = Math.round(metrics.scriptStartMs);
  timings.engineReadyMs = Math.round(metrics.engineReadyMs);
  console.log(`first decision on screen ${firsts.map((t) => t.toFixed(0)).join(', ')} ms after navigation start `
    + `(median load: engine ready at ${metrics.engineReadyMs.toFixed(0)} ms, first update ${metrics.firstUpdateMs.toFixed(1)} ms; `
    + `lint findings at ${timings.firstLintMs.join(', ')} ms)`);
  await page.goto(base);
  await page.waitForSelector('[data-testid=hook]');
  // The findings follow the first decision at once.
  await page.waitForFunction(() => window.__playground.analysis.linted && !window.__playground.pending);
  // The newest version by default: the command line's default too.
  VERSION = await page.$eval('[data-testid=version]', (s) => s.value);
  const offered = await page.$$eval('[data-testid=version] option', (o) => o.map((x) => x.value));
  assert.equal(offered[0], VERSION);
  assert.equal(offered.at(-1), '1.28');
  assert.ok(offered.includes('1.37'), `${offered}`);
  const lint = matchcond(['lint', CONFIG], null);
  assert.equal(lint.k8sVersion, VERSION);
  const hooks = await shown();
  // The example, as the README's command prints it.
  assert.deepEqual(hooks.map((h) => [h.uid, h.decision]), [
    ['sidecar-injector/inject.sidecar.example.com/0', 'call'],
    ['shop-policy/pods.policy.example.com/0', 'call'],
    ['shop-policy/deployments.policy.example.com/0', 'skip'],
  ]);
  assert.deepEqual(hooks[1].conditions.map((c) => [c.name, c.outcome, c.cost]), [
    ['exclude-kube-system', 'true', 3],
    ['exclude-kubelet', 'true', 7],
    ['app-web-only', 'true', 5],
  ]);
  assert.equal(hooks[1].budget.split(' (')[0], 'cost 15 / 2,500,000');
  assert.equal(hooks[2].reason, 'skipped: no rule matches');
  assertSame(hooks, matchcond(['match', '--config', CONFIG, '--review', REVIEW]));

  assert.equal(await page.textContent('[data-testid=summary]'), `Admitted — 2 of 3 webhook(s) called (Kubernetes ${VERSION})`);
  // Each condition's result beside it in the editor (the editor draws the lines in view).
  assert.deepEqual((await page.$$eval('[data-testid=inline-result]', (n) => n.map((x) => x.textContent))).slice(0, 3),
    ['→ true · cost 3', '→ true · cost 7', '→ true · cost 5']);
  // The findings are `matchcond lint`'s: accepted, with the notes of the versions that
  // refuse the optional syntax.
  assert.deepEqual(await pageFindings(), lintFindings(lint));
  assert.deepEqual(await page.$$eval('[data-testid=finding]', (f) => f.map((x) => x.dataset.code)), ['compatibility', 'compatibility']);
  assert.deepEqual(await page.$$eval('[data-testid=finding-at]', (f) => f.map((x) => x.textContent)), ['4:1', '46:1']);
  assert.match(await page.textContent('[data-testid=findings] .ok'), /accepts these configurations/);
  await page.screenshot({ path: path.join(results, 'playground.png'), fullPage: true });
  // Last, so that a slow load fails this test alone: the page the others share is open.
  assert.ok(Math.min(...firsts) <= 1000, `first decision after ${firsts} ms`);
});

test('editing a condition changes the decision', async () => {
  await typeOver('configView', "request.namespace != 'kube-system'", "request.namespace != 'shop'");
  const hooks = await shown();
  assert.equal(hooks[1].decision, 'skip');
  assert.equal(hooks[1].reason, 'skipped: matchCondition "exclude-kube-system" is false');
  assert.deepEqual(hooks[1].conditions.map((c) => c.outcome), ['false', 'true', 'true']);
  const config = await configFile();
  assertSame(hooks, matchcond(['match', '--config', config, '--review', REVIEW]));
  assert.deepEqual(await pageFindings(), lintFindings(matchcond(['lint', config])));
  assert.equal(await page.$eval('[data-testid=example]', (s) => s.value), '');

  // Edits that compile the configuration again, then decide: within the budget.
  const times = await timeEdits('configView', "'shop'", "'kube-system'");
  timings.updateMs = times.map(round);
  console.log(`per update: ${times.map((t) => t.toFixed(1)).join(', ')} ms`);
  assert.ok(median(times) <= 50, `updates took ${times} ms`);
  assert.equal((await shown())[1].decision, 'skip');
  await page.screenshot({ path: path.join(results, 'playground-edited.png'), fullPage: true });
});

test('a condition that does not compile is the apiserver\'s error, marked in the editor', async () => {
  await typeOver('configView', "request.userInfo.groups", 'request.userInfo.group');
  const config = await configFile();
  const lint = matchcond(['lint', config]);
  assert.deepEqual(await pageFindings(), lintFindings(lint));
  const codes = await page.$$eval('[data-testid=finding]', (f) => f.map((x) => x.dataset.code));
  assert.deepEqual(codes, ['validation', 'compatibility']);
  const [error] = lintFindings(lint);
  const shownText = await page.textContent('[data-testid=finding]');
  assert.ok(shownText.includes(error.message), `${shownText} includes ${error.message}`);
  assert.match(error.message, /undefined field 'group'/);
  assert.equal(await page.textContent('[data-testid=finding-at]'), `${error.line}:${error.column}`);
  // The marker covers the expression, in the configuration editor.
  assert.deepEqual(await markedTexts('config-editor', 'error'), ['"!(\'system:nodes\' in request.userInfo.group)"']);
  assert.match(await page.textContent('[data-testid=refused]'), /refuses ValidatingWebhookConfiguration shop-policy/);
  await page.screenshot({ path: path.join(results, 'playground-error.png') });
  // At decision time the condition is an error, but the first condition is false (the
  // namespace is 'shop'): a false condition skips the webhook whatever the errors.
  let hooks = await shown();
  assert.equal(hooks[1].decision, 'skip');
  assert.deepEqual(hooks[1].conditions.map((c) => c.outcome), ['false', 'error', 'true']);
  // With the first condition true again, the error decides: failurePolicy Fail rejects.
  await typeOver('configView', "'shop'", "'kube-system'");
  hooks = await shown();
  assert.equal(hooks[1].decision, 'reject');
  assert.match(await page.textContent('[data-testid=summary]'), /^Rejected — 403 Forbidden: /);
  await typeOver('configView', 'request.userInfo.group', 'request.userInfo.groups');
  await typeOver('configView', "'kube-system'", "'shop'");
  assert.deepEqual(await page.$$eval('[data-testid=finding]', (f) => f.map((x) => x.dataset.code)), ['compatibility', 'compatibility']);
});

test('a trap is a warning with its position, operations and fix, marked in the editor', async () => {
  // The pods webhook on DELETE too, and a condition that reads object without a guard.
  await typeOver('configView', '["CREATE", "UPDATE"]', '["CREATE", "UPDATE", "DELETE"]');
  await typeOver('configView', "object.?metadata.?labels['app'].orValue('') == 'web'", "object.metadata.name.startsWith('web')");
  const config = await configFile();
  const lint = matchcond(['lint', config]);
  assert.deepEqual(await pageFindings(), lintFindings(lint));
  const trap = lintFindings(lint).find((f) => f.code === 'objectOnDelete');
  assert.ok(trap, JSON.stringify(lintFindings(lint)));
  assert.equal(trap.severity, 'warning');
  assert.deepEqual(trap.operations, ['DELETE']);
  const card = await page.$('[data-testid=finding][data-code=objectOnDelete]');
  assert.ok(card, 'the objectOnDelete finding is shown');
  assert.equal(await card.$eval('[data-testid=finding-at]', (x) => x.textContent), `${trap.line}:${trap.column}`);
  assert.equal(await card.$eval('[data-testid=finding-message]', (x) => x.textContent), trap.message);
  assert.equal(await card.$eval('[data-testid=finding-help]', (x) => x.textContent), `help: ${trap.help}`);
  const text = await card.textContent();
  assert.ok(text.includes('operations: DELETE'), text);
  assert.ok(text.includes(trap.span.snippet), text);
  // Marked on `object`, where the span is, at the finding's line and column.
  assert.ok((await markedTexts('config-editor', 'warning')).includes('object'));
  const marked = await page.evaluate(() => {
    const f = window.__playground.analysis.findings.find((x) => x.code === 'objectOnDelete');
    const doc = window.__playground.views.configView.state.doc;
    const line = doc.lineAt(f.position.from);
    return { line: line.number, column: f.position.from - line.from + 1, text: doc.sliceString(f.position.from, f.position.to) };
  });
  assert.deepEqual(marked, { line: trap.line, column: trap.column, text: 'object' });
  // A click on the finding selects it in the editor.
  await card.click();
  assert.equal(await page.evaluate(() => {
    const { state } = window.__playground.views.configView;
    return state.sliceDoc(state.selection.main.from, state.selection.main.to);
  }), 'object');
  await page.screenshot({ path: path.join(results, 'playground-lint.png') });
  // Over the mark, the editor shows the finding with its caret and its fix.
  await page.hover('[data-testid=config-editor] .cm-lintRange-warning');
  const tooltip = await page.waitForSelector('.cm-tooltip-lint');
  const tip = await tooltip.textContent();
  assert.ok(tip.includes(trap.message) && tip.includes(`help: ${trap.help}`), tip);
  await page.screenshot({ path: path.join(results, 'playground-lint-tooltip.png') });
  await page.mouse.move(0, 0);
  await typeOver('configView', "object.metadata.name.startsWith('web')", "object.?metadata.?labels['app'].orValue('') == 'web'");
  await typeOver('configView', '["CREATE", "UPDATE", "DELETE"]', '["CREATE", "UPDATE"]');
  assert.deepEqual(await page.$$eval('[data-testid=finding]', (f) => f.map((x) => x.dataset.code)), ['compatibility', 'compatibility']);
});

test('the expression box evaluates against the review', async () => {
  await typeOver('exprView', await page.evaluate(() => window.__playground.views.exprView.state.doc.toString()), 'request.userInfo.groups.size() + 1');
  const cli = matchcond(['eval', 'request.userInfo.groups.size() + 1', '--review', REVIEW]);
  assert.equal(cli.result, 'value');
  assert.equal(await page.textContent('[data-testid=expr-value]'), cli.valueText);
  assert.equal(await page.textContent('[data-testid=expr-type]'), cli.type);
  assert.equal(await page.textContent('[data-testid=expr-cost]'), String(cli.cost));

  await typeOver('exprView', 'request.userInfo.groups.size() + 1', 'request.uid == 1');
  const error = await page.textContent('[data-testid=expr-error]');
  const cliError = matchcond(['eval', 'request.uid == 1', '--review', REVIEW]);
  assert.equal(error, cliError.error);
  const marked = await page.$$eval('[data-testid=expression-editor] .cm-lintRange-error', (m) => m.map((x) => x.textContent));
  assert.deepEqual(marked, ['.uid']);

  // The deepest nesting the parser accepts, of every form the stack-safety tests use,
  // compiles and evaluates in the browser too (no thread with a large stack there).
  const deepest = await page.evaluate((forms) => {
    const run = (e) => JSON.parse(window.__playground.engine.evaluate(JSON.stringify({ expression: e, review: '' })));
    return forms.map(([open, close, inner]) => {
      const text = (n) => open.repeat(n) + inner + close.repeat(n);
      let [ok, bad] = [0, 1000];
      while (bad - ok > 1) {
        const mid = (ok + bad) >> 1;
        const r = run(text(mid));
        if (r.result === 'compileError' && /recursion limit exceeded|max recursion depth/.test(r.error)) bad = mid; else ok = mid;
      }
      return [open, ok, run(text(ok)).result];
    });
  }, NESTING_FORMS);
  for (const [open, depth, result] of deepest) {
    assert.ok(depth >= 100, `${open}: ${depth}`);
    assert.equal(result, 'value', `${open} nested ${depth} deep`);
  }
  const deep = `${'['.repeat(120)}1${']'.repeat(120)}.size() == 1`;
  await typeOver('exprView', 'request.uid == 1', deep);
  assert.equal(await page.textContent('[data-testid=expr-value]'), 'true');
  await typeOver('exprView', deep, `${'('.repeat(300)}1${')'.repeat(300)}`);
  assert.match(await page.textContent('[data-testid=expr-error]'), /expression recursion limit exceeded: 250/);
  await typeOver('exprView', `${'('.repeat(300)}1${')'.repeat(300)}`, 'request.namespace');
  assert.equal(await page.textContent('[data-testid=expr-value]'), '"shop"');
});

test('an authorizer table answers checks by user group and verb, as the command line', async () => {
  const expr = await page.evaluate(() => window.__playground.views.exprView.state.doc.toString());
  const check = "authorizer.requestResource.check('create').allowed()";
  await typeOver('exprView', expr, check);
  assert.ok(await page.$eval('[data-testid=authorizer-pane]', (p) => p.hidden));
  let count = await updates();
  await page.selectOption('[data-testid=authorizer]', 'table');
  await updatedAfter(count);
  assert.ok(!(await page.$eval('[data-testid=authorizer-pane]', (p) => p.hidden)));
  // The table the page starts with lets service accounts create: the review's user is one.
  const table = await page.inputValue('[data-testid=authorizer-table]');
  const dir = await mkdtemp(path.join(tmpdir(), 'matchcond-playground-'));
  const tableFile = path.join(dir, 'authorizer.yaml');
  await writeFile(tableFile, table);
  for (const verb of ['create', 'delete']) {
    const e = `authorizer.requestResource.check('${verb}').allowed()`;
    const current = await page.evaluate(() => window.__playground.views.exprView.state.doc.toString());
    if (current !== e) await typeOver('exprView', current, e);
    const cli = matchcond(['eval', e, '--review', REVIEW, '--authorizer', tableFile]);
    assert.equal(await page.textContent('[data-testid=expr-value]'), cli.valueText);
    assert.equal(cli.valueText, verb === 'create' ? 'true' : 'false');
  }
  // A field the table does not know: said, and nothing decided or evaluated.
  count = await updates();
  await page.fill('[data-testid=authorizer-table]', 'rules:\n- {usergroups: [a], decision: allow}\n');
  await updatedAfter(count);
  assert.match(await page.textContent('[data-testid=authorizer-error]'), /unknown field `usergroups`/);
  assert.match(await page.textContent('[data-testid=summary]'), /the authorizer table cannot be used/);
  assert.equal(await page.$$eval('[data-testid=hook]', (c) => c.length), 0);
  // The link keeps an edited table: delete allowed to the review's user, and the
  // webhook that asks the authorizer before deleting sees it.
  const edited = table.replace('verbs: [create, update]', 'verbs: [create, update, delete]');
  assert.notEqual(edited, table);
  count = await updates();
  await page.fill('[data-testid=authorizer-table]', edited);
  await updatedAfter(count);
  assert.ok(await page.$eval('[data-testid=authorizer-error]', (e) => e.hidden));
  assert.equal(await page.textContent('[data-testid=expr-value]'), 'true');
  await page.evaluate(() => window.__playground.saved);
  const again = await context.newPage();
  await again.goto(page.url());
  await again.waitForSelector('[data-testid=hook]');
  assert.equal(await again.inputValue('[data-testid=authorizer]'), 'table');
  assert.equal(await again.inputValue('[data-testid=authorizer-table]'), edited);
  assert.equal(await again.textContent('[data-testid=expr-value]'), 'true');
  await again.close();
  // Back to the state the next test expects.
  count = await updates();
  await page.selectOption('[data-testid=authorizer]', 'noOpinion');
  await updatedAfter(count);
  assert.ok(await page.$eval('[data-testid=authorizer-pane]', (p) => p.hidden));
  await typeOver('exprView', "authorizer.requestResource.check('delete').allowed()", expr);
  await rm(dir, { recursive: true, force: true });
});

test('the link reproduces the state; a bad link falls back to the example', async () => {
  // The state the tests above left: the first condition edited, an expression typed.
  await page.evaluate(() => window.__playground.saved);
  const link = page.url();
  assert.match(link, /#z=[A-Za-z0-9_-]+$/);
  const again = await context.newPage();
  await again.goto(link);
  await again.waitForSelector('[data-testid=hook]');
  const decisions = await again.$$eval('[data-testid=hook]', (c) => c.map((x) => x.dataset.decision));
  assert.deepEqual(decisions, ['call', 'skip', 'skip']);
  assert.equal(await again.evaluate(() => window.__playground.views.exprView.state.doc.toString()), 'request.namespace');
  assert.equal(await again.evaluate(() => window.__playground.views.configView.state.doc.toString()),
    await page.evaluate(() => window.__playground.views.configView.state.doc.toString()));

  for (const bad of ['#z=not-deflate', '#j=e30', '#z=!!', '#j=WzFd', '#something']) {
    await again.goto('about:blank');
    await again.goto(base + bad);
    await again.waitForSelector('[data-testid=hook]');
    const notice = await again.textContent('[data-testid=notice]');
    const hidden = await again.$eval('[data-testid=notice]', (n) => n.hidden);
    if (bad === '#j=e30') {
      // An empty state is a valid one: the example.
      assert.ok(hidden, notice);
    } else {
      assert.ok(!hidden && /could not be read/.test(notice), `${bad}: ${notice}`);
    }
    assert.deepEqual(await again.$$eval('[data-testid=hook]', (c) => c.map((x) => x.dataset.decision)), ['call', 'call', 'skip']);
  }
  await again.close();
});

test('every bundled example decides as the command line, each update within 50 ms', async () => {
  const options = await page.$$eval('[data-testid=example] option', (o) => o.map((x) => x.value).filter(Boolean));
  assert.deepEqual(options, ['pod-create.json', 'configmap-delete.json', 'deployment-update.json']);
  const perExample = {};
  for (const name of options) {
    const count = await updates();
    await page.selectOption('[data-testid=example]', name);
    await updatedAfter(count);
    assertSame(await shown(), matchcond(['match', '--config', CONFIG, '--review', path.join(repo, 'examples', 'reviews', name)]));
    // Editing the configuration (compiled again), and the review (decided again only).
    const config = await timeEdits('configView', 'name: not-dry-run', 'name: not-dry-run2');
    const review = await timeEdits('reviewView', '"kind": "AdmissionReview"', '"kind": "AdmissionReview" ');
    perExample[name] = { config: round(median(config)), review: round(median(review)), max: round(Math.max(...config, ...review)) };
    assert.ok(median(config) <= 50 && median(review) <= 50, `${name}: ${config} ms, ${review} ms`);
  }
  timings.perExampleMs = perExample;
  console.log(`per update by example: ${JSON.stringify(perExample)}`);
});
