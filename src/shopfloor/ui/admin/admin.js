// Shopfloor web admin: every read and write goes through the HTTP tools API with the
// user's bearer token; every value is put on the page as text, never as markup.
(() => {
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  let token = sessionStorage.getItem("shopfloor-token") || "";
  let lowSkus = new Set();
  let pendingPreview = null;

  async function api(tool, args) {
    const r = await fetch("/api/v1/tools/" + encodeURIComponent(tool), {
      method: "POST",
      headers: { "Content-Type": "application/json", "Authorization": "Bearer " + token },
      body: JSON.stringify(args || {}),
    });
    const body = await r.json();
    if (!r.ok || body.error) {
      const e = new Error(body.error ? body.error.message : "HTTP " + r.status);
      e.payload = body.error;
      throw e;
    }
    return body;
  }

  function cell(tr, value, cls) {
    const td = document.createElement("td");
    td.textContent = value == null ? "" : String(value);
    if (cls) td.className = cls;
    tr.appendChild(td);
    return td;
  }
  function fill(tableId, rows, render) {
    const body = $(tableId).tBodies[0];
    body.replaceChildren();
    for (const row of rows) {
      const tr = document.createElement("tr");
      render(tr, row);
      body.appendChild(tr);
    }
  }
  function when(iso) { return iso ? iso.replace("T", " ").slice(0, 16) : ""; }

  function show(view) {
    for (const p of document.querySelectorAll("[data-panel]")) {
      p.classList.toggle("hidden", p.dataset.panel !== view);
    }
    for (const a of document.querySelectorAll("nav a")) {
      if (a.dataset.view === view) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    }
    if (view === "stock") loadStock();
    if (view === "orders") loadOrders();
    if (view === "log") loadLog();
    if (view === "new-po") loadPoForm();
  }

  async function signIn(candidate) {
    token = candidate.trim();
    try {
      await api("list_locations", {});
    } catch (e) {
      $("login-error").textContent = "Sign-in failed: " + e.message;
      token = "";
      return;
    }
    sessionStorage.setItem("shopfloor-token", token);
    $("login").classList.add("hidden");
    $("views").classList.remove("hidden");
    $("nav").classList.remove("hidden");
    $("logout").classList.remove("hidden");
    show("stock");
  }

  async function loadStock() {
    const [found, low] = await Promise.all([
      api("search_items", { query: $("search").value || undefined, limit: 200 }),
      api("list_low_stock", {}),
    ]);
    lowSkus = new Set(low.items.map((i) => i.sku));
    $("stock-count").textContent = found.items.length + " items, " + low.items.length + " low";
    fill("stock-table", found.items, (tr, item) => {
      const a = document.createElement("a");
      a.className = "item";
      a.textContent = item.sku;
      a.tabIndex = 0;
      a.addEventListener("click", () => openItem(item.sku));
      a.addEventListener("keydown", (e) => { if (e.key === "Enter") openItem(item.sku); });
      const td = document.createElement("td");
      td.appendChild(a);
      tr.appendChild(td);
      cell(tr, item.name);
      cell(tr, item.kind);
      cell(tr, item.on_hand, "num");
      cell(tr, item.available, "num");
      cell(tr, item.reorder_point, "num");
      cell(tr, lowSkus.has(item.sku) ? "LOW" : "", lowSkus.has(item.sku) ? "low" : "");
    });
  }

  async function openItem(sku) {
    const [item, moves] = await Promise.all([
      api("get_item", { sku }), api("list_stock_movements", { sku, limit: 200 })]);
    show("item");
    $("item-title").textContent = item.sku + " — " + item.name;
    fill("item-stock", item.stock, (tr, b) => {
      cell(tr, b.location); cell(tr, b.on_hand, "num"); cell(tr, b.committed, "num");
      cell(tr, b.available, "num"); cell(tr, b.average_cost, "num");
    });
    fill("item-moves", moves.movements, (tr, m) => {
      cell(tr, when(m.created_at)); cell(tr, m.reason);
      cell(tr, (m.document_number || "") + (m.batch ? " lot " + m.batch : ""));
      cell(tr, m.quantity, "num"); cell(tr, m.unit_cost, "num"); cell(tr, m.actor);
    });
    drawHistory($("item-chart"), Number(item.on_hand || 0), moves.movements);
  }

  // On hand over time, rebuilt backwards from today's total through the ledger.
  function drawHistory(host, onHand, movements) {
    host.replaceChildren();
    if (!movements.length) return;
    const points = [];
    let level = onHand;
    for (const m of movements) {            // newest first
      points.push({ t: Date.parse(m.created_at), v: level, m });
      level -= Number(m.quantity);
    }
    points.push({ t: points[points.length - 1].t - 1, v: level, m: null });
    points.reverse();
    const W = 640, H = 180, P = 28;
    const t0 = points[0].t, t1 = Math.max(points[points.length - 1].t, t0 + 1);
    const vmax = Math.max(1, ...points.map((p) => p.v)), vmin = Math.min(0, ...points.map((p) => p.v));
    const x = (t) => P + (W - 2 * P) * (t - t0) / (t1 - t0);
    const y = (v) => H - P - (H - 2 * P) * (v - vmin) / (vmax - vmin || 1);
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("width", W);
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", "On hand over time");
    let d = "M" + x(points[0].t) + "," + y(points[0].v);
    for (let i = 1; i < points.length; i++) {
      d += " H" + x(points[i].t) + " V" + y(points[i].v);
    }
    const path = document.createElementNS(SVG, "path");
    path.setAttribute("d", d);
    path.setAttribute("fill", "none");
    path.setAttribute("stroke", "currentColor");
    path.setAttribute("stroke-width", "1.5");
    svg.appendChild(path);
    for (const p of points) {
      if (!p.m) continue;
      const mark = document.createElementNS(SVG, "circle");
      const incoming = Number(p.m.quantity) > 0;
      mark.setAttribute("cx", x(p.t));
      mark.setAttribute("cy", y(p.v));
      mark.setAttribute("r", 3.5);
      mark.setAttribute("class", incoming ? "receipt" : "shipment");
      mark.setAttribute("fill", incoming ? "#1a7f37" : "#cf222e");
      const title = document.createElementNS(SVG, "title");
      title.textContent = p.m.reason + " " + p.m.quantity + " (" + (p.m.document_number || "") + ")";
      mark.appendChild(title);
      svg.appendChild(mark);
    }
    for (const [v, label] of [[vmax, String(vmax)], [vmin, String(vmin)]]) {
      const t = document.createElementNS(SVG, "text");
      t.setAttribute("x", 2); t.setAttribute("y", y(v) + 4);
      t.textContent = label;
      svg.appendChild(t);
    }
    host.appendChild(svg);
  }

  async function loadOrders() {
    const kind = $("order-kind").value;
    const tool = { purchase: "list_purchase_orders", sales: "list_sales_orders",
      manufacturing: "list_manufacturing_orders" }[kind];
    const result = await api(tool, { limit: 200 });
    fill("orders-table", result.orders, (tr, o) => {
      cell(tr, o.number); cell(tr, o.status); cell(tr, o.partner || o.sku);
      cell(tr, o.location); cell(tr, o.due_date || "");
      cell(tr, o.total != null ? o.total : o.completed_quantity + " / " + o.quantity, "num");
    });
  }

  async function loadLog() {
    const result = await api("get_operation_log", { limit: 200 });
    fill("log-table", result.entries, (tr, e) => {
      cell(tr, when(e.created_at)); cell(tr, e.tool); cell(tr, e.actor); cell(tr, e.summary);
    });
  }

  async function loadPoForm() {
    const [s, l] = await Promise.all([api("list_suppliers", {}), api("list_locations", {})]);
    const opts = (sel, rows, key) => {
      sel.replaceChildren();
      for (const r of rows) {
        const o = document.createElement("option");
        o.value = r[key]; o.textContent = r[key];
        sel.appendChild(o);
      }
    };
    opts($("po-supplier"), s.suppliers, "name");
    opts($("po-location"), l.locations, "code");
  }

  function poArgs() {
    const line = { sku: $("po-sku").value.trim(), quantity: $("po-qty").value.trim() };
    if ($("po-price").value.trim()) line.unit_price = $("po-price").value.trim();
    const args = { supplier: $("po-supplier").value, location: $("po-location").value,
      lines: [line] };
    if ($("po-date").value) args.expected_date = $("po-date").value;
    return args;
  }

  async function previewPo(ev) {
    ev.preventDefault();
    $("po-result").textContent = "";
    try {
      pendingPreview = await api("create_purchase_order", poArgs());
    } catch (e) {
      $("po-result").textContent = "Error: " + e.message;
      $("po-result").className = "error";
      return;
    }
    $("po-preview").classList.remove("hidden");
    $("po-summary").textContent = pendingPreview.summary;
    const warnings = $("po-warnings");
    warnings.replaceChildren();
    for (const w of pendingPreview.warnings) {
      const li = document.createElement("li");
      li.textContent = w.message;
      warnings.appendChild(li);
    }
    fill("po-changes", pendingPreview.changes, (tr, c) => {
      cell(tr, c.entity + " " + c.key); cell(tr, c.field);
      cell(tr, c.before == null ? "—" : c.before); cell(tr, c.after == null ? "—" : c.after);
    });
    $("po-confirm").disabled = !pendingPreview.apply;
    $("po-cancel").disabled = false;
  }

  async function confirmPo() {
    if (!pendingPreview || !pendingPreview.apply) return;
    $("po-confirm").disabled = true;
    $("po-cancel").disabled = true;
    const { tool, arguments: args } = pendingPreview.apply;
    pendingPreview = null;
    try {
      const r = await api(tool, args);
      $("po-result").textContent = "Applied: " + r.summary;
      $("po-result").className = "ok";
    } catch (e) {
      $("po-result").textContent = "Apply failed: " + e.message;
      $("po-result").className = "error";
    }
  }

  function cancelPo() {
    pendingPreview = null;
    $("po-preview").classList.add("hidden");
    $("po-result").textContent = "Cancelled: nothing was written.";
    $("po-result").className = "muted";
  }

  $("login-form").addEventListener("submit", (e) => { e.preventDefault(); signIn($("token").value); });
  $("logout").addEventListener("click", () => { sessionStorage.clear(); location.reload(); });
  $("search-form").addEventListener("submit", (e) => { e.preventDefault(); loadStock(); });
  $("order-kind").addEventListener("change", loadOrders);
  $("po-form").addEventListener("submit", previewPo);
  $("po-confirm").addEventListener("click", confirmPo);
  $("po-cancel").addEventListener("click", cancelPo);
  for (const a of document.querySelectorAll("nav a")) {
    a.tabIndex = 0;
    a.addEventListener("click", () => show(a.dataset.view));
    a.addEventListener("keydown", (e) => { if (e.key === "Enter") show(a.dataset.view); });
  }
  if (token) signIn(token);
})();
