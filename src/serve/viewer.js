// The chompute viewer: a deep zoom into C(m,n) for m, n up to 2^64-1, drawn from the
// server's Deep Zoom tiles (/dzi/...) on a canvas, with the exact cell and block under the
// pointer from /api/cell and /api/count.
//
// Coordinates are BigInt: the view's centre is held in units of 2^-16 cell, so a bar of
// 2^64-1 cells a side can be panned cell by cell and zoomed into single cells (doubles are
// exact only to 2^53). Zoom z is a real number: a screen pixel shows 2^(top-z) cells, where
// top = ceil(log2 max(m,n)) is the pyramid's top level; tiles of level min(top, ceil(z)) are
// drawn, so a tile pixel never covers more than one screen pixel... or two, while zooming.
// The root element counts the tiles drawn (data-tiles-loaded) and the errors (data-errors);
// every error also goes to console.error.
"use strict";
(() => {
  const TILE = 256;
  const FRAC = 16;                // fractional bits of the centre
  const FRACN = BigInt(FRAC);
  const MAX_MAGNIFY = 6;          // up to 2^6 screen pixels a cell
  const MAX_PARALLEL = 8;         // tile fetches at once
  const MAX_TILES_KEPT = 800;     // decoded tiles kept for redraws
  const LIMIT = (1n << 64n) - 1n;

  const root = document.documentElement;
  const canvas = document.getElementById("view");
  const ctx = canvas.getContext("2d");
  const info = document.getElementById("info");
  const where = document.getElementById("where");
  const inputs = {
    m: document.getElementById("m"),
    n: document.getElementById("n"),
    shade: document.getElementById("shade"),
    p: document.getElementById("pcolour"),
    n2: document.getElementById("ncolour"),
  };

  let errors = 0;
  let tilesLoaded = 0;
  function report(message) {
    errors += 1;
    root.dataset.errors = String(errors);
    root.dataset.lastError = String(message).slice(0, 300);
    console.error("chompute viewer: " + message);
  }
  window.addEventListener("error", (e) => report(e.message || "script error"));
  window.addEventListener("unhandledrejection", (e) => report(String(e.reason)));

  // ---- the view -------------------------------------------------------------------------
  // A page opened with no view in its URL shows C(30001,30001) whole on the sqrt shade:
  // its structure (P(s) in the corners, P(t) in the centre) shows at once, where the whole of
  // C(2^64-1) is a flat grey square at any shade. Any bar is one edit of the boxes away.
  const view = {
    m: 30001n,
    n: 30001n,
    top: 15,
    cx: 0n,   // centre column, in 2^-16 cells from the left edge
    cy: 0n,   // centre row, likewise from the top edge
    z: 0,
    shade: "linear",
    colors: null,  // "#rrggbb,#rrggbb" or null for black on white
  };

  const bitLength = (v) => (v <= 0n ? 0 : v.toString(2).length);
  const topLevel = (m, n) => bitLength((m > n ? m : n) - 1n);
  const minBig = (a, b) => (a < b ? a : b);
  const maxBig = (a, b) => (a > b ? a : b);
  const floorDiv = (a, b) => {
    const q = a / b;
    return a % b !== 0n && (a < 0n) !== (b < 0n) ? q - 1n : q;
  };

  function parseBar(text) {
    const s = String(text).trim().replace(/_/g, "");
    if (!/^[0-9]{1,20}$/.test(s)) return null;
    const v = BigInt(s);
    return v >= 1n && v <= LIMIT ? v : null;
  }

  // Screen pixels (device pixels) to 2^-16 cells at zoom z, exactly rounded to a unit.
  function pxToFine(d, z = view.z) {
    const e = FRAC + view.top - z;        // log2 of units per pixel, ≥ FRAC - MAX_MAGNIFY
    const ei = Math.floor(e) - 24;
    const v = BigInt(Math.round(d * Math.pow(2, e - ei)));
    return ei >= 0 ? v << BigInt(ei) : v >> BigInt(-ei);
  }

  // A distance in 2^-16 cells to screen pixels (only for what is near the screen).
  function fineToPx(f) {
    return Number(f) / Math.pow(2, FRAC + view.top - view.z);
  }

  function size() {
    return { w: canvas.width, h: canvas.height };
  }

  function zoomLimits() {
    const { w, h } = size();
    const fit = fitZoom(w, h);
    return [Math.min(fit - 2, 0), view.top + MAX_MAGNIFY];
  }

  function fitZoom(w, h) {
    const scale = Math.min(w / Number(view.n), h / Number(view.m)) * 0.94;
    return view.top + Math.log2(scale);
  }

  function fit() {
    const { w, h } = size();
    view.z = fitZoom(w, h);
    view.cx = (view.n << FRACN) / 2n;
    view.cy = (view.m << FRACN) / 2n;
    clampView();
  }

  function clampView() {
    const [lo, hi] = zoomLimits();
    view.z = Math.min(hi, Math.max(lo, view.z));
    view.cx = minBig(maxBig(view.cx, 0n), view.n << FRACN);
    view.cy = minBig(maxBig(view.cy, 0n), view.m << FRACN);
  }

  // ---- the URL holds the view: /?m=..&n=..&x=..&y=..&z=..[&shade=..][&colors=..] --------
  function fineToText(f) {
    const whole = f >> FRACN;
    const part = Number(f & ((1n << FRACN) - 1n)) / 2 ** FRAC;
    return part === 0 ? whole.toString() : whole.toString() + part.toFixed(4).slice(1);
  }

  function textToFine(text) {
    const match = /^([0-9]{1,21})(\.[0-9]{1,8})?$/.exec(String(text).trim());
    if (!match) return null;
    const part = match[2] ? Math.round(Number("0" + match[2]) * 2 ** FRAC) : 0;
    return (BigInt(match[1]) << FRACN) + BigInt(part);
  }

  function readUrl() {
    const q = new URLSearchParams(location.search);
    const m = q.has("m") ? parseBar(q.get("m")) : view.m;
    const n = q.has("n") ? parseBar(q.get("n") ?? "") : q.has("m") ? m : view.n;
    if (m === null || n === null) {
      report("the URL's m and n must be whole numbers from 1 to 18446744073709551615");
    } else {
      view.m = m;
      view.n = n;
    }
    view.top = topLevel(view.m, view.n);
    // A URL names its shade only when it is not linear; the opening view is sqrt.
    if (!location.search.replace("?", "")) view.shade = "sqrt";
    if (["linear", "sqrt", "log"].includes(q.get("shade"))) view.shade = q.get("shade");
    const colors = q.get("colors");
    if (colors && /^#?[0-9a-fA-F]{6},#?[0-9a-fA-F]{6}$/.test(colors)) {
      const [p, n2] = colors.split(",").map((c) => "#" + c.replace("#", "").toLowerCase());
      view.colors = p + "," + n2;
    }
    fit();
    const x = q.has("x") ? textToFine(q.get("x")) : null;
    const y = q.has("y") ? textToFine(q.get("y")) : null;
    const z = q.has("z") ? Number(q.get("z")) : NaN;
    if (x !== null) view.cx = x;
    if (y !== null) view.cy = y;
    if (Number.isFinite(z)) view.z = z;
    clampView();
    root.dataset.view = `${view.m}x${view.n} ${view.shade}`;
    const cell = /^([0-9]{1,20}),([0-9]{1,20})$/.exec(q.get("cell") || "");
    if (cell) {
      const row = BigInt(cell[1]), col = BigInt(cell[2]);
      if (row >= 1n && row <= view.m && col >= 1n && col <= view.n) {
        pinned = { row: row - 1n, col: col - 1n };
      }
    }
  }

  let urlTimer = 0;
  function writeUrl() {
    clearTimeout(urlTimer);
    urlTimer = setTimeout(() => {
      const q = new URLSearchParams();
      q.set("m", view.m.toString());
      q.set("n", view.n.toString());
      q.set("x", fineToText(view.cx));
      q.set("y", fineToText(view.cy));
      q.set("z", view.z.toFixed(3));
      if (view.shade !== "linear") q.set("shade", view.shade);
      if (view.colors) q.set("colors", view.colors);
      if (pinned) q.set("cell", `${pinned.row + 1n},${pinned.col + 1n}`);
      try {
        history.replaceState(null, "", "?" + q.toString().replace(/%2C/g, ","));
      } catch (e) {
        // A page opened from a file: the view cannot go into its URL; nothing is lost.
      }
    }, 200);
  }

  function syncInputs() {
    inputs.m.value = view.m.toString();
    inputs.n.value = view.n.toString();
    inputs.shade.value = view.shade;
    const [p, n2] = (view.colors || "#000000,#ffffff").split(",");
    inputs.p.value = p;
    inputs.n2.value = n2;
  }

  // ---- tiles ----------------------------------------------------------------------------
  // url → { bitmap, state: "loading" | "ready" | "failed", abort, used }
  const tiles = new Map();
  let loading = 0;
  let useClock = 0;

  function levelSize(level) {
    const k = BigInt(view.top - level);
    const side = (len) => (len + (1n << k) - 1n) >> k;
    return { w: side(view.n), h: side(view.m) };
  }

  function tileUrl(level, col, row) {
    let url = `/dzi/${view.m}x${view.n}_files/${level}/${col}_${row}.png`;
    const q = [];
    if (view.shade !== "linear") q.push("shade=" + view.shade);
    if (view.colors) q.push("colors=" + encodeURIComponent(view.colors));
    return q.length ? url + "?" + q.join("&") : url;
  }

  function requestTile(url) {
    const abort = new AbortController();
    const entry = { bitmap: null, state: "loading", abort, used: ++useClock };
    tiles.set(url, entry);
    loading += 1;
    fetch(url, { signal: abort.signal })
      .then(async (r) => {
        if (!r.ok) throw new Error(`${url}: ${r.status} ${(await r.text()).trim()}`);
        return createImageBitmap(await r.blob());
      })
      .then((bitmap) => {
        entry.bitmap = bitmap;
        entry.state = "ready";
        tilesLoaded += 1;
        root.dataset.tilesLoaded = String(tilesLoaded);
      })
      .catch((e) => {
        if (e && e.name === "AbortError") {
          tiles.delete(url);
        } else {
          entry.state = "failed";
          report("tile " + (e && e.message ? e.message : e));
        }
      })
      .finally(() => {
        loading -= 1;
        schedule();
      });
  }

  function evictTiles(visible) {
    if (tiles.size <= MAX_TILES_KEPT) return;
    const old = [...tiles.entries()]
      .filter(([url, t]) => t.state !== "loading" && !visible.has(url))
      .sort((a, b) => a[1].used - b[1].used);
    for (const [url, t] of old.slice(0, tiles.size - MAX_TILES_KEPT)) {
      if (t.bitmap) t.bitmap.close();
      tiles.delete(url);
    }
  }

  // The tiles of `level` that cover the screen, nearest the centre first.
  function visibleTiles(level) {
    const { w, h } = size();
    const k = BigInt(view.top - level);
    const tileFine = BigInt(TILE) << (k + FRACN);   // a tile's side in 2^-16 cells
    const { w: lw, h: lh } = levelSize(level);
    const across = (lw + BigInt(TILE) - 1n) / BigInt(TILE);
    const down = (lh + BigInt(TILE) - 1n) / BigInt(TILE);
    const x0 = view.cx - pxToFine(w / 2), x1 = view.cx + pxToFine(w / 2);
    const y0 = view.cy - pxToFine(h / 2), y1 = view.cy + pxToFine(h / 2);
    const c0 = maxBig(floorDiv(x0, tileFine), 0n), c1 = minBig(floorDiv(x1, tileFine), across - 1n);
    const r0 = maxBig(floorDiv(y0, tileFine), 0n), r1 = minBig(floorDiv(y1, tileFine), down - 1n);
    const out = [];
    for (let r = r0; r <= r1; r++) {
      for (let c = c0; c <= c1; c++) {
        const left = fineToPx(c * tileFine - view.cx) + w / 2;
        const topPx = fineToPx(r * tileFine - view.cy) + h / 2;
        const tw = Number(minBig(BigInt(TILE), lw - c * BigInt(TILE)));
        const th = Number(minBig(BigInt(TILE), lh - r * BigInt(TILE)));
        const scale = Math.pow(2, view.z - level);
        out.push({ level, col: c, row: r, left, top: topPx, w: tw * scale, h: th * scale });
      }
    }
    const dist = (t) => Math.hypot(t.left + t.w / 2 - w / 2, t.top + t.h / 2 - h / 2);
    return out.sort((a, b) => dist(a) - dist(b));
  }

  // The nearest loaded ancestor of a tile, drawn (clipped to the tile) while it loads.
  function drawAncestor(t) {
    for (let d = 1; d <= 8 && t.level - d >= 0; d++) {
      const level = t.level - d;
      const col = t.col >> BigInt(d), row = t.row >> BigInt(d);
      const entry = tiles.get(tileUrl(level, col, row));
      if (!entry || entry.state !== "ready") continue;
      const scale = Math.pow(2, view.z - level) * TILE;
      const span = BigInt(TILE) << BigInt(d);       // the ancestor's side in level-t pixels
      const offX = Number(t.col * BigInt(TILE) - col * span) / Math.pow(2, d);
      const offY = Number(t.row * BigInt(TILE) - row * span) / Math.pow(2, d);
      ctx.save();
      ctx.beginPath();
      ctx.rect(t.left, t.top, t.w, t.h);
      ctx.clip();
      ctx.imageSmoothingEnabled = false;
      const px = scale / TILE;
      ctx.drawImage(entry.bitmap, t.left - offX * px, t.top - offY * px,
        entry.bitmap.width * px, entry.bitmap.height * px);
      ctx.restore();
      entry.used = ++useClock;
      return;
    }
  }

  let hover = null;   // { row, col } 0-based BigInt, the cell under the pointer
  let pinned = null;  // the cell last tapped or clicked (or the URL's cell=ROW,COL)
  let drawQueued = false;
  function schedule() {
    if (drawQueued) return;
    drawQueued = true;
    const once = () => {
      if (drawQueued) draw();
    };
    requestAnimationFrame(once);
    // Frames are not always driven (hidden tabs, headless browsers): a timer draws anyway.
    setTimeout(once, 100);
  }

  function draw() {
    drawQueued = false;
    const { w, h } = size();
    ctx.fillStyle = "#c8c8c8";
    ctx.fillRect(0, 0, w, h);
    // The bar's outline, so a bar smaller than a pixel still shows where it is.
    const bx = fineToPx(-view.cx) + w / 2, by = fineToPx(-view.cy) + h / 2;
    const bw = fineToPx(view.n << FRACN), bh = fineToPx(view.m << FRACN);
    ctx.fillStyle = "#e4e4e4";
    ctx.fillRect(Math.max(bx, -10), Math.max(by, -10),
      Math.min(bw, w + 20), Math.min(bh, h + 20));
    const level = Math.min(view.top, Math.max(0, Math.ceil(view.z - 1e-9)));
    const visible = visibleTiles(level);
    const wanted = new Set();
    for (const t of visible) {
      const url = tileUrl(t.level, t.col, t.row);
      wanted.add(url);
      let entry = tiles.get(url);
      if (!entry && loading < MAX_PARALLEL) {
        requestTile(url);
        entry = tiles.get(url);
      }
      if (entry && entry.state === "ready") {
        ctx.imageSmoothingEnabled = view.z < level;
        ctx.imageSmoothingQuality = "high";
        ctx.drawImage(entry.bitmap, t.left, t.top, t.w, t.h);
        entry.used = ++useClock;
      } else {
        drawAncestor(t);
      }
    }
    // Fetches for tiles that left the screen are dropped.
    for (const [url, t] of tiles) {
      if (t.state === "loading" && !wanted.has(url)) t.abort.abort();
    }
    evictTiles(wanted);
    drawGrid();
    drawHover(level);
    where.textContent = `level ${level} of ${view.top}`;
    writeUrl();
  }

  // Cell edges, once a cell is 12 screen pixels or more.
  function drawGrid() {
    const cellPx = Math.pow(2, view.z - view.top);
    if (cellPx < 12) return;
    const { w, h } = size();
    const unit = 1n << FRACN;
    const firstCol = maxBig(view.cx - pxToFine(w / 2), 0n) >> FRACN;
    const firstRow = maxBig(view.cy - pxToFine(h / 2), 0n) >> FRACN;
    ctx.strokeStyle = "rgba(128, 128, 128, 0.45)";
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let c = firstCol; c <= view.n; c++) {
      const x = fineToPx(c * unit - view.cx) + w / 2;
      if (x > w) break;
      ctx.moveTo(Math.round(x) + 0.5, 0);
      ctx.lineTo(Math.round(x) + 0.5, h);
    }
    for (let r = firstRow; r <= view.m; r++) {
      const y = fineToPx(r * unit - view.cy) + h / 2;
      if (y > h) break;
      ctx.moveTo(0, Math.round(y) + 0.5);
      ctx.lineTo(w, Math.round(y) + 0.5);
    }
    ctx.stroke();
  }

  // The outline of the block (or cell) under the pointer.
  function drawHover(level) {
    if (!hover) return;
    const { w, h } = size();
    const k = BigInt(view.top - level);
    const r0 = (hover.row >> k) << k, c0 = (hover.col >> k) << k;
    const x = fineToPx((c0 << FRACN) - view.cx) + w / 2;
    const y = fineToPx((r0 << FRACN) - view.cy) + h / 2;
    const side = Math.max(fineToPx((1n << k) << FRACN), 1);
    ctx.strokeStyle = "#e01b24";
    ctx.lineWidth = Math.max(1, Math.round(window.devicePixelRatio || 1));
    ctx.strokeRect(x - 0.5, y - 0.5, side + 1, side + 1);
  }

  // ---- hover: the cell, its piles, and the block's exact count --------------------------
  let infoTimer = 0;
  let infoToken = 0;
  function cellAt(px, py) {
    const { w, h } = size();
    const fx = view.cx + pxToFine(px - w / 2);
    const fy = view.cy + pxToFine(py - h / 2);
    const col = fx >> FRACN, row = fy >> FRACN;
    if (fx < 0n || fy < 0n || col >= view.n || row >= view.m) return null;
    return { row, col };
  }

  function showCell(cell) {
    hover = cell;
    schedule();
    clearTimeout(infoTimer);
    if (!cell) {
      info.textContent = "";
      return;
    }
    const row = cell.row + 1n, col = cell.col + 1n;
    info.textContent = `cell (${row}, ${col}) of C(${view.m}, ${view.n})`;
    const token = ++infoToken;
    infoTimer = setTimeout(() => fetchCellInfo(cell, token), 60);
  }

  async function getJson(url) {
    const r = await fetch(url);
    if (!r.ok) throw new Error(`${url}: ${r.status} ${(await r.text()).trim()}`);
    return r.json();
  }

  async function fetchCellInfo(cell, token) {
    const row = cell.row + 1n, col = cell.col + 1n;
    const level = Math.min(view.top, Math.max(0, Math.ceil(view.z - 1e-9)));
    const k = BigInt(view.top - level);
    const bar = `m=${view.m}&n=${view.n}`;
    try {
      const c = await getJson(`/api/cell?${bar}&row=${row}&col=${col}`);
      let lines = [
        `cell (${row}, ${col}) of C(${view.m}, ${view.n})`,
        `piles (${c.piles.join(", ")})  nim-sum ${c.nim_sum}  ` + (c.p ? "P" : "N"),
      ];
      if (k > 0n) {
        const r0 = (cell.row >> k) << k, c0 = (cell.col >> k) << k;
        const height = minBig(1n << k, view.m - r0), width = minBig(1n << k, view.n - c0);
        const b = await getJson(
          `/api/count?${bar}&window=${r0 + 1n},${c0 + 1n},${height},${width}`);
        const cells = height * width;
        const share = (Number(BigInt(b.count)) / Number(cells)) * 100;
        lines.push(`block ${height}×${width} from (${r0 + 1n}, ${c0 + 1n}), level ${level}:`);
        lines.push(`  ${b.count} P-cells of ${cells} (${share.toPrecision(4)}%)`);
      }
      if (token !== infoToken) return;
      info.replaceChildren();
      lines.forEach((line, i) => {
        if (i > 0) info.append("\n");
        if (i === 1) {
          const verdict = document.createElement("span");
          verdict.className = c.p ? "p" : "n";
          verdict.textContent = c.p ? "P" : "N";
          info.append(line.slice(0, -1), verdict);
        } else {
          info.append(line);
        }
      });
    } catch (e) {
      report("info " + (e && e.message ? e.message : e));
    }
  }

  // ---- pan and zoom: mouse, wheel, touch, pinch -----------------------------------------
  function zoomAt(px, py, z) {
    const { w, h } = size();
    const [lo, hi] = zoomLimits();
    z = Math.min(hi, Math.max(lo, z));
    const dx = px - w / 2, dy = py - h / 2;
    const fx = view.cx + pxToFine(dx), fy = view.cy + pxToFine(dy);
    view.z = z;
    view.cx = fx - pxToFine(dx);
    view.cy = fy - pxToFine(dy);
    clampView();
    schedule();
  }

  function panBy(dx, dy) {
    view.cx -= pxToFine(dx);
    view.cy -= pxToFine(dy);
    clampView();
    schedule();
  }

  const dpr = () => window.devicePixelRatio || 1;
  const pointers = new Map();   // pointerId → { x, y } in device pixels
  let pinch = null;
  let moved = 0;

  function devicePoint(e) {
    const r = canvas.getBoundingClientRect();
    return { x: (e.clientX - r.left) * dpr(), y: (e.clientY - r.top) * dpr() };
  }

  canvas.addEventListener("pointerdown", (e) => {
    canvas.setPointerCapture(e.pointerId);
    pointers.set(e.pointerId, devicePoint(e));
    canvas.classList.add("dragging");
    moved = 0;
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      pinch = { dist: Math.hypot(a.x - b.x, a.y - b.y), z: view.z };
    }
  });

  canvas.addEventListener("pointermove", (e) => {
    const p = devicePoint(e);
    const last = pointers.get(e.pointerId);
    if (!last) {
      if (e.pointerType === "mouse") showCell(cellAt(p.x, p.y));
      return;
    }
    pointers.set(e.pointerId, p);
    if (pointers.size === 1) {
      moved += Math.abs(p.x - last.x) + Math.abs(p.y - last.y);
      panBy(p.x - last.x, p.y - last.y);
    } else if (pointers.size === 2 && pinch) {
      const [a, b] = [...pointers.values()];
      const dist = Math.hypot(a.x - b.x, a.y - b.y);
      const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
      // Pan with the midpoint, zoom about it.
      const other = e.pointerId === [...pointers.keys()][0] ? b : a;
      const before = { x: (last.x + other.x) / 2, y: (last.y + other.y) / 2 };
      panBy(mid.x - before.x, mid.y - before.y);
      if (pinch.dist > 0 && dist > 0) zoomAt(mid.x, mid.y, pinch.z + Math.log2(dist / pinch.dist));
      moved += 10;
    }
  });

  function pointerEnd(e) {
    const p = pointers.get(e.pointerId);
    pointers.delete(e.pointerId);
    if (pointers.size < 2) pinch = null;
    if (pointers.size === 0) canvas.classList.remove("dragging");
    // A tap (or a click without a drag) pins the cell under it (and puts it in the URL).
    if (p && moved < 6) {
      pinned = cellAt(p.x, p.y);
      showCell(pinned);
    }
  }
  canvas.addEventListener("pointerup", pointerEnd);
  canvas.addEventListener("pointercancel", pointerEnd);
  canvas.addEventListener("pointerleave", (e) => {
    if (e.pointerType === "mouse" && !pointers.size) showCell(pinned);
  });

  canvas.addEventListener("wheel", (e) => {
    e.preventDefault();
    const p = devicePoint(e);
    const lines = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
    zoomAt(p.x, p.y, view.z - (e.deltaY * lines) / 400);
    showCell(cellAt(p.x, p.y));
  }, { passive: false });

  window.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement) return;
    const { w, h } = size();
    const step = 64 * dpr();
    const keys = {
      "+": () => zoomAt(w / 2, h / 2, view.z + 0.5),
      "=": () => zoomAt(w / 2, h / 2, view.z + 0.5),
      "-": () => zoomAt(w / 2, h / 2, view.z - 0.5),
      ArrowLeft: () => panBy(step, 0),
      ArrowRight: () => panBy(-step, 0),
      ArrowUp: () => panBy(0, step),
      ArrowDown: () => panBy(0, -step),
      "0": () => { fit(); schedule(); },
    };
    if (keys[e.key]) {
      keys[e.key]();
      e.preventDefault();
    }
  });

  // ---- the controls ---------------------------------------------------------------------
  document.getElementById("controls").addEventListener("submit", (e) => {
    e.preventDefault();
    const m = parseBar(inputs.m.value), n = parseBar(inputs.n.value || inputs.m.value);
    if (m === null || n === null) {
      inputs[m === null ? "m" : "n"].setCustomValidity("a whole number from 1 to 2^64-1");
      inputs[m === null ? "m" : "n"].reportValidity();
      return;
    }
    view.m = m;
    view.n = n;
    view.top = topLevel(m, n);
    hover = null;
    pinned = null;
    info.textContent = "";
    fit();
    syncInputs();
    schedule();
  });
  for (const input of [inputs.m, inputs.n]) {
    input.addEventListener("input", () => input.setCustomValidity(""));
  }
  inputs.shade.addEventListener("change", () => {
    view.shade = inputs.shade.value;
    schedule();
  });
  for (const input of [inputs.p, inputs.n2]) {
    input.addEventListener("change", () => {
      const colors = inputs.p.value + "," + inputs.n2.value;
      view.colors = colors === "#000000,#ffffff" ? null : colors;
      schedule();
    });
  }
  document.getElementById("fit").addEventListener("click", () => {
    fit();
    schedule();
  });

  function resize() {
    const w = Math.max(1, Math.round(canvas.clientWidth * dpr()));
    const h = Math.max(1, Math.round(canvas.clientHeight * dpr()));
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
      clampView();
      schedule();
    }
  }
  window.addEventListener("resize", resize);

  resize();
  readUrl();
  syncInputs();
  if (pinned) showCell(pinned);
  schedule();
})();
