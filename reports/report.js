/* pmfarm report tables: sort by a header click, filter by typing, paginate long tables.
 * Plain JavaScript, no library, no network. Without JavaScript every row stays visible
 * in the order the report wrote it, so nothing is ever hidden from a reader.
 *
 * Test hooks: page.html?probe=layout records where the first-screen elements end (see
 * probeLayout); page.html?table=ID&sort=KEY&dir=asc|desc&filter=TEXT&page=N applies a sort,
 * a filter and a page through the very functions a click and a keystroke call.
 * Sentinel: <html data-js="ready" data-ready-ms="N"> once every table is set up; any
 * uncaught error is recorded in <html data-js-errors="..."> and shown at the top of the page. */
(function () {
  "use strict";
  var root = document.documentElement;
  var errors = [];

  function recordError(message) {
    errors.push(String(message));
    root.setAttribute("data-js-errors", errors.join(" | "));
    var banner = document.getElementById("js-errors");
    if (!banner) {
      banner = document.createElement("p");
      banner.id = "js-errors";
      banner.className = "js-errors";
      document.body.insertBefore(banner, document.body.firstChild);
    }
    banner.textContent = "Report script error: " + errors.join(" | ");
  }
  window.addEventListener("error", function (e) { recordError(e.message || e); });

  function sortValue(row, index, type) {
    var cell = row.cells[index];
    var raw = cell ? (cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent) : "";
    if (type === "num") {
      var n = parseFloat(raw);
      return isNaN(n) ? -Infinity : n;
    }
    return raw.trim().toLowerCase();
  }

  function SortableTable(table) {
    var self = this;
    this.table = table;
    this.body = table.tBodies[0];
    this.rows = Array.prototype.slice.call(this.body.rows);
    this.rows.forEach(function (row, i) { row.setAttribute("data-original-index", String(i)); });
    this.pageSize = parseInt(table.getAttribute("data-page-size") || "100", 10) || 100;
    this.page = 0;
    this.terms = [];
    this.headers = table.tHead ? Array.prototype.slice.call(table.tHead.rows[0].cells) : [];

    this.headers.forEach(function (th, index) {
      if (!th.hasAttribute("data-key")) { return; }
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (th.firstChild) { button.appendChild(th.firstChild); }
      th.appendChild(button);
      th.setAttribute("aria-sort", "none");
      button.addEventListener("click", function () { self.toggleSort(index); });
    });

    var controls = document.createElement("div");
    controls.className = "controls";
    this.input = document.createElement("input");
    this.input.type = "search";
    this.input.placeholder = "Filter rows (all words must match)";
    this.input.setAttribute("aria-label", "Filter rows of " + (table.id || "this table"));
    this.input.addEventListener("input", function () { self.setFilter(self.input.value); });
    this.prev = document.createElement("button");
    this.prev.type = "button";
    this.prev.textContent = "‹ previous";
    this.prev.addEventListener("click", function () { self.setPage(self.page - 1); });
    this.next = document.createElement("button");
    this.next.type = "button";
    this.next.textContent = "next ›";
    this.next.addEventListener("click", function () { self.setPage(self.page + 1); });
    this.count = document.createElement("span");
    this.count.className = "count";
    this.count.setAttribute("aria-live", "polite");
    controls.appendChild(this.input);
    controls.appendChild(this.prev);
    controls.appendChild(this.next);
    controls.appendChild(this.count);
    table.parentNode.insertBefore(controls, table);
    this.apply();
  }

  SortableTable.prototype.columnIndex = function (key) {
    for (var i = 0; i < this.headers.length; i++) {
      if (this.headers[i].getAttribute("data-key") === key) { return i; }
    }
    return -1;
  };

  /* A header click: ascending first, then toggles. */
  SortableTable.prototype.toggleSort = function (index) {
    var current = this.headers[index].getAttribute("aria-sort");
    this.sortBy(index, current === "ascending" ? "descending" : "ascending");
  };

  SortableTable.prototype.sortBy = function (index, direction) {
    var type = this.headers[index].getAttribute("data-type") || "text";
    var sign = direction === "descending" ? -1 : 1;
    this.rows.sort(function (a, b) {
      var x = sortValue(a, index, type), y = sortValue(b, index, type);
      if (x < y) { return -sign; }
      if (x > y) { return sign; }
      return parseInt(a.getAttribute("data-original-index"), 10) - parseInt(b.getAttribute("data-original-index"), 10);
    });
    var body = this.body;
    this.rows.forEach(function (row) { body.appendChild(row); });
    this.headers.forEach(function (th, i) {
      if (th.hasAttribute("data-key")) { th.setAttribute("aria-sort", i === index ? direction : "none"); }
    });
    this.page = 0;
    this.apply();
  };

  /* A keystroke in the filter box: every whitespace-separated word must occur in the row. */
  SortableTable.prototype.setFilter = function (text) {
    this.terms = text.toLowerCase().split(/\s+/).filter(function (t) { return t.length > 0; });
    this.page = 0;
    this.apply();
  };

  SortableTable.prototype.setPage = function (page) {
    this.page = page;
    this.apply();
  };

  SortableTable.prototype.apply = function () {
    var terms = this.terms;
    var matching = this.rows.filter(function (row) {
      var text = row.textContent.toLowerCase();
      return terms.every(function (t) { return text.indexOf(t) !== -1; });
    });
    var pages = Math.max(1, Math.ceil(matching.length / this.pageSize));
    this.page = Math.min(Math.max(0, this.page), pages - 1);
    var first = this.page * this.pageSize;
    var shown = {};
    matching.slice(first, first + this.pageSize).forEach(function (row) { shown[row.getAttribute("data-original-index")] = true; });
    this.rows.forEach(function (row) { row.hidden = !shown[row.getAttribute("data-original-index")]; });
    var visible = Math.min(this.pageSize, Math.max(0, matching.length - first));
    this.table.setAttribute("data-visible-rows", String(visible));
    this.table.setAttribute("data-matching-rows", String(matching.length));
    this.count.textContent = matching.length === 0
      ? "No rows match (" + this.rows.length + " in total)"
      : "Rows " + (first + 1) + "–" + (first + visible) + " of " + matching.length +
        (matching.length === this.rows.length ? "" : " matching (" + this.rows.length + " in total)") +
        (pages > 1 ? " · page " + (this.page + 1) + " of " + pages : "");
    this.prev.disabled = this.page === 0;
    this.next.disabled = this.page >= pages - 1;
    this.prev.hidden = this.next.hidden = pages <= 1;
  };

  function applyQuery(tables) {
    var params = new URLSearchParams(window.location.search);
    if (!params.has("sort") && !params.has("filter") && !params.has("page")) { return; }
    var id = params.get("table");
    var target = null;
    tables.forEach(function (t) { if (target === null && (!id || t.table.id === id)) { target = t; } });
    if (target === null) { throw new Error("query names table '" + id + "', which this page does not have"); }
    if (params.has("sort")) {
      var index = target.columnIndex(params.get("sort"));
      if (index < 0) { throw new Error("query sorts by unknown column '" + params.get("sort") + "'"); }
      var direction = params.get("dir") === "desc" ? "descending" : "ascending";
      if (direction === "ascending") { target.toggleSort(index); } else { target.sortBy(index, direction); }
    }
    if (params.has("filter")) {
      target.input.value = params.get("filter");
      target.input.dispatchEvent(new Event("input"));
    }
    if (params.has("page")) { target.setPage(parseInt(params.get("page"), 10) - 1); }
  }

  /* Test hook: page.html?probe=layout writes, on the verdict, every section heading and every
   * row of the change table, where its box ends (data-bottom, CSS pixels from the top of the
   * page), so a test can read from the dumped DOM what the first screen shows. */
  function probeLayout() {
    if (new URLSearchParams(window.location.search).get("probe") !== "layout") { return; }
    var probed = document.querySelectorAll("p.verdict, ul.causes > li, h2[id], table#changed tbody tr");
    Array.prototype.forEach.call(probed, function (el) {
      var box = el.getBoundingClientRect();
      el.setAttribute("data-bottom", String(Math.ceil(box.bottom + window.scrollY)));
    });
    document.documentElement.setAttribute("data-viewport-height", String(window.innerHeight));
  }

  function init() {
    try {
      var tables = Array.prototype.slice.call(document.querySelectorAll("table.data")).map(function (t) {
        return new SortableTable(t);
      });
      applyQuery(tables);
      probeLayout();
    } catch (e) {
      recordError(e && e.message ? e.message : e);
    }
    root.setAttribute("data-js", errors.length === 0 ? "ready" : "error");
    /* Milliseconds from navigation start until the tables were ready: the load time a
       reader waits, readable from a DOM dump. */
    root.setAttribute("data-ready-ms", String(Math.round(window.performance.now())));
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
