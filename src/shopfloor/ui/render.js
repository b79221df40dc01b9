// Shopfloor's preview renderer, shared by the MCP Apps preview card and the web admin:
// one way to show what a write will do, as fields a person reads (names and SKUs,
// quantities with units, prices and totals, dates, reasons, warnings), never raw JSON.
// Every value goes in with textContent: a hostile name stays text.
const ShopfloorRender = (() => {
  const locale = (typeof navigator !== "undefined" && navigator.language) || "en";
  const MONEY = new Set(["unit_price", "unit_cost", "purchase_price", "sales_price", "total",
    "cost", "average_cost", "value", "amount", "price", "total_cost", "line_total", "stock_value"]);
  const TEXT = new Set(["sku", "number", "name", "code", "reason", "notes", "email", "phone",
    "operation_id", "job_id", "actor", "lot", "batch", "serial", "partner", "location",
    "supplier", "customer", "default_supplier", "kind", "uom", "id", "product", "from_location",
    "to_location", "message", "summary"]);
  const LABELS = { uom: "Unit", sku: "SKU", due_date: "Due", done_quantity: "Done",
    created_at: "Created", lead_time_days: "Lead time (days)", batch_tracked: "Lot tracked",
    on_hand: "On hand", on_order: "On order", quantity_delta: "Change",
    counted_quantity: "Counted", completed_quantity: "Completed", returned_quantity: "Returned",
    default_supplier: "Supplier", reorder_point: "Reorder point", expected_date: "Expected",
    reorder_quantity: "Reorder quantity", average_cost: "Average cost", line_total: "Line total",
    unit_price: "Unit price", unit_cost: "Unit cost", from_location: "From", to_location: "To" };
  const NUMBER = /^-?\d+(\.\d+)?$/;
  const DATE = /^\d{4}-\d{2}-\d{2}$/;
  const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
  let currency = "";  // what money() falls back to: the document's while one is drawn
  let base = "";  // the company's (opts.currency)
  const ISO = /^[A-Z]{3}$/;

  function words(v) { const t = String(v).replace(/_/g, " "); return t.charAt(0).toUpperCase() + t.slice(1); }
  function label(key, tool) {
    if (key === "partner") return /purchase/.test(tool || "") ? "Supplier" : /sales|fulfill/.test(tool || "") ? "Customer" : "Partner";
    if (key === "due_date" && /purchase/.test(tool || "")) return "Expected";
    if (key === "done_quantity") return /purchase/.test(tool || "") ? "Received" : /sales|fulfill/.test(tool || "") ? "Shipped" : "Done";
    return LABELS[key] || words(key);
  }
  // Exact: the integer part through Intl (BigInt), the fraction's digits kept as given.
  function num(value) {
    const s = String(value).trim();
    if (!NUMBER.test(s)) return s;
    const neg = s.startsWith("-");
    const [int, frac = ""] = s.replace("-", "").split(".");
    const f = frac.replace(/0+$/, "");
    let out = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(BigInt(int));
    if (f) {
      const sep = new Intl.NumberFormat(locale).formatToParts(1.5).find((p) => p.type === "decimal");
      out += (sep ? sep.value : ".") + f;
    }
    return (neg && (int.replace(/0/g, "") || f) ? "-" : "") + out;
  }
  const UNIT_COSTS = new Set(["unit_cost", "average_cost"]);  // per unit: up to 4 decimals
  function money(value, cur, perUnit) {
    const s = String(value).trim();
    const code = cur || currency;
    if (!NUMBER.test(s) || !code) return NUMBER.test(s) ? num(s) : s;
    // The currency's own decimals (CLDR, as ui/formats.py's Babel): €3.17, never €3.1671;
    // a cost per unit up to four (€0.0322), as ui/formats.py's unit_cost.
    try {
      const own = new Intl.NumberFormat(locale, { style: "currency", currency: code });
      if (!perUnit) return own.format(Number(s));
      const min = own.resolvedOptions().minimumFractionDigits;
      return new Intl.NumberFormat(locale, { style: "currency", currency: code,
        minimumFractionDigits: min, maximumFractionDigits: Math.max(min, 4) }).format(Number(s));
    } catch (e) { return num(s) + " " + code; }
  }
  function when(value, zone) {
    const s = String(value);
    try {
      if (DATE.test(s)) {
        return new Intl.DateTimeFormat(locale, { year: "numeric", month: "short", day: "numeric",
          timeZone: "UTC" }).format(new Date(s + "T00:00:00Z"));
      }
      const d = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : s + "Z");
      return new Intl.DateTimeFormat(locale, { year: "numeric", month: "short", day: "numeric",
        hour: "2-digit", minute: "2-digit", timeZoneName: "short",
        timeZone: zone || undefined }).format(d);
    } catch (e) { return s; }
  }
  // "2026-12-04T10:23+00:00 -> 2026-12-04T11:55+00:00" (a scheduled operation) reads
  // "Fri 4 Dec, 10:23–11:55": one day said once, in the company's zone.
  const RANGE = /(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?) -> (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?)/g;
  function range(a, b, zone) {
    const at = (s) => new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : s + "Z");
    try {
      const f = new Intl.DateTimeFormat(locale, { weekday: "short", day: "numeric", month: "short",
        hour: "2-digit", minute: "2-digit", timeZone: zone || undefined });
      return f.formatRange ? f.formatRange(at(a), at(b)) : f.format(at(a)) + " – " + f.format(at(b));
    } catch (e) { return a + " – " + b; }
  }
  // Exact product of two decimal strings (a line's total), without floating point.
  function mul(a, b) {
    const sa = String(a), sb = String(b);
    if (!NUMBER.test(sa) || !NUMBER.test(sb)) return null;
    const fa = (sa.split(".")[1] || "").length, fb = (sb.split(".")[1] || "").length;
    const p = BigInt(sa.replace(".", "")) * BigInt(sb.replace(".", ""));
    const neg = p < 0n, digits = (neg ? -p : p).toString().padStart(fa + fb + 1, "0");
    const cut = digits.length - (fa + fb);
    return (neg ? "-" : "") + digits.slice(0, cut) + (fa + fb ? "." + digits.slice(cut) : "");
  }
  function display(key, value, row, tool, zone) {
    if (value === null || value === undefined || value === "") return "—";
    if (typeof value === "boolean") return value ? "Yes" : "No";
    if (Array.isArray(value)) return value.map((v) => display(key, v, row, tool, zone)).join(", ");
    // an object under a money key is amounts (a planned cost's materials, operations, total)
    const amounts = MONEY.has(key) || /_price$|_cost$/.test(key);
    if (typeof value === "object") return Object.entries(value).map(([k, v]) => label(k, tool) + ": " + display(amounts ? "amount" : k, v, value, tool, zone)).join(", ");
    const s = String(value);
    if (key === "status" || key === "action" || key === "kind") return words(s);
    // an amount names its currency beside it (a change row, a line); else the document's
    if (MONEY.has(key) || /_price$|_cost$/.test(key)) return money(s, row && ISO.test(row.currency || "") ? row.currency : "", UNIT_COSTS.has(key));
    if (!TEXT.has(key) && NUMBER.test(s)) {
      // a line's own unit first (a purchase line in boxes), else the item's
      const unit = /quantity|on_hand|available|committed|^change$/.test(key) && row &&
        (row.unit || row.uom || row._uom);
      return num(s) + (unit ? " " + unit : "");
    }
    if (RANGE.test(s)) { RANGE.lastIndex = 0; return s.replace(RANGE, (m, a, b) => range(a, b, zone)); }
    if (DATE.test(s) || DATETIME.test(s)) return when(s, zone);
    return s;
  }
  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function isNum(key, rows) {
    if (TEXT.has(key)) return false;
    const v = rows.map((r) => r[key]).find((x) => x !== null && x !== undefined && x !== "");
    return v !== undefined && typeof v !== "boolean" && NUMBER.test(String(v));
  }
  function table(rows, cols, tool, opts) {
    const t = el("table", null, "pv-table");
    if (opts && opts.id) t.id = opts.id;
    if (opts && opts.caption) t.appendChild(el("caption", opts.caption));
    const head = t.createTHead().insertRow();
    for (const c of cols) {
      const th = el("th", label(c, tool), isNum(c, rows) ? "num" : "");
      th.scope = "col";
      head.appendChild(th);
    }
    const body = t.createTBody();
    for (const r of rows) {
      const tr = body.insertRow();
      if (r.action === "reject") tr.className = "reject";
      for (const c of cols) {
        const td = el("td", display(c, r[c], r, tool), isNum(c, rows) ? "num" : "");
        td.dataset.label = label(c, tool);
        tr.appendChild(td);
      }
    }
    return t;
  }
  function columns(rows) {
    const cols = [];
    for (const r of rows) for (const k of Object.keys(r)) {
      if (!cols.includes(k) && k !== "id" && !k.startsWith("_") && !(Array.isArray(r[k]) && r[k].length && typeof r[k][0] === "object")) cols.push(k);
    }
    return cols;
  }
  // A document's line rows with the item's name next to its SKU and a line total.
  function lineRows(lines, names, units) {
    return lines.map((l) => {
      const row = {};
      if (l.sku && units && units[l.sku]) row._uom = units[l.sku];
      for (const [k, v] of Object.entries(l)) {
        row[k] = v;
        if (k === "sku" && !("name" in l)) row.name = names[v] || null;
      }
      if (l.quantity !== undefined && l.unit_price !== undefined && l.line_total === undefined) {
        row.line_total = mul(l.quantity, l.unit_price);
      }
      // a line that says its quantity in words (a return's, in its order line's unit: "1 pc
      // of a box of 3") is drawn so, not as the figures behind the words (as render.py)
      if (typeof l.quantity_text === "string") {
        const said = {};
        for (const [k, v] of Object.entries(row)) {
          if (k === "quantity_text") said.quantity = v;
          else if (!["quantity", "unit", "line_quantity", "line_unit"].includes(k)) said[k] = v;
        }
        return said;
      }
      return row;
    });
  }
  // Columns with nothing to say: empty everywhere, or (on a new document) progress
  // counters that are all zero.
  const PROGRESS = new Set(["done_quantity", "returned_quantity", "completed_quantity"]);
  function dropEmpty(rows, cols, tool) {
    const fresh = /^create_/.test(tool || "");
    return cols.filter((c) => rows.some((r) => r[c] !== null && r[c] !== undefined && r[c] !== "" &&
      !(fresh && PROGRESS.has(c) && Number(r[c]) === 0)));
  }
  // "BIRCH-PLY-18@MAIN" on_hand 38 -> 36 reads "Birch plywood (BIRCH-PLY-18) at MAIN".
  function what(c, names) {
    const key = String(c.key == null ? "" : c.key);
    if (c.entity === "stock" && key.includes("@")) {
      const [sku, loc] = [key.slice(0, key.lastIndexOf("@")), key.slice(key.lastIndexOf("@") + 1)];
      return (names[sku] ? names[sku] + " (" + sku + ")" : sku) + " at " + loc;
    }
    // a key that starts with a document's kind ("purchase_order PO-00012") says it in words
    const said = key.replace(/^([a-z]+(?:_[a-z]+)+) /, (m, kind) => kind.replace(/_/g, " ") + " ");
    return words(c.entity || "") + " " + said + (names[key] ? " (" + names[key] + ")" : "");
  }
  // a revert names what it undoes by its summary; the tool and the id are not words for
  // people (the admin links the log entry instead: opts.logLinks)
  const SKIP_FIELDS = new Set(["id", "created_at", "lines", "rows", "recipes",
    "reverted_tool", "reverted_operation_id"]);
  // Draw one preview payload into `root` (emptied first). opts: {names, currency, zone}.
  function preview(root, p, opts) {
    const o = opts || {};
    if (o.currency) base = o.currency;
    const doc = p.document || {};
    // A document in its own currency (a dollar supplier's order) is drawn in it.
    currency = ISO.test(doc.currency || "") ? doc.currency : base;
    try { return draw(root, p, o, doc); } finally { currency = base; }
  }
  function draw(root, p, o, doc) {
    const names = Object.assign({}, o.names || {});
    const tool = p.tool || "";
    for (const l of doc.lines || []) if (l && l.sku && l.name) names[l.sku] = l.name;
    if (doc.sku && doc.name) names[doc.sku] = doc.name;
    root.replaceChildren();
    root.appendChild(el("p", p.summary, "pv-summary")).id = "summary-text";
    if ((p.warnings || []).length) {
      const ul = el("ul", null, "warnings");
      ul.id = "warnings";
      for (const w of p.warnings) {
        ul.appendChild(el("li", (w.blocking ? "Blocked: " : "Warning: ") + w.message, w.blocking ? "blocking" : "note"));
      }
      root.appendChild(ul);
    }
    const scalars = Object.entries(doc).filter(([k, v]) => !SKIP_FIELDS.has(k) && !(Array.isArray(v)) && v !== null && v !== "");
    if (scalars.length) {
      const dl = el("dl", null, "pv-fields");
      dl.id = "fields";
      for (const [k, v] of scalars) {
        const div = el("div");
        div.appendChild(el("dt", label(k, tool)));
        div.appendChild(el("dd", display(k, v, doc, tool, o.zone)));
        if (k === "sku" && names[v] && !doc.name) div.lastChild.textContent += " — " + names[v];
        dl.appendChild(div);
      }
      root.appendChild(dl);
    }
    if (o.logLinks && typeof doc.reverted_operation_id === "string") {
      const a = el("a", "The operation it reverts, in the log");
      a.href = "/log/" + encodeURIComponent(doc.reverted_operation_id);
      a.id = "reverted-entry";
      root.appendChild(el("p")).appendChild(a);
    }
    if (Array.isArray(doc.lines) && doc.lines.length) {
      const rows = lineRows(doc.lines, names, o.units);
      const cols = dropEmpty(rows, columns(rows), tool);
      root.appendChild(table(rows, cols, tool, { id: "lines", caption: "Lines" }));
    }
    for (const [k, v] of Object.entries(doc)) {
      if (k === "lines" || k === "rows" || k === "recipes" || !Array.isArray(v) || !v.length) continue;
      if (typeof v[0] === "object") {
        const rows = lineRows(v, names, o.units);
        root.appendChild(table(rows, dropEmpty(rows, columns(rows), tool), tool, { caption: label(k, tool) }));
      } else {
        const div = el("p", label(k, tool) + ": " + v.map((x) => display(k, x, doc, tool)).join(", "));
        root.appendChild(div);
      }
    }
    const bulk = ["rows", "recipes"].find((k) => Array.isArray(doc[k]));
    if (bulk && doc[bulk].length) {
      const cols = bulk === "rows" ? ["line", "sku", "action", "detail"] : ["product", "action", "detail"];
      root.appendChild(table(doc[bulk], cols, tool, { id: "rows" }));
    }
    if ((p.changes || []).length) {
      const t = el("table", null, "pv-table changes");
      t.id = "changes";
      t.appendChild(el("caption", "What changes"));
      const head = t.createTHead().insertRow();
      for (const h of ["What", "Field", "Before", "", "After"]) {
        const th = el("th", h); th.scope = "col"; head.appendChild(th);
      }
      const body = t.createTBody();
      for (const c of p.changes) {
        const tr = body.insertRow();
        const field = String(c.field || "");
        const key = field.replace(/^line .*? /, "");
        tr.appendChild(el("td", what(c, names)));
        tr.appendChild(el("td", field.startsWith("line ") ? field : label(field, tool)));
        const own = { currency: c.currency };
        tr.appendChild(el("td", c.before == null ? "—" : display(key, c.before, own, tool, o.zone), "num"));
        tr.appendChild(el("td", "→", "arrow"));
        tr.appendChild(el("td", c.after == null ? "—" : display(key, c.after, own, tool, o.zone), "num"));
      }
      root.appendChild(t);
    }
    return root;
  }
  // Format the server's marked values in place (the admin's pages): numbers, money, times.
  function localize(scope, zone) {
    for (const e of scope.querySelectorAll("[data-num]")) e.textContent = num(e.dataset.num);
    for (const e of scope.querySelectorAll("[data-money]")) e.textContent = money(e.dataset.money, e.dataset.currency);
    for (const e of scope.querySelectorAll("time[datetime]")) {
      if (!e.dataset.done) { e.textContent = when(e.getAttribute("datetime"), zone); e.dataset.done = "1"; }
    }
  }
  return { preview, num, money, when, range, words, label, display, localize, mul };
})();
