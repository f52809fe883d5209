// The playground page: two editors and an expression box in, the engine's lint findings,
// decisions and costs out. All the work is done by the WebAssembly module; this file only
// draws what it returns.

import init, { versions, analyze, evaluate } from 'engine';
import { examples } from 'examples';
import { encodeState, decodeState } from './fragment.js';

import { EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection, Decoration, WidgetType } from '@codemirror/view';
import { EditorState, StateField, StateEffect } from '@codemirror/state';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { syntaxHighlighting, defaultHighlightStyle, bracketMatching, indentOnInput } from '@codemirror/language';
import { yaml } from '@codemirror/lang-yaml';
import { json } from '@codemirror/lang-json';
import { setDiagnostics, lintGutter } from '@codemirror/lint';

const DEBOUNCE_MS = 120;
const $ = (id) => document.getElementById(id);
const metrics = { firstDecisionMs: null, lastUpdateMs: null, lastEngineMs: null, updates: 0, pending: false, analysis: null };
window.__playground = metrics;

// ---------- small DOM helpers ----------

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

const number = new Intl.NumberFormat('en-US');
const fmt = (n) => number.format(n);

// ---------- inline results next to each condition in the configuration editor ----------

const setInline = StateEffect.define();

class ResultWidget extends WidgetType {
  constructor(text, kind) {
    super();
    this.text = text;
    this.kind = kind;
  }
  eq(other) {
    return other.text === this.text && other.kind === this.kind;
  }
  toDOM() {
    return el('span', { class: `inline-result ${this.kind}`, 'data-testid': 'inline-result' }, this.text);
  }
  ignoreEvent() {
    return true;
  }
}

const inlineResults = StateField.define({
  create: () => Decoration.none,
  update(value, tr) {
    value = value.map(tr.changes);
    for (const e of tr.effects) if (e.is(setInline)) value = e.value;
    return value;
  },
  provide: (f) => EditorView.decorations.from(f),
});

function inlineDecorations(view, hooks) {
  const length = view.state.doc.length;
  const ranges = [];
  for (const hook of hooks) {
    for (const c of hook.conditions) {
      if (!c.position || c.position.to > length) continue;
      const text = c.outcome === 'error' ? `→ error · cost ${fmt(c.cost)}`
        : c.outcome === 'notEvaluated' ? '→ not evaluated'
          : `→ ${c.outcome} · cost ${fmt(c.cost)}`;
      ranges.push(Decoration.widget({ widget: new ResultWidget(text, c.outcome), side: 1 }).range(c.position.to));
    }
  }
  return Decoration.set(ranges, true);
}

// ---------- editors ----------

function editor(parent, doc, language, onChange, extra = []) {
  return new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        highlightActiveLine(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        lintGutter(),
        language,
        EditorView.updateListener.of((u) => {
          if (u.docChanged) onChange();
        }),
        ...extra,
      ],
    }),
  });
}

function jumpTo(view, position) {
  if (!position) return;
  const to = Math.min(position.to, view.state.doc.length);
  const from = Math.min(position.from, to);
  view.dispatch({ selection: { anchor: from, head: to }, scrollIntoView: true });
  view.focus();
}

// The editor's severities: a note is information.
const EDITOR_SEVERITY = { error: 'error', warning: 'warning', note: 'info' };

function diagnostics(findings, length) {
  return findings
    .filter((f) => f.position)
    .map((f) => {
      const from = Math.min(f.position.from, length);
      const to = Math.max(from, Math.min(f.position.to, length));
      return {
        from,
        to,
        severity: EDITOR_SEVERITY[f.severity] || 'error',
        source: f.code,
        message: [f.message, f.span && f.span.snippet, f.help && `help: ${f.help}`].filter(Boolean).join('\n'),
      };
    });
}

// ---------- rendering ----------

