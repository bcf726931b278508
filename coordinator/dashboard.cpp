// SPDX-License-Identifier: MIT
// The dashboard page (see dashboard.hpp). Plain DOM and canvas code so it runs in any current
// browser without a framework; everything it shows comes from the JSON API (docs/api.md), so
// the page, `zkmill status --json` and the API never disagree. Errors (API unreachable, a
// failed fetch, a script error) are shown on the page and counted in #errors, which the
// browser test reads.
#include "coordinator/dashboard.hpp"

namespace zkmill::farm {

namespace {

constexpr std::string_view kPage = R"zkmill-html(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>zkmill farm</title>
<link rel="icon" href="data:,">
<script>
// First, so that a fault in the main script is still reported on the page.
window.zkErrors = [];
window.addEventListener('error', function (e) { window.zkErrors.push(String(e.message)); });
window.addEventListener('unhandledrejection', function (e) { window.zkErrors.push(String(e.reason)); });
const zkConsoleError = console.error.bind(console);
console.error = function () { window.zkErrors.push(Array.prototype.join.call(arguments, ' ')); zkConsoleError.apply(null, arguments); };
</script>
<style>
:root { --bg:#0f1419; --panel:#182029; --line:#2a3542; --text:#dde3ea; --dim:#8a97a6; --accent:#4fa3ff;
  --queued:#4b5563; --synth:#7c9cff; --synthd:#4f6fd8; --proving:#f0b429; --verified:#3ecf8e;
  --failed:#ef5f5f; --cancelled:#6b7280; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; background:var(--bg); color:var(--text); }
header { display:flex; align-items:center; gap:16px; padding:12px 20px; border-bottom:1px solid var(--line); }
header h1 { font-size:18px; margin:0; font-weight:600; }
.pill { padding:2px 10px; border-radius:10px; font-size:12px; background:var(--queued); }
.pill.ok { background:#1f6f4a; } .pill.bad { background:#8a2c2c; }
#updated { color:var(--dim); font-size:12px; margin-left:auto; }
main { padding:16px 20px; display:grid; gap:16px; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); }
section { background:var(--panel); border:1px solid var(--line); border-radius:8px; padding:12px 14px; min-width:0; }
section.wide { grid-column: 1 / -1; }
h2 { font-size:13px; text-transform:uppercase; letter-spacing:.06em; color:var(--dim); margin:0 0 10px; }
.cards { display:flex; flex-wrap:wrap; gap:10px; }
.card { flex:1 1 90px; background:#111820; border-radius:6px; padding:8px 10px; }
.card b { display:block; font-size:22px; font-variant-numeric: tabular-nums; }
.card span { color:var(--dim); font-size:12px; }
table { width:100%; border-collapse:collapse; font-variant-numeric: tabular-nums; }
th, td { text-align:left; padding:5px 8px; border-bottom:1px solid var(--line); white-space:nowrap; }
th { color:var(--dim); font-weight:500; font-size:12px; }
td.strip-cell { width:45%; white-space:normal; }
.strip { display:flex; height:14px; gap:1px; border-radius:3px; overflow:hidden; background:#111820; }
.strip i { flex:1; min-width:1px; background:var(--queued); }
.s-queued { background:var(--queued) !important; } .s-synthesizing { background:var(--synth) !important; }
.s-synthesized { background:var(--synthd) !important; } .s-proving { background:var(--proving) !important; }
.s-verified, .s-done { background:var(--verified) !important; } .s-failed { background:var(--failed) !important; }
.s-cancelled { background:var(--cancelled) !important; } .s-running { background:#2f6feb !important; }
.state { padding:1px 8px; border-radius:8px; font-size:12px; }
.legend { display:flex; gap:12px; flex-wrap:wrap; color:var(--dim); font-size:12px; margin-top:8px; }
.legend i { display:inline-block; width:10px; height:10px; border-radius:2px; margin-right:4px; vertical-align:-1px; }
canvas { width:100%; height:180px; display:block; }
.empty { color:var(--dim); font-style:italic; }
#banner { display:none; background:#8a2c2c; padding:8px 20px; }
.err { color:var(--failed); }
</style>
</head>
<body>
<header><h1>zkmill farm</h1><span id="coord" class="pill">connecting</span><span id="redis" class="pill">redis ?</span>
<span id="updated">not loaded yet</span></header>
<div id="banner"></div>
<main>
<section class="wide"><h2>Summary</h2><div class="cards" id="summary"></div></section>
<section><h2>Queues</h2><div class="cards" id="queues"></div></section>
<section><h2>Throughput (proofs per 10 s, last 15 min)</h2><canvas id="chart" width="600" height="180"></canvas>
<div class="legend" id="tput"></div></section>
<section class="wide"><h2>Workers</h2><table id="workers"><thead><tr><th>worker</th><th>role</th><th>state</th>
<th>GPUs</th><th>current partition</th><th>circuits</th><th>last heartbeat</th></tr></thead><tbody></tbody></table></section>
<section class="wide"><h2>Recent jobs</h2><table id="jobs"><thead><tr><th>job</th><th>state</th><th>verified</th>
<th>priority</th><th>partitions</th><th>error</th></tr></thead><tbody></tbody></table>
<div class="legend" id="legend"></div></section>
</main>
<pre id="errors" hidden></pre>
<script>
'use strict';
const POLL_MS = 1000, DETAIL_JOBS = 8, MAX_CELLS = 400;
const STATES = ['queued', 'synthesizing', 'synthesized', 'proving', 'verified', 'failed', 'cancelled'];
const token = (function () {
  const m = location.hash.match(/token=([^&]+)/);
  if (m) { sessionStorage.setItem('zkmill-token', decodeURIComponent(m[1])); history.replaceState(null, '', location.pathname); }
  return sessionStorage.getItem('zkmill-token');
})();
const $ = (id) => document.getElementById(id);
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v; else if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
}
async function api(path) {
  const headers = token ? { Authorization: 'Bearer ' + token } : {};
  const r = await fetch(path, { headers, cache: 'no-store' });
  if (r.status === 401) throw new Error('401: this farm needs a token; open /#token=YOUR_TOKEN');
  if (!r.ok) throw new Error(path + ': HTTP ' + r.status);
  return r.json();
}
function card(value, label) { return el('div', { class: 'card' }, el('b', { text: String(value) }), el('span', { text: label })); }
function fill(id, entries) { $(id).replaceChildren(...entries.map(([k, v]) => card(v, k))); }
function ago(ms) { return ms < 1000 ? 'now' : (ms / 1000).toFixed(1) + ' s ago'; }

function drawChart(t) {
  const c = $('chart'), ctx = c.getContext('2d');
  const w = c.width = c.clientWidth * (window.devicePixelRatio || 1), h = c.height = 180 * (window.devicePixelRatio || 1);
  ctx.clearRect(0, 0, w, h);
  const pad = 24 * (window.devicePixelRatio || 1);
  const series = t && Array.isArray(t.verified) ? t.verified : [];
  const max = Math.max(1, ...series);
  ctx.strokeStyle = '#2a3542'; ctx.fillStyle = '#8a97a6'; ctx.font = (11 * (window.devicePixelRatio || 1)) + 'px sans-serif';
  for (const f of [0, 0.5, 1]) {
    const y = h - pad - f * (h - 2 * pad);
    ctx.beginPath(); ctx.moveTo(pad, y); ctx.lineTo(w, y); ctx.stroke();
    ctx.fillText(String(Math.round(f * max)), 2, y + 4);
  }
  ctx.fillText('-15 min', pad, h - 6); ctx.fillText('now', w - 28 * (window.devicePixelRatio || 1), h - 6);
  if (!series.length) { ctx.fillText('no coordinator data', w / 2 - 50, h / 2); return; }
  const bw = (w - pad) / series.length;
  ctx.fillStyle = '#3ecf8e';
  series.forEach((n, i) => {
    const bh = (n / max) * (h - 2 * pad);
    ctx.fillRect(pad + i * bw + 1, h - pad - bh, Math.max(1, bw - 2), bh);
  });
}

function strip(job, detail) {
  const s = el('div', { class: 'strip', 'data-job': job.job, 'data-verified': String(job.verified),
                        'data-partitions': String(job.partitions) });
  const n = job.partitions;
  if (detail && Array.isArray(detail.partition_states)) {
    const parts = detail.partition_states, step = Math.max(1, Math.ceil(parts.length / MAX_CELLS));
    for (let i = 0; i < parts.length; i += step) {
      // A cell stands for `step` partitions: it shows the least advanced of them.
      let st = parts[i].state;
      for (let k = i; k < Math.min(parts.length, i + step); k++)
        if (STATES.indexOf(parts[k].state) < STATES.indexOf(st)) st = parts[k].state;
      s.append(el('i', { class: 's-' + st, 'data-state': st, title: 'partition ' + parts[i].partition + ': ' + st }));
    }
  } else {
    // No detail fetched (older jobs): verified share only.
    const cells = Math.min(n, MAX_CELLS), done = job.state === 'done' ? cells : Math.round(cells * job.verified / Math.max(1, n));
    for (let i = 0; i < cells; i++) s.append(el('i', { class: 's-' + (i < done ? 'verified' : job.state === 'failed' ? 'failed' : job.state === 'cancelled' ? 'cancelled' : 'queued') }));
  }
  return s;
}

async function refresh() {
  let farm;
  try {
    farm = await api('/api/v1/farm?recent=15');
  } catch (e) {
    window.zkErrors.push('farm: ' + e.message);
    $('banner').style.display = 'block'; $('banner').textContent = 'Cannot read the farm: ' + e.message;
    $('redis').className = 'pill bad'; $('redis').textContent = 'API unreachable';
    return;
  }
  $('banner').style.display = 'none';
  $('redis').className = 'pill ok'; $('redis').textContent = 'redis ok';
  const co = farm.coordinator;
  $('coord').className = 'pill ' + (co ? 'ok' : 'bad');
  $('coord').textContent = co ? 'coordinator up ' + Math.round((co.updated_ms - co.started_ms) / 60000) + ' min' : 'no coordinator';
  $('updated').textContent = 'updated ' + new Date().toLocaleTimeString();

  const t = farm.throughput;
  fill('summary', [['running jobs', farm.jobs.running], ['queued jobs', farm.jobs.queued], ['done', farm.jobs.done],
    ['failed', farm.jobs.failed], ['cancelled', farm.jobs.cancelled], ['workers', farm.workers.length],
    ['partitions in flight', farm.leases], ['proofs last min', t ? t.last_minute : '-']]);
  fill('queues', [['synth', farm.queues.synth], ['prove', farm.queues.prove], ['retry backoff', farm.queues.delayed],
    ['partitions queued', farm.partitions.queued]]);
  drawChart(t);
  $('tput').textContent = t ? (t.last_minute + ' proofs in the last minute (' + (t.last_minute / 60).toFixed(2) + '/s)') : '';

  const wb = $('workers').tBodies[0];
  wb.replaceChildren(...farm.workers.map((w) => {
    const p = w.partition, gpus = (w.gpus || []).map((g) => (g.name ? g.name : 'GPU ' + (g.index !== undefined ? g.index : g)));
    return el('tr', { 'data-worker': w.worker },
      el('td', { text: w.worker }), el('td', { text: w.role }),
      el('td', { text: w.quarantined ? 'quarantined' : w.paused ? 'paused (failing)' : w.draining ? 'draining' : w.busy ? 'busy' : 'idle' }),
      el('td', { text: gpus.length ? gpus.join(', ') : '-' }),
      el('td', { text: p ? p.job + ' #' + p.partition + ' (' + p.state + ')' : '-' }),
      el('td', { text: String((w.circuits || []).length), title: (w.circuits || []).join('\n') }),
      el('td', { text: ago(Math.max(0, (w.updated_ms || 0) - (w.last_seen_ms || 0))) }));
  }));
  if (!farm.workers.length) wb.append(el('tr', {}, el('td', { class: 'empty', colspan: '7', text: 'no workers registered' })));

  // Partition detail for the unfinished jobs first, then the newest others.
  const jobs = farm.recent_jobs;
  const wanted = jobs.filter((j) => j.state === 'running' || j.state === 'queued').concat(
    jobs.filter((j) => j.state !== 'running' && j.state !== 'queued')).slice(0, DETAIL_JOBS);
  const details = {};
  await Promise.all(wanted.map(async (j) => {
    try { details[j.job] = await api('/api/v1/jobs/' + encodeURIComponent(j.job)); } catch (e) { /* shown without detail */ }
  }));
  const jb = $('jobs').tBodies[0];
  jb.replaceChildren(...jobs.map((j) => el('tr', { 'data-job': j.job, 'data-state': j.state },
    el('td', { text: j.job }), el('td', {}, el('span', { class: 'state s-' + j.state, text: j.state })),
    el('td', { text: j.verified + '/' + j.partitions }), el('td', { text: String(j.priority) }),
    el('td', { class: 'strip-cell' }, strip(j, details[j.job])),
    el('td', { class: 'err', text: j.error || '' }))));
  if (!jobs.length) jb.append(el('tr', {}, el('td', { class: 'empty', colspan: '6', text: 'no jobs yet' })));
  document.body.setAttribute('data-ready', String(Number(document.body.getAttribute('data-ready') || 0) + 1));
}

$('legend').replaceChildren(...STATES.map((s) => el('span', {}, el('i', { class: 's-' + s }), s)));
async function loop() {
  try { await refresh(); } catch (e) { window.zkErrors.push(String(e && e.stack || e)); }
  $('errors').textContent = window.zkErrors.join('\n');
  $('errors').setAttribute('data-count', String(window.zkErrors.length));
  setTimeout(loop, POLL_MS);
}
loop();
</script>
</body>
</html>
)zkmill-html";

}  // namespace

std::string_view dashboard_html() { return kPage; }

}  // namespace zkmill::farm
