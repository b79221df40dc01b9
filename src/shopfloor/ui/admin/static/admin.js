// The admin's own few behaviours on top of htmx: the shared preview renderer, line
// tables, invalidating a preview when its form changes, locale formatting, the theme.
(() => {
  const body = document.body;
  const zone = body.dataset.timeZone || undefined;
  const currency = body.dataset.currency || "";

  function theme(next) {
    if (next) document.documentElement.dataset.theme = next;
    else delete document.documentElement.dataset.theme;
  }
  try { theme(localStorage.getItem("shopfloor-theme")); } catch (e) { /* private mode */ }
  const toggle = document.getElementById("theme-toggle");
  if (toggle) toggle.addEventListener("click", () => {
    const dark = document.documentElement.dataset.theme === "dark" ||
      (!document.documentElement.dataset.theme && matchMedia("(prefers-color-scheme: dark)").matches);
    const next = dark ? "light" : "dark";
    theme(next);
    try { localStorage.setItem("shopfloor-theme", next); } catch (e) { /* ignore */ }
  });

  function drawPreview(scope) {
    const target = scope.querySelector("#preview[data-preview]");
    if (!target || target.dataset.drawn) return;
    const d = JSON.parse(target.dataset.preview);
    target.dataset.drawn = "1";
    ShopfloorRender.preview(target, d.payload, { names: d.names, units: d.units,
      currency: d.currency || currency, zone, logLinks: true });
  }
  function settle(scope) {
    ShopfloorRender.localize(scope, zone);
    drawPreview(scope);
  }
  settle(document);
  document.addEventListener("htmx:afterSettle", (e) => {
    settle(document);
    const outcome = document.getElementById("outcome");
    if (outcome && e.target && (e.target.id === "outcome" || e.target.contains(outcome))) outcome.focus();
  });

  // A preview belongs to the form as it was: any edit withdraws its Confirm.
  function invalidate(form) {
    const confirm = form.querySelector("#confirm");
    if (!confirm) return;
    confirm.remove();
    for (const name of ["preview_token", "idempotency_key"]) {
      const input = form.querySelector(`input[name='${name}']`);
      if (input) input.remove();
    }
    const hint = form.querySelector("#stale-hint");
    if (hint) hint.hidden = false;
    const view = form.querySelector("#preview");
    if (view) view.dataset.state = "outdated";
  }
  document.addEventListener("input", (e) => {
    const form = e.target.closest && e.target.closest("#tool-form");
    if (form && !e.target.closest("#outcome")) invalidate(form);
  });
  document.addEventListener("change", (e) => {
    const form = e.target.closest && e.target.closest("#tool-form");
    if (form && !e.target.closest("#outcome")) invalidate(form);
    // A file field sends the file's bytes as base64 in the hidden input beside it.
    const name = e.target.dataset && e.target.dataset.base64;
    const file = name && e.target.files && e.target.files[0];
    if (!file) return;
    const reader = new FileReader();
    reader.onload = () => {
      const hidden = e.target.parentNode.querySelector(`input[type=hidden][name="${name}"]`);
      if (hidden) hidden.value = String(reader.result).split(",", 2)[1] || "";
    };
    reader.readAsDataURL(file);
  });

  // Line tables: add a row from the template (renumbered), remove a row.
  document.addEventListener("click", (e) => {
    const add = e.target.closest && e.target.closest("[data-add-line]");
    if (add) {
      const set = add.closest("fieldset");
      const tbody = set.querySelector("tbody");
      const n = Math.max(-1, ...Array.from(tbody.querySelectorAll("input, select"))
        .map((i) => Number((i.name.split(".")[1]) || -1))) + 1;
      const html = set.querySelector("template").innerHTML.replaceAll("__N__", String(n));
      tbody.insertAdjacentHTML("beforeend", html.trim());
      if (window.htmx) window.htmx.process(tbody.lastElementChild);  // its pick lists
      const first = tbody.lastElementChild.querySelector("input, select");
      if (first) first.focus();
      invalidate(add.closest("form") || document.createElement("form"));
      return;
    }
    const remove = e.target.closest && e.target.closest(".remove-line");
    if (remove) {
      const form = remove.closest("form");
      const tr = remove.closest("tr");
      const tbody = tr.parentElement;
      if (tbody.children.length > 1) tr.remove();
      else for (const i of tr.querySelectorAll("input, select")) i.value = "";
      if (form) invalidate(form);
    }
  });

  // A filter box over a list (the tool catalogue).
  for (const box of document.querySelectorAll("[data-filter]")) {
    box.addEventListener("input", () => {
      const q = box.value.trim().toLowerCase();
      for (const li of document.querySelectorAll(box.dataset.filter)) {
        li.hidden = q !== "" && !li.textContent.toLowerCase().includes(q);
      }
    });
  }
})();