function where(f) {
  if (f.line === null || f.line === undefined) return f.document !== null && f.document !== undefined ? `document ${f.document}` : '';
  return `${f.line}:${f.column}`;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function renderFindings(configView, reviewView, analysis) {
  const list = $('findings');
  list.replaceChildren();
  const all = [
    ...analysis.findings.map((f) => ({ f, view: configView, editor: 'configuration' })),
    ...analysis.reviewFindings.map((f) => ({ f, view: reviewView, editor: 'review' })),
  ];
  if (!analysis.linted) {
    $('lint-count').textContent = 'checking…';
    return;
  }
  const { errors, warnings, notes } = analysis.counts;
  const parts = [plural(errors, 'error'), plural(warnings, 'warning')];
  if (notes > 0) parts.push(plural(notes, 'note'));
  if (analysis.reviewFindings.length > 0) parts.push(`${analysis.reviewFindings.length} in the review`);
  $('lint-count').textContent = `${parts.join(', ')} — as matchcond lint --k8s-version ${analysis.version}`;
  if (errors === 0 && analysis.configurations.length > 0) {
    list.append(el('li', { class: 'ok' }, `✓ The apiserver of Kubernetes ${analysis.version} accepts these configurations.`));
  }
  for (const { f, view, editor: name } of all) {
    list.append(el('li', {
      class: `finding ${f.severity}`,
      'data-testid': 'finding',
      'data-code': f.code,
      'data-severity': f.severity,
      title: f.position ? `Show it in the ${name} editor` : undefined,
      onclick: () => jumpTo(view, f.position),
    },
    el('div', { class: 'head' },
      el('span', { class: 'sev' }, f.severity),
      el('span', { class: 'code', 'data-testid': 'finding-code' }, f.code),
      el('span', { class: 'loc', 'data-testid': 'finding-at' }, [name === 'review' ? 'review ' : '', where(f)].join('')),
      f.context ? el('span', { class: 'context' }, f.context) : null,
      // A validation error's message starts with its field path already.
      f.path && !f.fieldError ? el('code', { class: 'field' }, f.path) : null),
    // A message of several lines holds cel-go's caret snippets: a fixed-width font.
    el('div', { class: f.message.includes('\n') ? 'msg lines' : 'msg', 'data-testid': 'finding-message' }, f.message),
    f.span ? el('pre', { class: 'snippet' }, f.span.snippet) : null,
    f.operations.length > 0 ? el('div', { class: 'concerns' }, `operations: ${f.operations.join(', ')}`) : null,
    f.versions.length > 0 ? el('div', { class: 'concerns' }, `Kubernetes versions: ${f.versions.join(', ')}`) : null,
    f.help ? el('div', { class: 'help', 'data-testid': 'finding-help' }, `help: ${f.help}`) : null));
  }
}

const STEP_NAMES = {
  exemptKind: 'exempt kinds',
  namespaceSelector: 'namespaceSelector',
  objectSelector: 'objectSelector',
  rules: 'rules',
  matchConditions: 'matchConditions',
  dryRun: 'dry run',
};
const STEP_MARKS = { pass: '✓', fail: '✗', error: '!', notReached: '·' };

function budgetBar(hook) {
  const bar = el('div', { class: 'budget', 'data-testid': 'budget', title: `${fmt(hook.totalCost)} of the webhook's budget of ${fmt(hook.budget)}` });
  hook.conditions.forEach((c, i) => {
    if (c.cost <= 0) return;
    const pct = (100 * c.cost) / hook.budget;
    bar.append(el('span', {
      class: `seg s${i % 6} ${c.outcome}`,
      style: `width: max(${pct}%, 3px)`,
      title: `${c.name}: ${fmt(c.cost)}`,
    }));
  });
  const pct = (100 * hook.totalCost) / hook.budget;
  return el('div', { class: 'budget-row' }, bar,
    el('span', { class: 'budget-label', 'data-testid': 'budget-label' },
      `cost ${fmt(hook.totalCost)} / ${fmt(hook.budget)} (${pct < 0.01 && pct > 0 ? '<0.01' : pct.toFixed(2)}%)`));
}

function renderHook(hook, configView) {
  const card = el('article', { class: `hook ${hook.decision}`, 'data-testid': 'hook', 'data-uid': hook.uid, 'data-decision': hook.decision });
  card.append(el('header', {},
    el('span', { class: `badge ${hook.decision}`, 'data-testid': 'decision' }, hook.decision),
    el('span', { class: 'kind' }, hook.kind),
    el('a', { class: 'name', href: '#', onclick: (e) => { e.preventDefault(); jumpTo(configView, hook.position); } },
      `${hook.configuration} / ${hook.name}`),
    el('span', { class: 'policy' }, `failurePolicy ${hook.failurePolicy}`)));
  card.append(el('div', { class: 'reason', 'data-testid': 'reason' },
    hook.decision === 'call' ? `called: ${hook.invocation}` : hook.decision === 'reject' ? `rejects the request: ${hook.rejection}` : `skipped: ${hook.reason}`));
  const steps = el('ol', { class: 'steps' });
  for (const s of hook.steps) {
    steps.append(el('li', { class: `step ${s.state}`, 'data-check': s.check },
      el('span', { class: 'mark' }, STEP_MARKS[s.state] || '?'),
      el('span', { class: 'check' }, STEP_NAMES[s.check] || s.check),
      el('span', { class: 'detail' }, s.detail)));
  }
  card.append(steps);
  if (hook.conditions.length > 0) {
    const table = el('table', { class: 'conditions' },
      el('thead', {}, el('tr', {}, el('th', {}, 'condition'), el('th', {}, 'expression'), el('th', {}, 'result'), el('th', { class: 'num' }, 'cost'))));
    const body = el('tbody');
    for (const c of hook.conditions) {
      body.append(el('tr', { class: c.outcome, 'data-testid': 'condition', 'data-name': c.name, 'data-outcome': c.outcome, 'data-cost': c.cost },
        el('td', { class: 'cname' }, c.name),
        el('td', {}, el('a', { class: 'expr', href: '#', title: 'Show it in the editor', onclick: (e) => { e.preventDefault(); jumpTo(configView, c.position); } }, c.expression)),
        el('td', { class: 'outcome' }, c.outcome === 'error' ? el('span', { class: 'err' }, c.error) : c.outcome === 'notEvaluated' ? 'not evaluated' : c.outcome),
        el('td', { class: 'num' }, fmt(c.cost))));
    }
    table.append(body);
    card.append(table);
    card.append(budgetBar(hook));
    if (hook.evaluationError) card.append(el('div', { class: 'err' }, hook.evaluationError));
  }
  return card;
}

function renderAnalysis(views, analysis) {
  const { configView, reviewView } = views;
  configView.dispatch(setDiagnostics(configView.state, diagnostics(analysis.findings, configView.state.doc.length)));
  reviewView.dispatch(setDiagnostics(reviewView.state, diagnostics(analysis.reviewFindings, reviewView.state.doc.length)));
  configView.dispatch({ effects: setInline.of(inlineDecorations(configView, analysis.hooks)) });
  renderFindings(configView, reviewView, analysis);

  const summary = $('summary');
  if (analysis.admitted === null || analysis.admitted === undefined) {
    summary.className = 'summary none';
    summary.textContent = `No decision: ${analysis.undecided || 'nothing to decide'} (see the lint findings).`;
  } else if (analysis.admitted) {
    const called = analysis.hooks.filter((h) => h.decision === 'call').length;
    summary.className = 'summary admitted';
    summary.textContent = `Admitted — ${called} of ${analysis.hooks.length} webhook(s) called (Kubernetes ${analysis.version})`;
  } else {
    summary.className = 'summary rejected';
    summary.textContent = `Rejected — ${analysis.rejection} (Kubernetes ${analysis.version})`;
  }
  if (analysis.admitted !== null && analysis.admitted !== undefined && analysis.refused.length > 0) {
    summary.append(el('div', { class: 'refused', 'data-testid': 'refused' },
      `The apiserver refuses ${analysis.refused.join(', ')} (see the lint errors): decided as if stored.`));
  }
  const hooks = $('hooks');
  hooks.replaceChildren(...analysis.hooks.map((h) => renderHook(h, configView)));
  if (analysis.hooks.length === 0) {
    hooks.append(el('p', { class: 'muted' }, analysis.configurations.length === 0 ? 'No webhook configuration to decide.' : 'No webhook.'));
  }
}

function renderEvaluation(view, result) {
  const out = $('expression-result');
  const issues = result.issues || [];
  view.dispatch(setDiagnostics(view.state, diagnostics(issues, view.state.doc.length)));
  out.replaceChildren();
  out.className = `expr-result ${result.result}`;
  if (result.authorizerError) {
    out.append(el('span', { class: 'muted' }, 'Not evaluated: the authorizer table cannot be used.'));
  } else if (result.result === 'empty') {
    out.append(el('span', { class: 'muted' }, 'Type a CEL expression: object, oldObject, request, authorizer.'));
  } else if (result.result === 'value') {
    out.append(
      el('div', {}, el('span', { class: 'k' }, 'value'), el('code', { 'data-testid': 'expr-value' }, result.value)),
      el('div', {}, el('span', { class: 'k' }, 'type'), el('code', { 'data-testid': 'expr-type' }, result.type)),
      el('div', {}, el('span', { class: 'k' }, 'cost'), el('code', { 'data-testid': 'expr-cost' }, fmt(result.cost))));
  } else {
    out.append(el('pre', { class: 'err', 'data-testid': 'expr-error' }, result.error));
    if (result.cost !== null && result.cost !== undefined) {
      out.append(el('div', {}, el('span', { class: 'k' }, 'cost'), el('code', { 'data-testid': 'expr-cost' }, fmt(result.cost))));
    }
  }
  if (result.reviewError) out.append(el('div', { class: 'muted' }, `without a request: ${result.reviewError}`));
}

function renderAuthorizerError(error) {
  const e = $('authorizer-error');
  e.textContent = error ? `The authorizer table cannot be used: ${error}` : '';
  e.hidden = !error;
}

// ---------- state ----------

// What the table choice starts with: a breakglass group may do anything, service
// accounts may create and update, everything else is denied.
const DEFAULT_AUTHORIZER_TABLE = `default: deny
rules:
- userGroups: [system:masters, breakglass]
  decision: allow
- userGroups: [system:serviceaccounts]
  verbs: [create, update]
  decision: allow
`;

function exampleText(list, name) {
  const found = list.find((e) => e.name === name);
  return found ? found.text : null;
}

function showNotice(text) {
  const n = $('notice');
  n.textContent = text;
  n.hidden = !text;
}

async function main() {
  const started = performance.now();
  const defaults = {
    cx: examples.configs[0].name,
    rx: examples.reviews[0].name,
    e: "request.userInfo.username.startsWith('system:')",
  };
  // The module downloads and compiles while the page sets itself up.
  const wasmUrl = new URL('matchcond_playground_bg.wasm', import.meta.url);
  const early = window.matchcondModule ? window.matchcondModule.catch(() => null) : Promise.resolve(null);
  const engineReady = early.then((module) => init({ module_or_path: module || wasmUrl }));
  const fromLink = await decodeState(location.hash);
  let state = { ...defaults };
  if (fromLink.error) {
    showNotice(`The link's state could not be read (${fromLink.error}); an example is shown instead.`);
  } else if (fromLink.state) {
    state = fromLink.state;
  }

  const versionSelect = $('version');
  $('authorizer').value = ['allow', 'deny', 'noOpinion', 'table'].includes(state.a) ? state.a : 'noOpinion';
  $('authorizer-table').value = typeof state.t === 'string' ? state.t : DEFAULT_AUTHORIZER_TABLE;
  const showTable = () => { $('authorizer-pane').hidden = $('authorizer').value !== 'table'; };
  showTable();
  $('labels').value = state.l || '';

  const exampleSelect = $('example');
  exampleSelect.append(el('option', { value: '' }, '(edited)'));
  for (const r of examples.reviews) {
    exampleSelect.append(el('option', { value: r.name }, `${examples.configs[0].name} + ${r.name}`));
  }

  const configText = state.c ?? exampleText(examples.configs, state.cx) ?? examples.configs[0].text;
  const reviewText = state.r ?? exampleText(examples.reviews, state.rx) ?? examples.reviews[0].text;

  let timer = null;
  const schedule = () => {
    metrics.pending = true;
    clearTimeout(timer);
    timer = setTimeout(update, DEBOUNCE_MS);
  };
  const views = {};
  views.configView = editor($('config'), configText, yaml(), schedule, [inlineResults]);
  views.reviewView = editor($('review'), reviewText, json(), schedule);
  views.exprView = editor($('expression'), state.e ?? '', [], schedule);
  window.__playground.views = views;
  window.__playground.engine = { analyze, evaluate };

  await engineReady;
  metrics.scriptStartMs = started;
  metrics.engineReadyMs = performance.now();
  const offered = JSON.parse(versions());
  for (const v of offered.versions) versionSelect.append(el('option', { value: v }, v));
  versionSelect.value = offered.versions.includes(state.v) ? state.v : offered.default;

  const syncExample = () => {
    const config = views.configView.state.doc.toString();
    const review = views.reviewView.state.doc.toString();
    const r = examples.reviews.find((x) => x.text === review);
    exampleSelect.value = config === examples.configs[0].text && r ? r.name : '';
  };

  const current = () => {
    const config = views.configView.state.doc.toString();
    const review = views.reviewView.state.doc.toString();
    return {
      config,
      review,
      version: versionSelect.value,
      namespaceLabels: $('labels').value,
      authorizer: $('authorizer').value,
      authorizerTable: $('authorizer').value === 'table' ? $('authorizer-table').value : '',
      expression: views.exprView.state.doc.toString(),
    };
  };

  let saving = Promise.resolve();
  const save = (input) => {
    const s = { v: input.version, a: input.authorizer, l: input.namespaceLabels, e: input.expression };
    if (input.authorizer === 'table') s.t = input.authorizerTable;
    const cx = examples.configs.find((x) => x.text === input.config);
    if (cx) s.cx = cx.name; else s.c = input.config;
    const rx = examples.reviews.find((x) => x.text === input.review);
    if (rx) s.rx = rx.name; else s.r = input.review;
    saving = saving.then(async () => {
      const fragment = await encodeState(s);
      window.history.replaceState(null, '', `#${fragment}`);
    }).catch(() => {});
    return saving;
  };

  // The first update decides only (the linter is set up by the next one, right after).
  function update(options = {}) {
    clearTimeout(timer);
    metrics.pending = false;
    const t0 = performance.now();
    const input = current();
    const request = JSON.stringify({ ...input, decideOnly: Boolean(options.decideOnly) });
    let analysis;
    let evaluated;
    try {
      analysis = JSON.parse(analyze(request));
      evaluated = JSON.parse(evaluate(request));
    } catch (e) {
      $('status').textContent = 'the engine stopped';
      showNotice(`The engine stopped (${e && e.message ? e.message : e}). Reload the page to start it again.`);
      return;
    }
    const t1 = performance.now();
    if (analysis.failure || evaluated.failure) {
      showNotice(analysis.failure || evaluated.failure);
      return;
    }
    metrics.analysis = analysis;
    renderAnalysis(views, analysis);
    renderEvaluation(views.exprView, evaluated);
    renderAuthorizerError(analysis.authorizerError || evaluated.authorizerError);
    syncExample();
    const t2 = performance.now();
    metrics.updates += 1;
    metrics.lastEngineMs = t1 - t0;
    metrics.lastUpdateMs = t2 - t0;
    if (metrics.firstDecisionMs === null) {
      metrics.firstDecisionMs = t2;
      metrics.loadToDecisionMs = t2 - started;
      metrics.firstUpdateMs = t2 - t0;
      metrics.firstEngineMs = t1 - t0;
    }
    if (analysis.linted && metrics.firstLintMs === undefined) metrics.firstLintMs = t2;
    $('status').textContent = `updated in ${metrics.lastUpdateMs.toFixed(1)} ms (engine ${metrics.lastEngineMs.toFixed(1)} ms)`;
    $('status').dataset.updates = String(metrics.updates);
    metrics.saved = save(input);
    if (!analysis.linted) {
      metrics.pending = true;
      timer = setTimeout(update, 0);
    }
  }

  const replaceDoc = (view, text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
  exampleSelect.addEventListener('change', () => {
    const text = exampleText(examples.reviews, exampleSelect.value);
    if (text === null) return;
    replaceDoc(views.configView, examples.configs[0].text);
    replaceDoc(views.reviewView, text);
    showNotice('');
    update();
  });
  versionSelect.addEventListener('change', update);
  $('authorizer').addEventListener('change', () => { showTable(); update(); });
  $('authorizer-table').addEventListener('input', schedule);
  $('labels').addEventListener('input', schedule);
  for (const b of document.querySelectorAll('[data-expr]')) {
    b.addEventListener('click', () => {
      replaceDoc(views.exprView, b.dataset.expr);
      update();
    });
  }
  $('share').addEventListener('click', async () => {
    update();
    await saving;
    try {
      await navigator.clipboard.writeText(location.href);
      $('share').textContent = 'Link copied';
    } catch {
      $('share').textContent = 'Link in the address bar';
    }
    setTimeout(() => { $('share').textContent = 'Copy link'; }, 2000);
  });

  update({ decideOnly: true });
}

main().catch((e) => {
  showNotice(`The playground could not start: ${e && e.message ? e.message : e}`);
  $('status').textContent = 'failed to start';
});
