// The viewer inside `ztrace report`'s HTML file (docs/design/report.md): it
// decodes the trace's slices, counters, flows and loss marks from the
// file's own data block and draws a zoomable timeline, a flame graph, the
// top slices and the trace's stats. No network, no library.
//
// Drawing costs what is visible, not what the trace holds: on each row the
// slices wider than a pixel are drawn, and where they are narrower one
// pixel column stands for all that fall in it (found by binary search), so
// a million slices draw in a few milliseconds at any zoom.
'use strict';

(function () {
  const report = { ready: false, errors: [], lastFrame: null, frames: 0 };
  window.ztReport = report;

  // ---- Decoding ---------------------------------------------------------
  class Reader {
    constructor(bytes) { this.b = bytes; this.p = 0; }
    varint() {
      let result = 0, scale = 1, byte;
      do {
        if (this.p >= this.b.length) throw new Error('data block cut short');
        byte = this.b[this.p++];
        result += (byte & 0x7f) * scale;
        scale *= 128;
      } while (byte & 0x80);
      return result;
    }
    zigzag() { const v = this.varint(); return v % 2 ? -(v + 1) / 2 : v / 2; }
    f64() {
      const view = new DataView(this.b.buffer, this.b.byteOffset + this.p, 8);
      this.p += 8;
      return view.getFloat64(0, true);
    }
    text() {
      const n = this.varint();
      const s = new TextDecoder().decode(this.b.subarray(this.p, this.p + n));
      this.p += n;
      return s;
    }
  }

  async function inflate(base64) {
    const raw = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const stream = new Blob([raw]).stream().pipeThrough(new DecompressionStream('deflate'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  function decode(bytes, meta) {
    const r = new Reader(bytes);
    const span = Math.max(1, meta.end - meta.start);
    // Version 2: the strings come last (the block streams out as it is
    // made); labels and marks name them by index until then.
    if (r.varint() !== 2) throw new Error('unknown data block version');
    const tracks = [];
    let first = 0;
    const trackCount = r.varint();
    for (let t = 0; t < trackCount; t++) {
      const track = { label: r.varint(), kind: r.varint(), first };
      const n = r.varint();
      track.count = n;
      let ts = 0;  // Times from the trace's start: exact as doubles.
      if (track.kind === 0) {
        track.ts = new Float64Array(n); track.end = new Float64Array(n);
        track.depth = new Uint32Array(n); track.name = new Uint32Array(n);
        track.cat = new Uint32Array(n); track.open = new Uint8Array(n);
        let maxDepth = 0;
        for (let i = 0; i < n; i++) {
          ts += r.zigzag();
          const dur = r.varint();
          track.ts[i] = ts;
          track.open[i] = dur === 0 ? 1 : 0;
          track.end[i] = dur === 0 ? span : ts + dur - 1;
          track.depth[i] = r.varint();
          track.name[i] = r.varint();
          track.cat[i] = r.varint();
          if (track.depth[i] > maxDepth) maxDepth = track.depth[i];
        }
        track.maxDepth = n ? maxDepth : -1;
        // Per depth, the slices in time order (they do not overlap there).
        const counts = new Uint32Array(maxDepth + 1);
        for (let i = 0; i < n; i++) counts[track.depth[i]]++;
        track.rows = Array.from(counts, (c) => new Uint32Array(c));
        counts.fill(0);
        for (let i = 0; i < n; i++) track.rows[track.depth[i]][counts[track.depth[i]]++] = i;
        first += n;
      } else {
        track.ts = new Float64Array(n); track.value = new Float64Array(n);
        let lo = Infinity, hi = -Infinity;
        for (let i = 0; i < n; i++) {
          ts += r.zigzag();
          track.ts[i] = ts;
          const v = r.f64();
          track.value[i] = v;
          if (v < lo) lo = v;
          if (v > hi) hi = v;
        }
        track.lo = lo; track.hi = hi;
      }
      tracks.push(track);
    }
    const flows = [];
    const flowCount = r.varint();
    for (let i = 0; i < flowCount; i++) flows.push([r.varint(), r.varint()]);
    const marks = [];
    const markCount = r.varint();
    for (let i = 0; i < markCount; i++) {
      const ts = r.zigzag();
      marks.push({ ts, track: r.varint() - 1, what: r.varint() });
    }
    const strings = new Array(r.varint());
    for (let i = 0; i < strings.length; i++) strings[i] = r.text();
    for (const track of tracks) track.label = strings[track.label];
    for (const mark of marks) mark.what = strings[mark.what];
    return { strings, tracks, flows, marks };
  }

  // ---- Helpers ----------------------------------------------------------
  function formatNs(ns) {
    const a = Math.abs(ns);
    if (a >= 1e9) return (ns / 1e9).toFixed(3) + ' s';
    if (a >= 1e6) return (ns / 1e6).toFixed(3) + ' ms';
    if (a >= 1e3) return (ns / 1e3).toFixed(3) + ' us';
    return Math.round(ns) + ' ns';
  }
  function hashColor(id, light) {
    const h = (id * 2654435761) % 360;
    return `hsl(${h}, 55%, ${light || 62}%)`;
  }
  // The first index in `rows` (indices into `end`) whose end is after t.
  function firstEndingAfter(rows, end, t) {
    let lo = 0, hi = rows.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (end[rows[mid]] <= t) lo = mid + 1; else hi = mid; }
    return lo;
  }
  function firstStartingAt(rows, ts, t, lo) {
    let hi = rows.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (ts[rows[mid]] < t) lo = mid + 1; else hi = mid; }
    return lo;
  }
  function lowerBound(sorted, t) {
    let lo = 0, hi = sorted.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (sorted[mid] < t) lo = mid + 1; else hi = mid; }
    return lo;
  }
  function escapeHtml(s) {
    return String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
  }

  // ---- Timeline ---------------------------------------------------------
  const LABEL = 220, ROW = 16, HEADER = 18, COUNTER = 48;

  function Timeline(data, meta) {
    const canvas = document.getElementById('tl');
    const tip = document.getElementById('tip');
    const ctx = canvas.getContext('2d');
    const span = Math.max(1, meta.end - meta.start);
    const view = { t0: 0, t1: span, y: 0 };
    const layout = [];
    let y = 0;
    for (const track of data.tracks) {
      const height = HEADER + (track.kind === 0 ? (track.maxDepth + 1) * ROW : COUNTER) + 6;
      layout.push({ track, y, height });
      y += height;
    }
    const totalHeight = y;
    const globalIndex = [];  // global slice index -> [track, index]
    for (const track of data.tracks) if (track.kind === 0) for (let i = 0; i < track.count; i++) globalIndex.push(track);

    function size() {
      const ratio = window.devicePixelRatio || 1;
      const width = canvas.parentElement.clientWidth - 24;  // The section's padding.
      const height = Math.max(200, window.innerHeight - canvas.getBoundingClientRect().top - 16);
      canvas.width = width * ratio; canvas.height = height * ratio;
      canvas.style.width = width + 'px'; canvas.style.height = height + 'px';
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      return { width, height };
    }
    let dims = size();
    const xOf = (t) => LABEL + (t - view.t0) * (dims.width - LABEL) / (view.t1 - view.t0);
    const tOf = (x) => view.t0 + (x - LABEL) * (view.t1 - view.t0) / (dims.width - LABEL);

    // Templight: a colour per kind (its category); otherwise per name.
    function colorOf(track, i) {
      return meta.templight && track.cat[i] ? hashColor(track.cat[i], 60) : hashColor(track.name[i], 70);
    }

    function draw() {
      const frame = { rects: 0, columns: 0, labels: 0, counters: 0, flows: 0, marks: 0 };
      ctx.clearRect(0, 0, dims.width, dims.height);
      ctx.font = '11px sans-serif';
      ctx.textBaseline = 'middle';
      const width = dims.width - LABEL;
      const nsPerPx = (view.t1 - view.t0) / width;
      for (const { track, y: top, height } of layout) {
        const ty = top - view.y;
        if (ty > dims.height || ty + height < 0) continue;
        ctx.fillStyle = '#f3f3f3';
        ctx.fillRect(0, ty, dims.width, HEADER);
        ctx.fillStyle = '#222';
        ctx.fillText(track.label, 4, ty + HEADER / 2, LABEL + width - 8);
        if (track.kind === 0) {
          for (let d = 0; d <= track.maxDepth; d++) {
            const rowY = ty + HEADER + d * ROW;
            if (rowY > dims.height || rowY + ROW < 0) continue;
            const rows = track.rows[d];
            let k = firstEndingAfter(rows, track.end, view.t0);
            while (k < rows.length) {
              const i = rows[k];
              const start = track.ts[i];
              if (start >= view.t1) break;
              const x0 = xOf(start), x1 = xOf(track.end[i]);
              if (x1 - x0 < 1) {
                // Everything starting in this pixel column: one column.
                const column = Math.floor(Math.max(x0, LABEL));
                ctx.fillStyle = colorOf(track, i);
                ctx.fillRect(column, rowY + 1, 1, ROW - 2);
                frame.columns++;
                k = firstStartingAt(rows, track.ts, tOf(column + 1), k + 1);
                continue;
              }
              const left = Math.max(x0, LABEL), right = Math.min(x1, dims.width);
              ctx.fillStyle = colorOf(track, i);
              ctx.fillRect(left, rowY + 1, right - left, ROW - 2);
              if (track.open[i]) {  // Never ended: a hatched end.
                ctx.fillStyle = 'rgba(0,0,0,0.25)';
                ctx.fillRect(right - 3, rowY + 1, 3, ROW - 2);
              }
              frame.rects++;
              if (right - left > 40) {
                ctx.save();
                ctx.beginPath();
                ctx.rect(left, rowY, right - left, ROW);
                ctx.clip();
                ctx.fillStyle = '#111';
                ctx.fillText(data.strings[track.name[i]], left + 3, rowY + ROW / 2);
                ctx.restore();
                frame.labels++;
              }
              k++;
            }
          }
        } else {
          // Counter: per pixel column its min and max.
          const base = ty + HEADER + COUNTER, span = track.hi - track.lo || 1;
          const yOf = (v) => base - (v - track.lo) / span * (COUNTER - 4);
          ctx.strokeStyle = '#1565c0';
          ctx.beginPath();
          // From the value before the window; a pixel column's values as one
          // vertical stroke from its lowest to its highest.
          let k = Math.max(0, lowerBound(track.ts, view.t0) - 1);
          let column = -1, lo = 0, hi = 0, started = false;
          for (; k < track.count; k++) {
            const x = Math.floor(Math.max(LABEL, xOf(track.ts[k])));
            const v = track.value[k];
            if (x === column) {
              lo = Math.min(lo, v); hi = Math.max(hi, v);
            } else {
              if (started) { ctx.lineTo(column, yOf(lo)); ctx.lineTo(column, yOf(hi)); }
              else { ctx.moveTo(x, yOf(v)); started = true; }
              column = x; lo = v; hi = v;
              frame.counters++;
            }
            if (track.ts[k] > view.t1) break;
          }
          if (started) { ctx.lineTo(column, yOf(lo)); ctx.lineTo(column, yOf(hi)); }
          ctx.stroke();
          ctx.fillStyle = '#555';
          ctx.fillText(`${track.lo} .. ${track.hi}`, 4, ty + HEADER + COUNTER / 2);
        }
      }
      // Flows: arrows between visible ends (at most a few thousand).
      ctx.strokeStyle = 'rgba(200, 60, 0, 0.8)';
      for (const [from, to] of data.flows) {
        if (frame.flows > 4000) break;
        const a = locate(from), b = locate(to);
        if (!a || !b) continue;
        if (b.track.ts[b.i] < view.t0 && a.track.end[a.i] < view.t0) continue;
        if (a.track.end[a.i] > view.t1 && b.track.ts[b.i] > view.t1) continue;
        const xa = xOf(a.track.end[a.i]), xb = xOf(b.track.ts[b.i]);
        if ((xa < LABEL && xb < LABEL) || (xa > dims.width && xb > dims.width)) continue;
        const ya = a.y + ROW / 2, yb = b.y + ROW / 2;
        ctx.beginPath(); ctx.moveTo(xa, ya); ctx.lineTo(xb, yb); ctx.stroke();
        ctx.beginPath(); ctx.moveTo(xb, yb); ctx.lineTo(xb - 6, yb - 3); ctx.lineTo(xb - 6, yb + 3); ctx.fill();
        frame.flows++;
      }
      // Loss marks: where data was lost, in red.
      ctx.fillStyle = '#d00';
      for (const mark of data.marks) {
        const x = xOf(mark.ts);
        if (x < LABEL || x > dims.width) continue;
        const entry = mark.track >= 0 ? layout[mark.track] : null;
        const top = entry ? entry.y - view.y : 0, height = entry ? entry.height : dims.height;
        ctx.fillRect(x - 1, top, 2, height);
        ctx.beginPath(); ctx.moveTo(x - 5, top); ctx.lineTo(x + 5, top); ctx.lineTo(x, top + 8); ctx.fill();
        frame.marks++;
      }
      // Time axis.
      ctx.fillStyle = 'rgba(255,255,255,0.9)';
      ctx.fillRect(LABEL, dims.height - 16, width, 16);
      ctx.fillStyle = '#333';
      const step = Math.pow(10, Math.floor(Math.log10(nsPerPx * 120)));
      for (let t = Math.ceil(view.t0 / step) * step; t < view.t1; t += step) {
        const x = xOf(t);
        ctx.fillRect(x, dims.height - 16, 1, 5);
        ctx.fillText(formatNs(t), x + 2, dims.height - 7);
      }
      report.lastFrame = frame;
      report.frames++;
    }

    const layoutOf = new Map(layout.map((entry) => [entry.track, entry]));
    function locate(global) {
      const track = globalIndex[global];
      if (!track) return null;
      const i = global - track.first;
      const entry = layoutOf.get(track);
      return { track, i, y: entry.y - view.y + HEADER + track.depth[i] * ROW };
    }

    function hit(x, yPx) {
      const y = yPx + view.y;
      for (const { track, y: top } of layout) {
        if (track.kind !== 0 || y < top + HEADER) continue;
        const d = Math.floor((y - top - HEADER) / ROW);
        if (d > track.maxDepth) continue;
        const rows = track.rows[d], t = tOf(x);
        const k = firstEndingAfter(rows, track.end, t);
        if (k < rows.length && track.ts[rows[k]] <= t) return { track, i: rows[k] };
        // In a merged column: the slice nearest the pointer.
        const slop = (view.t1 - view.t0) / (dims.width - LABEL);
        if (k < rows.length && track.ts[rows[k]] <= t + slop) return { track, i: rows[k] };
        return null;
      }
      return null;
    }

    let dragging = null, frameRequested = false;
    function redraw() {
      if (frameRequested) return;
      frameRequested = true;
      requestAnimationFrame(() => { frameRequested = false; draw(); });
    }
    function zoom(factor, atX) {
      const t = tOf(atX === undefined ? LABEL + (dims.width - LABEL) / 2 : atX);
      const span = Math.max(10, (view.t1 - view.t0) * factor);
      const f = (t - view.t0) / (view.t1 - view.t0);
      view.t0 = t - span * f; view.t1 = view.t0 + span;
      redraw();
    }
    function pan(dt, dy) {
      view.t0 += dt; view.t1 += dt;
      view.y = Math.max(0, Math.min(Math.max(0, totalHeight - dims.height + 20), view.y + dy));
      redraw();
    }
    canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      if (e.ctrlKey || e.metaKey) zoom(Math.exp(e.deltaY * 0.002), e.offsetX);
      else if (e.shiftKey) pan(e.deltaY * (view.t1 - view.t0) / (dims.width - LABEL), 0);
      else pan(e.deltaX * (view.t1 - view.t0) / (dims.width - LABEL), e.deltaY);
    }, { passive: false });
    canvas.addEventListener('mousedown', (e) => { dragging = { x: e.offsetX, y: e.offsetY }; });
    window.addEventListener('mouseup', () => { dragging = null; });
    canvas.addEventListener('mousemove', (e) => {
      if (dragging) {
        pan(-(e.offsetX - dragging.x) * (view.t1 - view.t0) / (dims.width - LABEL), -(e.offsetY - dragging.y));
        dragging = { x: e.offsetX, y: e.offsetY };
        tip.style.display = 'none';
        return;
      }
      const h = hit(e.offsetX, e.offsetY);
      if (!h) { tip.style.display = 'none'; return; }
      const { track, i } = h;
      const dur = track.open[i] ? 'did not end' : formatNs(track.end[i] - track.ts[i]);
      const cat = track.cat[i] ? `<br>${escapeHtml(data.strings[track.cat[i]])}` : '';
      tip.innerHTML = `<b>${escapeHtml(data.strings[track.name[i]])}</b>${cat}<br>${dur} at ${formatNs(track.ts[i])}`;
      tip.style.display = 'block';
      tip.style.left = Math.min(e.pageX + 12, window.innerWidth - 420) + 'px';
      tip.style.top = (e.pageY + 12) + 'px';
    });
    canvas.addEventListener('mouseleave', () => { tip.style.display = 'none'; });
    canvas.addEventListener('dblclick', (e) => zoom(0.5, e.offsetX));
    window.addEventListener('keydown', (e) => {
      if (document.getElementById('timeline').hidden) return;
      const span = view.t1 - view.t0;
      if (e.key === 'w') zoom(0.8); else if (e.key === 's') zoom(1.25);
      else if (e.key === 'a') pan(-span * 0.1, 0); else if (e.key === 'd') pan(span * 0.1, 0);
    });
    document.getElementById('zoom-in').onclick = () => zoom(0.5);
    document.getElementById('zoom-out').onclick = () => zoom(2);
    document.getElementById('zoom-reset').onclick = () => { view.t0 = 0; view.t1 = span; view.y = 0; redraw(); };
    window.addEventListener('resize', () => { dims = size(); redraw(); });

    this.draw = draw;
    this.setView = (t0, t1) => { view.t0 = t0; view.t1 = t1; draw(); };
    this.resize = () => { dims = size(); draw(); };
  }

  // ---- Aggregates: flame graph nodes and top slices ---------------------
  function aggregate(data) {
    // Flame graph: stacks of names merged over every track; per node its
    // total and self time. Top slices: per name, count, total, self.
    const nodes = [{ parent: -1, name: -1, total: 0, self: 0, children: [] }];
    const byName = new Map();
    for (const track of data.tracks) {
      if (track.kind !== 0) continue;
      const stack = [];  // [end, node, slice]
      for (let i = 0; i < track.count; i++) {
        const ts = track.ts[i], end = track.end[i];
        while (stack.length && stack[stack.length - 1][0] <= ts) stack.pop();
        const parentNode = stack.length ? stack[stack.length - 1][1] : 0;
        const name = track.name[i];
        const parent = nodes[parentNode];
        if (!parent.byName) parent.byName = new Map();
        let node = parent.byName.get(name);
        if (node === undefined) {
          node = nodes.length;
          nodes.push({ parent: parentNode, name, total: 0, self: 0, children: [] });
          parent.children.push(node);
          parent.byName.set(name, node);
        }
        const dur = Math.max(0, end - ts);
        nodes[node].total += dur;
        nodes[node].self += dur;
        if (stack.length) nodes[stack[stack.length - 1][1]].self -= dur;
        else nodes[0].total += dur;
        let entry = byName.get(name);
        if (!entry) { entry = { name, count: 0, total: 0, self: 0 }; byName.set(name, entry); }
        entry.count++;
        entry.total += dur;
        entry.self += dur;
        if (stack.length) byName.get(stack[stack.length - 1][2]).self -= dur;
        stack.push([end, node, name]);
      }
    }
    return { nodes, byName: Array.from(byName.values()) };
  }

  function Flame(data, nodes) {
    const canvas = document.getElementById('fg');
    const ctx = canvas.getContext('2d');
    let focus = 0, dims = null;
    const rects = [];
    function draw() {
      const ratio = window.devicePixelRatio || 1;
      const width = canvas.parentElement.clientWidth - 24;
      // Both walks keep their own stack: a trace nested deeper than the
      // JS engine's call stack (~10k frames) still draws.
      let depth = 0;
      const minTotal = 0.5 * Math.max(1, nodes[focus].total) / width;
      for (const todo = [[focus, 0]]; todo.length;) {
        const [n, d] = todo.pop();
        if (d > depth) depth = d;
        for (const c of nodes[n].children) if (nodes[c].total >= minTotal) todo.push([c, d + 1]);
      }
      const height = Math.min(20000, (depth + 1) * ROW + 4);
      canvas.width = width * ratio; canvas.height = height * ratio;
      canvas.style.width = width + 'px'; canvas.style.height = height + 'px';
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.font = '11px sans-serif'; ctx.textBaseline = 'middle';
      dims = { width, height };
      rects.length = 0;
      let drawn = 0;
      const scale = width / Math.max(1, nodes[focus].total);
      for (const todo = [[focus, 0, 0]]; todo.length;) {
        const [n, x, d] = todo.pop();
        const w = nodes[n].total * scale;
        if (w < 0.5) continue;
        const label = n === 0 ? 'all' : data.strings[nodes[n].name];
        ctx.fillStyle = n === 0 ? '#ccc' : hashColor(nodes[n].name, 68);
        ctx.fillRect(x, d * ROW, Math.max(1, w - 1), ROW - 1);
        rects.push([x, d * ROW, w, n]);
        drawn++;
        if (w > 40) {
          ctx.save(); ctx.beginPath(); ctx.rect(x, d * ROW, w, ROW); ctx.clip();
          ctx.fillStyle = '#111'; ctx.fillText(label, x + 3, d * ROW + ROW / 2); ctx.restore();
        }
        let cx = x;
        for (const c of nodes[n].children) { todo.push([c, cx, d + 1]); cx += nodes[c].total * scale; }
      }
      report.flameDrawn = drawn;
    }
    canvas.addEventListener('click', (e) => {
      for (const [x, y, w, n] of rects) {
        if (e.offsetX >= x && e.offsetX < x + w && e.offsetY >= y && e.offsetY < y + ROW) {
          focus = n === focus ? Math.max(0, nodes[n].parent) : n;
          draw();
          return;
        }
      }
    });
    const tip = document.getElementById('tip');
    canvas.addEventListener('mousemove', (e) => {
      for (const [x, y, w, n] of rects) {
        if (e.offsetX >= x && e.offsetX < x + w && e.offsetY >= y && e.offsetY < y + ROW) {
          const node = nodes[n];
          tip.innerHTML = `<b>${escapeHtml(n === 0 ? 'all' : data.strings[node.name])}</b><br>total ${formatNs(node.total)}, self ${formatNs(node.self)}`;
          tip.style.display = 'block';
          tip.style.left = Math.min(e.pageX + 12, window.innerWidth - 420) + 'px';
          tip.style.top = (e.pageY + 12) + 'px';
          return;
        }
      }
      tip.style.display = 'none';
    });
    canvas.addEventListener('mouseleave', () => { tip.style.display = 'none'; });
    this.draw = draw;
  }

  function topTables(data, byName) {
    const table = (key, title) => {
      const rows = byName.slice().sort((a, b) => b[key] - a[key]).slice(0, 50);
      let html = `<h3>${title}</h3><table><tr><th>name</th><th>count</th><th>total</th><th>self</th></tr>`;
      for (const r of rows) {
        html += `<tr><td>${escapeHtml(data.strings[r.name])}</td><td class=n>${r.count}</td>` +
                `<td class=n>${formatNs(r.total)}</td><td class=n>${formatNs(r.self)}</td></tr>`;
      }
      return html + '</table>';
    };
    document.getElementById('top').innerHTML =
      table('self', 'Top slices by self time') + table('total', 'Top slices by total time');
  }

  function statsTable(meta, marks) {
    let html = '';
    const losses = meta.stats.filter((s) => s.loss && s.value);
    html += losses.length || marks.length
      ? `<p class=loss>Data was lost: ${losses.length} stat(s) of data loss, ${marks.length} place(s) marked in the timeline.</p>`
      : '<p>No data loss recorded.</p>';
    html += '<table><tr><th>stat</th><th>index</th><th>value</th><th>severity</th><th>source</th><th>what it counts</th></tr>';
    for (const s of meta.stats) {
      html += `<tr class="${s.loss && s.value ? 'loss' : ''}"><td>${escapeHtml(s.name)}</td>` +
              `<td>${s.idx === null ? '' : s.idx}</td><td class=n>${s.value}</td><td>${s.severity}</td>` +
              `<td>${s.source}</td><td>${escapeHtml(s.description)}</td></tr>`;
    }
    document.getElementById('stats').innerHTML = html + '</table>';
  }

  // ---- Start ------------------------------------------------------------
  async function start() {
    const meta = JSON.parse(document.getElementById('zt-meta').textContent);
    const bytes = await inflate(document.getElementById('zt-data').textContent.trim());
    const data = decode(bytes, meta);
    report.sliceCount = data.tracks.reduce((n, t) => n + (t.kind === 0 ? t.count : 0), 0);
    report.trackCount = data.tracks.length;
    report.flowCount = data.flows.length;
    report.markCount = data.marks.length;
    if (meta.templight) {  // The kinds' colours.
      const kinds = new Set();
      for (const t of data.tracks) if (t.kind === 0) for (let i = 0; i < t.count; i++) if (t.cat[i]) kinds.add(t.cat[i]);
      const legend = document.getElementById('legend');
      legend.innerHTML = Array.from(kinds).map((k) =>
        `<span class=kind style="background:${hashColor(k, 60)}">${escapeHtml(data.strings[k])}</span>`).join(' ');
    }
    const timeline = new Timeline(data, meta);
    const aggregates = aggregate(data);
    report.flameNodes = aggregates.nodes.length - 1;
    const flame = new Flame(data, aggregates.nodes);
    topTables(data, aggregates.byName);
    statsTable(meta, data.marks);
    const tabs = ['timeline', 'flame', 'top', 'stats'];
    report.showTab = (name) => {
      for (const t of tabs) {
        document.getElementById(t).hidden = t !== name;
        document.getElementById('tab-' + t).classList.toggle('on', t === name);
      }
      if (name === 'timeline') timeline.resize();
      if (name === 'flame') flame.draw();
    };
    for (const t of tabs) document.getElementById('tab-' + t).onclick = () => report.showTab(t);
    report.setView = timeline.setView;
    report.showTab('timeline');
    report.ready = true;
  }
  window.addEventListener('error', (e) => report.errors.push(String(e.message)));
  start().catch((e) => {
    report.errors.push(String(e && e.message || e));
    document.getElementById('failure').textContent = 'This report could not be shown: ' + (e && e.message || e);
    document.getElementById('failure').hidden = false;
  });
})();
