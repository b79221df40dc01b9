// Shopfloor's MCP Apps bridge: the few JSON-RPC messages a card needs, over postMessage.
// (SEP-1865: ui/initialize, tools/call, ui/update-model-context, host notifications.)
const Bridge = (() => {
  let nextId = 1;
  const pending = new Map();
  const handlers = {};
  const target = window.parent;
  function send(msg) { target.postMessage(Object.assign({ jsonrpc: "2.0" }, msg), "*"); }
  function request(method, params) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      send({ id, method, params: params || {} });
    });
  }
  function notify(method, params) { send({ method, params: params || {} }); }
  window.addEventListener("message", (event) => {
    if (event.source !== target) return;
    const msg = event.data;
    if (!msg || msg.jsonrpc !== "2.0") return;
    if (msg.id !== undefined && !msg.method) {
      const p = pending.get(msg.id);
      if (!p) return;
      pending.delete(msg.id);
      if (msg.error) p.reject(new Error(msg.error.message || "host error"));
      else p.resolve(msg.result);
      return;
    }
    const handler = handlers[msg.method];
    let result = {};
    try { if (handler) result = handler(msg.params || {}) || {}; } catch (e) { console.error(e); }
    if (msg.id !== undefined) send({ id: msg.id, result });
  });
  function on(method, fn) { handlers[method] = fn; }
  function applyTheme(ctx) {
    if (ctx && (ctx.theme === "dark" || ctx.theme === "light")) {
      document.documentElement.dataset.theme = ctx.theme;
    }
  }
  on("ui/notifications/host-context-changed", applyTheme);
  on("ui/resource-teardown", () => ({}));
  async function connect(name) {
    const result = await request("ui/initialize", {
      protocolVersion: "2026-01-26",
      appInfo: { name, version: "1" },
      appCapabilities: {},
    });
    applyTheme(result && result.hostContext);
    notify("ui/notifications/initialized");
    reportSize();
    if (window.ResizeObserver) new ResizeObserver(reportSize).observe(document.body);
    return result;
  }
  function reportSize() {
    const r = document.documentElement.getBoundingClientRect();
    notify("ui/notifications/size-changed", { width: Math.ceil(r.width), height: Math.ceil(r.height) });
  }
  const callTool = (name, args) => request("tools/call", { name, arguments: args });
  const tellModel = (text, structured) => request("ui/update-model-context", Object.assign(
    { content: [{ type: "text", text }] }, structured ? { structuredContent: structured } : {}));
  return {
    connect, on, request, notify, callTool, tellModel,
    // A tools/call the host failed (rejected, lost) reads like a tool error: one path for both.
    call: (name, args) => callTool(name, args).catch((e) => (
      { isError: true, content: [{ type: "text", text: String((e && e.message) || e) }] })),
    // Telling the model is best effort: a host that refuses it must not break the card.
    tell: (text, structured) => tellModel(text, structured).catch(() => {}),
    // Why a tool result failed: the coded error if any, else its text.
    reason(result) {
      const err = result && result.structuredContent && result.structuredContent.error;
      if (err) return err.message + (err.field ? " (field: " + err.field + ")" : "");
      const t = result && result.content && result.content.find((c) => c.type === "text");
      return t ? t.text : "unknown error";
    },
    // A fresh idempotency key (crypto.randomUUID needs a secure context; a sandboxed
    // srcdoc frame may not be one).
    newKey() {
      const b = crypto.getRandomValues(new Uint8Array(16));
      return "card-" + Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
    },
  };
})();
